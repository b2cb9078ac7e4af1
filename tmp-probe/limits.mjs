import {appOperations} from '/work/wt-webapp/dist/test/helpers/datahub-documents.js'
import {depthLimitRule, costLimitRule} from '/work/wt-webapp/dist/src/server/graphql/limits.js'
import {buildCatalogSchema} from '/work/wt-webapp/dist/src/server/graphql/schema.js'
import {validate, print, parse, visit, Kind} from 'graphql'
const ops = appOperations('/work/shared/clients/datahub-web-react-build')
const schema = buildCatalogSchema()
let maxD = 0, maxC = 0, maxT = 0, maxB = 0
for (const op of ops) {
  // add __typename like Apollo
  const doc = visit(op.document, {SelectionSet(n) { return {...n, selections: [...n.selections, {kind: Kind.FIELD, name: {kind: Kind.NAME, value: '__typename'}}]} }})
  const text = print(doc)
  let tokens = 0; parse(text, {maxTokens: 1e9, }); 
  try { parse(text, {maxTokens: 15000}) } catch { tokens = 1 }
  let d = 1; while (validate(schema, doc, [depthLimitRule(d)]).length) d++
  let c = 1; while (validate(schema, doc, [costLimitRule(c)]).length) c = Math.ceil(c * 1.1)
  if (d > maxD) { maxD = d; console.log('depth', d, op.name) }
  if (c > maxC) { maxC = c; console.log('cost~', c, op.name) }
  if (text.length > maxB) maxB = text.length
  if (tokens) maxT++
}
console.log({maxD, maxC, maxB, over5000tokens: maxT})
