/**
 * Every bad request is a 4xx: the documented limits (urn length, aspect size, nesting), malformed
 * escapes and Object.prototype names, then a seeded, bounded fuzz run of mutated REST paths,
 * REST bodies and GraphQL documents against the real `mdcli lite`, asserting no 5xx and a server
 * that still answers. The seed is printed with every failure so it can be replayed.
 */
import {expect} from 'chai'
import {request} from 'node:http'
import {MAX_ASPECT_BYTES, MAX_JSON_DEPTH, MAX_URN_LENGTH} from '../../src/model/limits.js'
import {http, useLite} from '../helpers/lite.js'
import {rng} from '../helpers/random.js'

const DS = (n: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${n},PROD)`


/** Sends a request with the path exactly as given (fetch would normalise it). */
function raw(base: string, token: string, method: string, path: string, body?: string): Promise<{status: number; text: string}> {
  const u = new URL(base)
  return new Promise((resolve, reject) => {
    const req = request(
      {host: u.hostname, port: u.port, method, path, headers: {'content-type': 'application/json', authorization: `Bearer ${token}`, 'x-restli-protocol-version': '2.0.0', ...(body === undefined ? {} : {'content-length': Buffer.byteLength(body)})}},
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (d) => (text += d))
        res.on('end', () => resolve({status: res.statusCode ?? 0, text}))
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

const NASTY = ['%', '%E0%A4%A', '%ZZ', '%00', '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', '', ' ', '(', ')', ',', 'List(', 'List()', 'urn:li:', '\u00e9', '..', '//', '%2F', '?', '&', '=', 'x'.repeat(600), '-1', '1e309', 'null', 'true', '[]', '{}']

function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)]!
}

function mutateString(r: () => number, s: string): string {
  const ops = r() < 0.5 ? 1 : 1 + Math.floor(r() * 3)
  let out = s
  for (let i = 0; i < ops; i++) {
    const at = Math.floor(r() * (out.length + 1))
    const k = r()
    if (k < 0.4) out = out.slice(0, at) + pick(r, NASTY) + out.slice(at)
    else if (k < 0.6) out = out.slice(0, at) + out.slice(at + 1 + Math.floor(r() * 5))
    else if (k < 0.8) out = out.slice(0, at) + String.fromCharCode(32 + Math.floor(r() * 95)) + out.slice(at)
    else out = pick(r, NASTY)
  }
  return out
}

const WEIRD_VALUES: unknown[] = [null, 0, -1, 1e308, '', 'x', [], {}, true, [null], {__proto__: 1}, {constructor: 'x'}, 'urn:li:corpuser:', '%E0%A4%A', 'x'.repeat(700)]

/** Replaces, deletes or adds one field somewhere in a JSON value. */
function mutateJson(r: () => number, v: unknown, depth = 0): unknown {
  if (v === null || typeof v !== 'object' || depth > 6 || r() < 0.25) {
    const k = r()
    if (k < 0.5) return pick(r, WEIRD_VALUES)
    if (typeof v === 'string') return mutateString(r, v)
    const n = 50 + Math.floor(r() * 150)
    return JSON.parse(`${'['.repeat(n)}1${']'.repeat(n)}`)
  }
  if (Array.isArray(v)) {
    const out = [...v]
    if (out.length > 0 && r() < 0.7) out[Math.floor(r() * out.length)] = mutateJson(r, out[Math.floor(r() * out.length)], depth + 1)
    else out.push(pick(r, WEIRD_VALUES))
    return out
  }
  const out: Record<string, unknown> = {...(v as Record<string, unknown>)}
  const keys = Object.keys(out)
  const k = r()
  if (keys.length > 0 && k < 0.6) {
    const key = pick(r, keys)
    out[key] = mutateJson(r, out[key], depth + 1)
  } else if (keys.length > 0 && k < 0.75) delete out[pick(r, keys)]
  else Object.defineProperty(out, pick(r, ['__proto__', 'constructor', 'toString', 'x', 'aspect', 'value']), {value: pick(r, WEIRD_VALUES), enumerable: true, writable: true, configurable: true})
  return out
}

function proposal(urn: string, aspectName: string, value: unknown): Record<string, unknown> {
  return {entityType: urn.split(':')[2], entityUrn: urn, aspectName, changeType: 'UPSERT', aspect: {contentType: 'application/json', value: JSON.stringify(value)}}
}

describe('every bad request is a 4xx', function () {
  this.timeout(180_000)
  const lite = useLite()

  it(`refuses an urn over ${MAX_URN_LENGTH} characters with 400, and writes nothing`, async () => {
    const urn = DS('u'.repeat(MAX_URN_LENGTH))
    const r = await http(`${lite.url}/aspects?action=ingestProposal`, {body: {proposal: proposal(urn, 'status', {removed: false})}})
    expect(r.status).to.equal(400)
    expect(r.body.message).to.match(/over the limit of 500/)
    const listed = await http(`${lite.url}/api/graphql`, {body: {query: '{ search(input: {type: DATASET, query: "*", start: 0, count: 100}) { total searchResults { entity { urn } } } }'}})
    expect(JSON.stringify(listed.body)).to.not.include('uuuuuuuuuu')
  })

  it('refuses an aspect over the size limit with 413, and writes nothing', async () => {
    const urn = DS('huge')
    const value = {name: 'huge', description: 'd'.repeat(MAX_ASPECT_BYTES)}
    const r = await http(`${lite.url}/aspects?action=ingestProposal`, {body: {proposal: proposal(urn, 'datasetProperties', value)}})
    expect(r.status).to.equal(413)
    expect((await http(`${lite.url}/entitiesV2/${encodeURIComponent(urn)}?alwaysIncludeKeyAspect=false`)).status).to.equal(404)
  })

  it(`refuses JSON nested deeper than ${MAX_JSON_DEPTH} with 400 (REST body, aspect value, GraphQL body)`, async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`
    const a = await raw(lite.url, lite.token, 'POST', '/aspects?action=ingestProposal', `{"proposal": ${deep}}`)
    expect(a.status).to.equal(400)
    const nested = `${'{"a":'.repeat(200)}1${'}'.repeat(200)}`
    const b = await http(`${lite.url}/aspects?action=ingestProposal`, {body: {proposal: {...proposal(DS('deep'), 'datasetProperties', {}), aspect: {contentType: 'application/json', value: nested}}}})
    expect(b.status).to.equal(400)
    expect(b.body.message).to.match(/deeper than 100/)
    const c = await raw(lite.url, lite.token, 'POST', '/api/graphql', `{"query": "{ __typename }", "variables": ${deep}}`)
    expect(c.status).to.equal(400)
    expect(JSON.parse(c.text).errors[0].extensions.code).to.equal(400)
  })

  it('refuses a NUL character in an urn or in system metadata with 400, and a read or search naming one is never a 5xx', async () => {
    // PostgreSQL's text and jsonb cannot hold a NUL: every store refuses the same writes.
    const nulUrn = DS('a\u0000b')
    const a = await http(`${lite.url}/aspects?action=ingestProposal`, {body: {proposal: proposal(nulUrn, 'status', {removed: false})}})
    expect(a.status).to.equal(400)
    expect(a.body.message).to.match(/control character/)
    for (const aspect of ['status', 'datasetProfile']) {
      const value = aspect === 'status' ? {removed: false} : {timestampMillis: 1000, rowCount: 3}
      const r = await http(`${lite.url}/aspects?action=ingestProposal`, {body: {proposal: {...proposal(DS('nul-sm'), aspect, value), systemMetadata: {runId: 'run\u0000x'}}}})
      expect(r.status, aspect).to.equal(400)
      expect(r.body.message, aspect).to.match(/systemMetadata holds a NUL/)
    }
    // Under a key JSON.parse makes an own property that a plain read would not find.
    const sm = JSON.parse('{"runId":"r","__proto__":{"properties":"a\\u0000b"}}')
    const p = await http(`${lite.url}/aspects?action=ingestProposal`, {body: {proposal: {...proposal(DS('nul-sm'), 'status', {removed: false}), systemMetadata: sm}}})
    expect(p.status).to.equal(400)
    expect(p.body.message).to.match(/systemMetadata holds a NUL/)
    expect((await http(`${lite.url}/entitiesV2/${encodeURIComponent(DS('nul-sm'))}?alwaysIncludeKeyAspect=false`)).status).to.equal(404)
    expect((await http(`${lite.url}/entitiesV2/${encodeURIComponent(nulUrn)}`)).status).to.equal(400)
    const g = await http(`${lite.url}/api/graphql`, {body: {query: 'query ($u: String!, $q: String!) { dataset(urn: $u) { urn } search(input: {type: DATASET, query: $q}) { total } }', variables: {u: nulUrn, q: 'a\u0000b'}}})
    expect(g.status).to.equal(200)
    expect(g.body.errors[0].extensions.code).to.equal(400)
    expect(g.body.data.search.total).to.equal(0)
  })

  it('answers malformed escapes and Object.prototype names with 4xx', async () => {
    const paths = [
      '/aspects/%',
      '/entitiesV2/%E0%A4%A',
      `/entitiesV2/${encodeURIComponent(DS('x'))}?aspects=List(%)`,
      ...['constructor', '__proto__', 'toString'].flatMap((n) => [
        `/aspects/${encodeURIComponent(DS('x'))}?aspect=${n}&version=0`,
        `/entitiesV2?ids=List(${n})`,
        `/entitiesV2/${n}`,
        `/aspects?action=${n}`,
      ]),
    ]
    // An entity to look into, so that lookups by name reach the stored aspects.
    await http(`${lite.url}/aspects?action=ingestProposal`, {body: {proposal: proposal(DS('x'), 'status', {removed: false})}})
    for (const p of paths) {
      const r = await raw(lite.url, lite.token, 'GET', p)
      expect(r.status, `${p}: ${r.text}`).to.be.within(400, 499)
    }
    // A projection naming no aspect of the registry holds none of them: the key aspect alone.
    for (const n of ['constructor', '__proto__', 'toString']) {
      const r = await http(`${lite.url}/entitiesV2/${encodeURIComponent(DS('x'))}?aspects=List(${n})`)
      expect(r.status, n).to.equal(200)
      expect(Object.keys(r.body.aspects), n).to.deep.equal(['datasetKey'])
    }
    for (const n of ['constructor', '__proto__', 'toString']) {
      const r = await http(`${lite.url}/aspects?action=ingestProposal`, {body: {proposal: proposal(DS('x'), n, {})}})
      expect(r.status, n).to.equal(400)
      const g = await http(`${lite.url}/api/graphql`, {body: {query: `{ ${n} }`}})
      expect(g.status, n).to.be.within(200, 499)
      expect(g.body.errors[0].extensions.code, n).to.equal(400)
    }
  })

  it('fuzz: a few thousand mutated REST paths, REST bodies and GraphQL documents get no 5xx', async () => {
    const seed = Number(process.env.MDCLI_FUZZ_SEED ?? 20261122)
    const r = rng(seed)
    const urn = DS('fuzz')
    const basePaths = [
      `/aspects/${encodeURIComponent(urn)}?aspect=datasetProperties&version=0`,
      `/entitiesV2/${encodeURIComponent(urn)}?aspects=List(status,globalTags)`,
      `/entitiesV2?ids=List(${encodeURIComponent(urn)})&aspects=List(status)`,
      `/openapi/timeline/v1/${encodeURIComponent(urn)}?categories=TAG`,
      '/config',
      '/health',
      `/aspects?action=getTimeseriesAspectValues`,
    ]
    const baseBodies: Array<[string, unknown]> = [
      ['/aspects?action=ingestProposal', {proposal: proposal(urn, 'datasetProperties', {name: 'fuzz', description: 'd', customProperties: {a: 'b'}})}],
      ['/aspects?action=ingestProposalBatch', {proposals: [proposal(urn, 'globalTags', {tags: [{tag: 'urn:li:tag:t'}]}), proposal('urn:li:corpuser:fuzz', 'corpUserInfo', {active: true})]}],
      ['/aspects?action=getTimeseriesAspectValues', {urn, entity: 'dataset', aspect: 'datasetProfile', limit: 5}],
      ['/entities?action=search', {input: '*', entity: 'dataset', start: 0, count: 5}],
      ['/runs?action=list', {pageOffset: 0, pageSize: 5}],
      ['/entities?action=delete', {urn: DS('fuzz-none'), dryRun: true}],
    ]
    const baseQueries: Array<[string, Record<string, unknown>]> = [
      ['query q($u: String!) { dataset(urn: $u) { urn properties { name } ownership { owners { owner { ... on CorpUser { urn } } type } } tags { tags { tag { name } } } } }', {u: urn}],
      ['{ search(input: {type: DATASET, query: "fuzz", start: 0, count: 5}) { start count total searchResults { entity { urn type } } } }', {}],
      ['mutation m($u: String!) { addTags(input: {tagUrns: ["urn:li:tag:t"], resourceUrn: $u}) }', {u: urn}],
      ['mutation m($u: String!) { updateDataset(urn: $u, input: {editableProperties: {description: "x"}}) { urn } }', {u: urn}],
      ['query q($u: String!) { corpUser(urn: $u) { urn } }', {u: 'urn:li:corpuser:fuzz'}],
    ]
    type Req = {method: string; path: string; body?: string}
    const reqs: Req[] = []
    for (let i = 0; i < 1000; i++) reqs.push({method: 'GET', path: mutateString(r, pick(r, basePaths))})
    for (let i = 0; i < 1200; i++) {
      const [path, body] = pick(r, baseBodies)
      const k = r()
      const text = k < 0.8 ? JSON.stringify(mutateJson(r, body)) : mutateString(r, JSON.stringify(body))
      reqs.push({method: 'POST', path: r() < 0.1 ? mutateString(r, path) : path, body: text})
    }
    for (let i = 0; i < 1000; i++) {
      const [query, variables] = pick(r, baseQueries)
      const k = r()
      const body = k < 0.6 ? {query: mutateString(r, query), variables} : k < 0.9 ? {query, variables: mutateJson(r, variables)} : mutateJson(r, {query, variables})
      reqs.push({method: 'POST', path: '/api/graphql', body: JSON.stringify(body)})
    }
    const bad: string[] = []
    let next = 0
    const worker = async (): Promise<void> => {
      while (next < reqs.length) {
        const q = reqs[next++]!
        // Paths the HTTP client itself refuses to send (control characters, spaces) are skipped.
        if (/[^\x21-\x7e]/.test(q.path)) continue
        let res: {status: number; text: string}
        try {
          res = await raw(lite.url, lite.token, q.method, q.path, q.body)
        } catch (e) {
          bad.push(`${q.method} ${q.path}: ${(e as Error).message}`)
          continue
        }
        if (res.status >= 500 || res.status === 0) bad.push(`${res.status} ${q.method} ${q.path.slice(0, 200)} ${q.body?.slice(0, 300) ?? ''} → ${res.text.slice(0, 200)}`)
      }
    }
    await Promise.all(Array.from({length: 8}, worker))
    expect(bad.length, `seed ${seed}:\n${bad.slice(0, 10).join("\n")}\nserver output:\n${lite.output().slice(-3000)}`).to.equal(0)
    expect(reqs.length).to.be.greaterThan(3000)
    expect((await http(`${lite.url}/health`)).status).to.equal(200)
    expect((await http(`${lite.url}/entitiesV2/${encodeURIComponent(urn)}?alwaysIncludeKeyAspect=false`)).status).to.be.oneOf([200, 404])
  })
})
