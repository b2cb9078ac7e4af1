import {expect} from 'chai'
import {createTestDatabase, type TestDatabase} from '../helpers/pg.js'
import {cleanup, http, type LiteProcess, startLite} from '../helpers/lite.js'
import {requirePostgres} from '../helpers/requires.js'

const DS = 'urn:li:dataset:(urn:li:dataPlatform:hive,replicas.shared,PROD)'
const enc = (u: string) => encodeURIComponent(u)

describe('two lite replicas on one PostgreSQL database', function () {
  this.timeout(180000)
  let db: TestDatabase
  let a: LiteProcess
  let b: LiteProcess
  let token = ''
  const gql = (lite: LiteProcess, query: string, tok = token) => http(`${lite.url}/api/graphql`, {token: tok, body: {query}})

  before(async function () {
    const admin = await requirePostgres(this)
    db = await createTestDatabase(admin)
    // Both start together: the migrations run once, under the advisory lock.
    ;[a, b] = await Promise.all([startLite({storeDir: db.url}), startLite({storeDir: db.url})])
    token = a.token || b.token
    expect(token, a.output() + b.output()).to.match(/^mdt_/)
  })
  after(async () => {
    for (const l of [a, b]) if (l) {
      await l.kill()
      cleanup(l.home)
    }
    await db?.drop()
  })

  it('applies 32 concurrent addTags split over both replicas: all 32 tags stay', async () => {
    const made = await http(`${a.url}/aspects?action=ingestProposal`, {
      token,
      body: {proposal: {entityType: 'dataset', entityUrn: DS, changeType: 'UPSERT', aspectName: 'datasetProperties', aspect: {value: JSON.stringify({name: 'shared', customProperties: {}, tags: []}), contentType: 'application/json'}}},
    })
    expect(made.status, JSON.stringify(made.body)).to.be.oneOf([200, 201])
    const tags = await http(`${b.url}/aspects?action=ingestProposalBatch`, {
      token,
      body: {proposals: Array.from({length: 32}, (_, i) => ({entityType: 'tag', entityUrn: `urn:li:tag:r${i}`, changeType: 'UPSERT', aspectName: 'tagProperties', aspect: {value: JSON.stringify({name: `r${i}`}), contentType: 'application/json'}}))},
    })
    expect(tags.status, JSON.stringify(tags.body)).to.equal(200)
    const calls = Array.from({length: 32}, (_, i) => gql(i % 2 === 0 ? a : b, `mutation { addTags(input: {tagUrns: ["urn:li:tag:r${i}"], resourceUrn: "${DS}"}) }`))
    const res = await Promise.all(calls)
    for (const r of res) expect(r.body.errors, JSON.stringify(r.body.errors)).to.equal(undefined)
    for (const l of [a, b]) {
      const got = await http(`${l.url}/aspects/${enc(DS)}?aspect=globalTags&version=0`, {token})
      expect(got.status, JSON.stringify(got.body)).to.equal(200)
      const tags = (JSON.stringify(got.body).match(/urn:li:tag:r\d+/g) ?? [])
      expect(new Set(tags).size).to.equal(32)
    }
  })

  it('sees the other replica\'s writes in search', async () => {
    const r = await http(`${a.url}/aspects?action=ingestProposal`, {
      token,
      body: {proposal: {entityType: 'tag', entityUrn: 'urn:li:tag:zebracrossing', changeType: 'UPSERT', aspectName: 'tagProperties', aspect: {value: JSON.stringify({name: 'zebracrossing'}), contentType: 'application/json'}}},
    })
    expect(r.status).to.be.oneOf([200, 201])
    let total = 0
    for (let i = 0; i < 50 && total === 0; i++) {
      total = (await gql(b, '{ search(input: {type: TAG, query: "zebracrossing", start: 0, count: 5}) { total } }')).body.data.search.total
      if (total === 0) await new Promise((res) => setTimeout(res, 100))
    }
    expect(total).to.equal(1)
  })

  it('refuses on B a token revoked through A (caches follow LISTEN/NOTIFY)', async () => {
    const t = await gql(a, 'mutation { createAccessToken(input: {type: PERSONAL, actorUrn: "urn:li:corpuser:datahub", duration: ONE_DAY, name: "rep"}) { accessToken metadata { id } } }')
    expect(t.body.errors, JSON.stringify(t.body.errors)).to.equal(undefined)
    const tok = t.body.data.createAccessToken.accessToken
    // B verifies (and caches) the token first.
    expect((await gql(b, '{ me { corpUser { urn } } }', tok)).status).to.equal(200)
    const rv = await gql(a, `mutation { revokeAccessToken(tokenId: "${t.body.data.createAccessToken.metadata.id}") }`)
    expect(rv.body.errors, JSON.stringify(rv.body.errors)).to.equal(undefined)
    let status = 200
    for (let i = 0; i < 50 && status === 200; i++) {
      status = (await gql(b, '{ me { corpUser { urn } } }', tok)).status
      if (status === 200) await new Promise((res) => setTimeout(res, 100))
    }
    expect(status).to.equal(401)
  })

  it('loses no acknowledged write when one replica is killed -9 during a batch ingest; the other keeps serving', async () => {
    const acked: string[] = []
    let n = 0
    const pump = async (l: LiteProcess) => {
      for (;;) {
        const i = n++
        const urns = Array.from({length: 20}, (_, j) => `urn:li:tag:kill-${i}-${j}`)
        try {
          const r = await http(`${l.url}/aspects?action=ingestProposalBatch`, {
            token,
            body: {proposals: urns.map((u) => ({entityType: 'tag', entityUrn: u, changeType: 'UPSERT', aspectName: 'tagProperties', aspect: {value: JSON.stringify({name: u}), contentType: 'application/json'}}))},
          })
          if (r.status !== 200) return
          acked.push(...urns)
        } catch {
          return
        }
        if (i > 400) return
      }
    }
    const pumps = [pump(a), pump(a)]
    await new Promise((res) => setTimeout(res, 1500))
    await a.kill()
    await Promise.all(pumps)
    expect(acked.length).to.be.greaterThan(0)
    for (let i = 0; i < acked.length; i += 200) {
      const batch = acked.slice(i, i + 200)
      const got = await Promise.all(batch.map((u) => http(`${b.url}/aspects/${enc(u)}?aspect=tagProperties&version=0`, {token})))
      got.forEach((g, k) => expect(g.status, batch[k]).to.equal(200))
    }
    expect((await gql(b, '{ me { corpUser { urn } } }')).status).to.equal(200)
  })
})
