/**
 * How much of DataHub's web app our schema serves: every GraphQL operation of its built bundles
 * (../shared/clients/datahub-web-react-build) is validated against our schema with our document
 * limits, and the counts are printed. The operations every page asks first must validate, and no
 * document of the app may be refused by a limit (depth, tokens, cost) — only by a missing field.
 */
import {expect} from 'chai'
import {existsSync} from 'node:fs'
import {join} from 'node:path'
import {Kind, KnownTypeNamesRule, parse, print, specifiedRules, validate, visit} from 'graphql'
import {costLimitRule, DEFAULT_MAX_COST, DEFAULT_MAX_DEPTH, DEFAULT_MAX_DOCUMENT_BYTES, DEFAULT_MAX_TOKENS, depthLimitRule} from '../../src/server/graphql/limits.js'
import {buildCatalogSchema} from '../../src/server/graphql/schema.js'
import {lazyKnownTypeNamesRule, mergedRule} from '../../src/server/graphql/validation.js'
import {appOperations} from '../helpers/datahub-documents.js'
import {ROOT} from '../helpers/lite.js'
import {IN_CI} from '../helpers/requires.js'

const BUILD = join(ROOT, '..', 'shared', 'clients', 'datahub-web-react-build')
const STARTUP = ['appConfig', 'getMe', 'getGlobalViewsSettings', 'getHomePageSettings', 'listMyViews', 'listGlobalViews', 'getLatestProductUpdate']

describe('DataHub’s web app: its GraphQL documents against our schema', function () {
  // Validating some 600 large documents is CPU work; a busy machine needs far more than mocha's default.
  this.timeout(300_000)
  before(function () {
    if (existsSync(join(BUILD, 'index.html'))) return
    if (IN_CI) throw new Error(`DataHub's web-app build not found at ${BUILD} (CI=true: required)`)
    console.log(`      skipped: DataHub's web-app build not found at ${BUILD}`)
    this.skip()
  })

  it('counts the operations that validate; the startup ones all do, and no limit refuses any', () => {
    const schema = buildCatalogSchema()
    const ops = appOperations(BUILD)
    expect(ops.length).to.be.greaterThan(250)
    const limits = [depthLimitRule(DEFAULT_MAX_DEPTH), costLimitRule(DEFAULT_MAX_COST)]
    const failing = new Map<string, string>()
    const merged = [mergedRule(specifiedRules.map((r) => (r === KnownTypeNamesRule ? lazyKnownTypeNamesRule : r)))]
    const mergedDiffers: string[] = []
    const refusedByLimit: string[] = []
    for (const op of ops) {
      // As Apollo sends it: __typename in every selection set.
      const sent = visit(op.document, {SelectionSet: (n) => ({...n, selections: [...n.selections, {kind: Kind.FIELD, name: {kind: Kind.NAME, value: '__typename'}}]})})
      const text = print(sent)
      if (Buffer.byteLength(text) > DEFAULT_MAX_DOCUMENT_BYTES) refusedByLimit.push(`${op.name}: ${Buffer.byteLength(text)} bytes`)
      try {
        parse(text, {maxTokens: DEFAULT_MAX_TOKENS})
      } catch (e) {
        refusedByLimit.push(`${op.name}: ${(e as Error).message}`)
      }
      for (const e of validate(schema, sent, limits)) refusedByLimit.push(`${op.name}: ${e.message}`)
      const errors = validate(schema, sent, specifiedRules)
      if (errors.length > 0) failing.set(op.name, errors[0]!.message)
      // The server validates with the same rules merged into one (validation.ts): word for word the same.
      const said = (es: readonly Error[]) => es.map((e) => e.message).join('\n')
      if (said(validate(schema, sent, merged)) !== said(errors)) mergedDiffers.push(op.name)
    }
    expect(mergedDiffers, 'documents the merged rules judge differently').to.deep.equal([])
    const valid = ops.length - failing.size
    const byKind = (k: string) => ops.filter((o) => o.kind === k)
    const validOf = (k: string) => byKind(k).filter((o) => !failing.has(o.name)).length
    console.log(
      `      DataHub's web app: ${valid} of ${ops.length} operations validate (${((100 * valid) / ops.length).toFixed(1)} %): ` +
        `queries ${validOf('query')}/${byKind('query').length}, mutations ${validOf('mutation')}/${byKind('mutation').length}`,
    )
    // What blocks the rest, grouped by each failing operation's first error, most blocking first.
    const groups = new Map<string, string[]>()
    for (const [name, message] of failing) groups.set(message, [...(groups.get(message) ?? []), name])
    for (const [message, names] of [...groups].sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0])))
      console.log(`        ${String(names.length).padStart(3)}  ${message}  (${names.slice(0, 4).join(', ')}${names.length > 4 ? ', …' : ''})`)
    expect(refusedByLimit).to.deep.equal([])
    expect(STARTUP.filter((n) => failing.has(n)).map((n) => `${n}: ${failing.get(n)}`)).to.deep.equal([])
    // A floor, so a change that loses coverage fails here; raise it as coverage grows.
    expect(valid).to.be.at.least(307)
  })
})
