/**
 * The transport and the error model against a real `mdcli lite`: graphql-http's GraphQL-over-HTTP
 * audit suite, the spec's `errors` items for every kind of failure, and the limits that refuse
 * pathological requests before they run.
 */
import {expect} from 'chai'
import {type AuditResult, serverAudits} from 'graphql-http'
import {cleanup, eventually, type LiteProcess, startLite} from '../helpers/lite.js'
import {dataset, ds, fails, gql, ingest, mcp, ok, U} from './helpers.js'

describe('graphql: transport, errors and limits', function () {
  this.timeout(60_000)
  let lite: LiteProcess
  const A = ds('err.a')

  before(async () => {
    lite = await startLite()
    await ingest(lite.url, [...dataset('err.a'), mcp(U.pii, 'tagProperties', {name: 'pii'})])
  })
  after(async () => {
    await lite?.stop()
    if (lite) cleanup(lite.storeDir, lite.home)
  })

  it('passes every MUST audit of graphql-http’s server audit suite', async () => {
    const results: AuditResult[] = []
    // The audits speak plain GraphQL over HTTP; they authenticate as the admin like any client.
    const fetchFn = (input: any, init: any = {}) => fetch(input, {...init, headers: {...Object.fromEntries(new Headers(init.headers ?? {})), authorization: `Bearer ${lite.token}`}})
    for (const a of serverAudits({url: `${lite.url}/api/graphql`, fetchFn})) results.push(await a.fn())
    const failed = (level: string) => results.filter((r) => r.status !== 'ok' && r.name.startsWith(level)).map((r) => `${r.name}: ${'reason' in r ? r.reason : ''}`)
    expect(results.length).to.be.greaterThan(40)
    expect(failed('MUST')).to.deep.equal([])
    // Not required, but graphql-http meets every recommendation too; keep it that way.
    expect(failed('SHOULD')).to.deep.equal([])
  })

  describe('error model', () => {
    it('answers HTTP 200 with data and errors items in the spec’s shape', async () => {
      const q = `{ good: dataset(urn: "${A}") { urn } bad: dataset(urn: "oops") { urn } }`
      const r = await gql(lite.url, q)
      expect(r.status).to.equal(200)
      expect(r.body.data).to.deep.equal({good: {urn: A}, bad: null})
      expect(r.body.errors).to.deep.equal([
        {
          message: 'Invalid urn oops: must start with \'urn:li:\'',
          locations: [{line: 1, column: q.indexOf('bad:') + 1}],
          path: ['bad'],
          extensions: {code: 400, type: 'BAD_REQUEST', classification: 'DataFetchingException'},
        },
      ])
    })

    it('reports an internal failure as SERVER_ERROR without internals, beside partial data', async () => {
      // A stored value GraphQL cannot represent (a decommission time past 2^53) breaks one field.
      await ingest(lite.url, [{...mcp(A, 'deprecation', {deprecated: true, note: 'n', actor: U.datahub}), aspect: {contentType: 'application/json', value: '{"deprecated":true,"note":"n","actor":"urn:li:corpuser:datahub","decommissionTime":1e300}'}}])
      const q = `{ dataset(urn: "${A}") { urn deprecation { deprecated decommissionTime } } }`
      const r = await gql(lite.url, q)
      expect(r.status).to.equal(200)
      expect(r.body.data).to.deep.equal({dataset: {urn: A, deprecation: {deprecated: true, decommissionTime: null}}})
      expect(r.body.errors).to.deep.equal([
        {message: 'An unknown error occurred.', locations: [{line: 1, column: q.indexOf('decommissionTime') + 1}], path: ['dataset', 'deprecation', 'decommissionTime'], extensions: {code: 500, type: 'SERVER_ERROR', classification: 'DataFetchingException'}},
      ])
      expect(JSON.stringify(r.body)).not.to.match(/\bat \w|\.js:|Long cannot/)
      // The cause is in the server log for whoever runs it.
      await eventually(() => lite.output().includes('Long cannot represent'))
      expect(lite.output()).to.contain('Long cannot represent')
      await ingest(lite.url, [mcp(A, 'deprecation', {deprecated: false, note: '', actor: U.datahub})])
    })

    it('names the culprit of a malformed query, an unknown field and a wrong variable type', async () => {
      const syntax = await gql(lite.url, '{ dataset(urn: "x") { urn ')
      expect(syntax.status).to.equal(200)
      expect(syntax.body.data).to.equal(undefined)
      expect(syntax.body.errors).to.deep.equal([{message: 'Syntax Error: Expected Name, found <EOF>.', locations: [{line: 1, column: 27}], extensions: {code: 400, type: 'BAD_REQUEST', classification: 'InvalidSyntax'}}])

      const unknown = await fails(lite.url, `{ dataset(urn: "${A}") { urn colour } }`)
      expect(unknown.message).to.equal('Cannot query field "colour" on type "Dataset".')
      expect(unknown.extensions).to.deep.equal({code: 400, type: 'BAD_REQUEST', classification: 'ValidationError'})

      const variable = await fails(lite.url, 'query ($urn: String!) { dataset(urn: $urn) { urn } }', {urn: 42})
      expect(variable.message).to.equal('Variable "$urn" got invalid value 42; String cannot represent a non string value: 42')
      expect(variable.extensions?.code).to.equal(400)

      const badEnum = await fails(lite.url, '{ search(input: {type: TABLE, query: "*"}) { total } }')
      expect(badEnum.message).to.contain('"TABLE"')
    })

    it('answers 400 for a request without a query or with a body that is not JSON', async () => {
      const missing = await fetch(`${lite.url}/api/graphql`, {method: 'POST', headers: {'content-type': 'application/json', authorization: `Bearer ${lite.token}`}, body: '{}'})
      expect(missing.status).to.equal(400)
      expect(await missing.json()).to.deep.equal({errors: [{message: 'Missing query', extensions: {code: 400, type: 'BAD_REQUEST', classification: 'ValidationError'}}]})
      const notJson = await fetch(`${lite.url}/api/graphql`, {method: 'POST', headers: {'content-type': 'application/json', authorization: `Bearer ${lite.token}`}, body: '{"query": '})
      expect(notJson.status).to.equal(400)
      expect(((await notJson.json()) as any).errors[0].message).to.equal('Unparsable JSON body')
    })

    it('uses HTTP 400 for request errors when the client accepts application/graphql-response+json', async () => {
      const r = await gql(lite.url, '{ nope }', {}, {accept: 'application/graphql-response+json'})
      expect(r.status).to.equal(400)
      expect(r.headers.get('content-type')).to.contain('application/graphql-response+json')
    })

    it('refuses mutations over GET', async () => {
      const res = await fetch(`${lite.url}/api/graphql?query=${encodeURIComponent(`mutation { batchUpdateSoftDeleted(input: {urns: ["${A}"], deleted: true}) }`)}`, {headers: {authorization: `Bearer ${lite.token}`}})
      expect(res.status).to.equal(405)
      expect(await ok(lite.url, `{ dataset(urn: "${A}") { status { removed } } }`)).to.deep.equal({dataset: {status: null}})
    })

    it('reads a POST the guard admits (X-Mdcli with no or another type, application/*+json) as JSON, and refuses another charset in the spec\'s shape', async () => {
      const body = JSON.stringify({query: `{ dataset(urn: "${A}") { urn } }`})
      const post = (headers: Record<string, string>) => fetch(`${lite.url}/api/graphql`, {method: 'POST', headers: {authorization: `Bearer ${lite.token}`, ...headers}, body})
      for (const headers of [{'x-mdcli': '1'}, {'x-mdcli': '1', 'content-type': 'text/plain'}, {'content-type': 'application/vnd.api+json'}, {'x-requested-with': 'fetch', 'content-type': 'application/x-www-form-urlencoded'}] as Array<Record<string, string>>) {
        const r = await post(headers)
        expect(r.status, JSON.stringify(headers)).to.equal(200)
        expect(await r.json(), JSON.stringify(headers)).to.deep.equal({data: {dataset: {urn: A}}})
      }
      const utf16 = await post({'content-type': 'application/json; charset=utf-16'})
      expect(utf16.status).to.equal(415)
      const refused = (await utf16.json()) as {errors: Array<{message: string; extensions: {code: number}}>}
      expect(refused.errors[0]!.message).to.match(/UTF-8/)
      expect(refused.errors[0]!.extensions.code).to.equal(400)
      // What a page of another site could send stays refused before it is read.
      expect((await post({'content-type': 'text/plain'})).status).to.equal(415)
    })

    it('answers queries over GET', async () => {
      const res = await fetch(`${lite.url}/api/graphql?query=${encodeURIComponent(`{ dataset(urn: "${A}") { name } }`)}`, {headers: {authorization: `Bearer ${lite.token}`}})
      expect(res.status).to.equal(200)
      expect(await res.json()).to.deep.equal({data: {dataset: {name: 'err.a'}}})
    })
  })

  describe('limits', () => {
    const nested = (levels: number) => `{ dataset(urn: "${A}") { ${'container { '.repeat(levels)}urn${' }'.repeat(levels)} } }`

    it('refuses a query nested deeper than 30 levels before running it (DataHub’s web app goes to 22)', async () => {
      expect((await gql(lite.url, nested(28))).body.errors).to.equal(undefined)
      const e = await fails(lite.url, nested(35))
      expect(e.message).to.equal('Operation is nested deeper than the limit of 30 levels; select fewer nested fields')
      expect(e.extensions).to.deep.equal({code: 400, type: 'BAD_REQUEST', classification: 'ValidationError'})
      // Through fragments too.
      const viaFragments = await fails(lite.url, `query Deep { dataset(urn: "${A}") { ...C } } fragment C on Dataset { ${'container { '.repeat(32)}urn${' }'.repeat(32)} }`)
      expect(viaFragments.message).to.contain('Operation Deep is nested deeper than the limit of 30 levels')
    })

    it('refuses a document over 256 KiB and one with more than 15,000 tokens (graphql-java’s default, DataHub’s)', async () => {
      const big = `{ __typename }\n#${'x'.repeat(260 * 1024)}`
      const e = await fails(lite.url, big)
      expect(e.message).to.equal(`Query document is ${Buffer.byteLength(big)} bytes, over the limit of 262144 bytes`)
      expect(e.extensions?.code).to.equal(400)
      const many = `{ ${Array.from({length: 6000}, (_, i) => `a${i}: __typename`).join(' ')} }`
      const e2 = await fails(lite.url, many)
      // graphql-js's own wording ("more that", sic).
      expect(e2.message).to.match(/^Syntax Error: Document contains more th[ae]t 15000 tokens\. Parsing aborted\.$/)
    })

    it('refuses a fragment bomb (a short document that expands to millions of fields) before running it', async () => {
      const levels = 24
      const frags = [`fragment Q0 on Query { __typename }`, ...Array.from({length: levels}, (_, i) => `fragment Q${i + 1} on Query { ...Q${i} ...Q${i} }`)]
      const bomb = `query Bomb { ...Q${levels} } ${frags.join(' ')}`
      expect(bomb.length).to.be.lessThan(2000)
      const e = await fails(lite.url, bomb)
      expect(e.message).to.equal('Operation Bomb selects more than 2000000 fields once its fragments are expanded, the limit; select fewer fields or spread fragments less often')
      expect(e.extensions?.code).to.equal(400)
    })

    it('answers, again and again, a document under the limit whose fragments expand to half a million fields', async () => {
      // Such a document is not compiled (graphql-jit writes code for each field of the expansion:
      // minutes of CPU for this one, seconds for DataHub's own entity documents); graphql-js
      // answers it, at the cost of the data it meets.
      const levels = 18
      const frags = ['fragment C0 on Container { urn }', ...Array.from({length: levels}, (_, i) => `fragment C${i + 1} on Container { a: container { ...C${i} } b: container { ...C${i} } }`)]
      const wide = `query Wide { dataset(urn: "${A}") { name container { ...C${levels} } } } ${frags.join(' ')}`
      for (let i = 0; i < 3; i++) expect(await ok(lite.url, wide)).to.deep.equal({dataset: {name: 'err.a', container: null}})
    })

    it('caps the search results of one request over all its aliases together', async () => {
      const searches = (n: number, count: number) => `{ ${Array.from({length: n}, (_, i) => `s${i}: search(input: {type: DATASET, query: "*", count: ${count}}) { total }`).join(' ')} }`
      expect((await gql(lite.url, searches(5, 2000))).body.errors).to.equal(undefined)
      const r = await gql(lite.url, searches(20, 2000))
      expect(r.status).to.equal(200)
      const errors = r.body.errors ?? []
      expect(errors.length).to.be.greaterThan(0)
      expect(errors[0]!.message).to.equal('This request asks for more than 10000 search results over all its fields together; ask for fewer per field, or split the request (scroll to walk everything)')
      expect(errors[0]!.extensions?.code).to.equal(400)
      // At most ten whole-type scans (browse) per request.
      const browses = (n: number) => `{ ${Array.from({length: n}, (_, i) => `b${i}: browseV2(input: {type: DATASET, path: []}) { total }`).join(' ')} }`
      expect((await gql(lite.url, browses(10))).body.errors).to.equal(undefined)
      expect((await gql(lite.url, browses(11))).body.errors?.[0]?.message).to.match(/^This request asks for more than 10000 search results/)
    })

    it('survives a document nested as deep as the token limit allows', async () => {
      const r = await gql(lite.url, `{ ${'a { '.repeat(1600)}b${' }'.repeat(1600)} }`)
      expect(r.status).to.equal(200)
      expect(r.body.errors![0]!.extensions?.code).to.equal(400)
      expect(await ok(lite.url, '{ __typename }')).to.deep.equal({__typename: 'Query'})
    })

    it('refuses a request body over the server’s body limit with 413', async () => {
      const res = await fetch(`${lite.url}/api/graphql`, {method: 'POST', headers: {'content-type': 'application/json', authorization: `Bearer ${lite.token}`}, body: JSON.stringify({query: '{ __typename }', variables: {pad: 'x'.repeat(33 * 1024 * 1024)}})})
      expect(res.status).to.equal(413)
      const body = (await res.json()) as any
      expect(body.errors[0].message).to.match(/over the limit of 33554432 bytes/)
      expect(body.errors[0].extensions).to.deep.equal({code: 400, type: 'BAD_REQUEST', classification: 'ValidationError'})
    })
  })
})
