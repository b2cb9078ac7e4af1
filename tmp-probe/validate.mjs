import {appOperations} from '/work/wt-webapp/dist/test/helpers/datahub-documents.js'
import {buildCatalogSchema} from '/work/wt-webapp/dist/src/server/graphql/schema.js'
import {validate, specifiedRules} from 'graphql'
const ops = appOperations('/work/shared/clients/datahub-web-react-build')
const schema = buildCatalogSchema()
const only = process.argv.slice(2)
let okc = 0
const errCount = new Map()
for (const op of ops) {
  const errs = validate(schema, op.document, specifiedRules)
  if (errs.length === 0) okc++
  for (const e of errs) { const k = e.message.replace(/"\$\w+"/g,'$v'); errCount.set(k, (errCount.get(k) ?? 0) + 1) }
  if (only.includes(op.name)) console.log(op.name, errs.map((e) => e.message))
}
console.log('valid', okc, 'of', ops.length)
if (only.length === 0) console.log([...errCount].sort((a, b) => b[1] - a[1]).slice(0, 80).map(([k, v]) => `${v}\t${k}`).join('\n'))
