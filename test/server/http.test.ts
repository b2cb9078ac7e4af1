/** The request-target split the router runs on every request. */
import {expect} from 'chai'
import {encodeUrnPath} from '../../src/model/urn.js'
import {splitTarget} from '../../src/server/http.js'
import {gql, ingest, mcp} from '../graphql/helpers.js'
import {http, useLite} from '../helpers/lite.js'

describe('splitTarget', () => {
  const cases: Array<[string, string, Record<string, string>]> = [
    ['/api/graphql', '/api/graphql', {}],
    ['/aspects?action=ingestProposal', '/aspects', {action: 'ingestProposal'}],
    ['/entitiesV2/urn%3Ali%3Adataset%3A(urn%3Ali%3AdataPlatform%3Ahive%2Cdb.t%2CPROD)?aspects=List(status)', '/entitiesV2/urn%3Ali%3Adataset%3A(urn%3Ali%3AdataPlatform%3Ahive%2Cdb.t%2CPROD)', {aspects: 'List(status)'}],
    // Targets that need the WHATWG parser's normalisation agree with it.
    ['/a/../health', '/health', {}],
    ['/./health', '/health', {}],
    ['/x y', '/x%20y', {}],
    ['//evil/health', '/health', {}],
  ]
  for (const [target, pathname, query] of cases) {
    it(`splits ${target}`, () => {
      const r = splitTarget(target)
      expect(r.pathname).to.equal(pathname)
      expect(Object.fromEntries(r.searchParams)).to.deep.equal(query)
      expect(r.pathname).to.equal(new URL(target, 'http://localhost').pathname)
    })
  }
})

describe('responses written together at the end of a turn', function () {
  this.timeout(60_000)
  const lite = useLite()

  it('gives each of many concurrent requests its own answer, on many connections', async () => {
    const urns = Array.from({length: 40}, (_, i) => `urn:li:dataset:(urn:li:dataPlatform:hive,coalesce.t${i},PROD)`)
    await ingest(lite.url, urns.map((u, i) => mcp(u, 'datasetProperties', {name: `t${i}`, description: `table ${i}`})))
    const answers = await Promise.all([
      ...urns.map((u) => gql(lite.url, 'query q($urn: String!) { dataset(urn: $urn) { urn properties { description } } }', {urn: u})),
      ...urns.map((u) => http(`${lite.url}/entitiesV2/${encodeUrnPath(u)}`)),
    ])
    urns.forEach((u, i) => {
      const g = answers[i]!
      expect(g.body.data.dataset).to.deep.equal({urn: u, properties: {description: `table ${i}`}})
      const r = answers[urns.length + i]!
      expect(r.status).to.equal(200)
      expect(r.body.urn).to.equal(u)
    })
  })
})
