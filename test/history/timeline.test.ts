import {expect} from 'chai'
import {encodeUrnPath} from '../../src/model/urn.js'
import {cleanup, http, startLite, type LiteProcess} from '../helpers/lite.js'
import {AUDIT, dataset, mdcli, propose, putCli, schemaMetadata, sleep} from './helpers.js'

const D = dataset('hive', 'db.orders')
const TERM = 'urn:li:glossaryTerm:Classification.Confidential'

/** The scripted history: each step is one write, and gets its own change transaction. */
const EXPECTED: Array<{semVer: string; events: string[]}> = [
  {semVer: '0.0.0', events: ['ADD TECHNICAL_SCHEMA field:amount', 'ADD TECHNICAL_SCHEMA field:id', 'ADD TECHNICAL_SCHEMA field:note']},
  {semVer: '0.1.0', events: ['ADD TAG urn:li:tag:Legacy', 'ADD TAG urn:li:tag:PII']},
  {semVer: '0.2.0', events: ['ADD OWNER urn:li:corpuser:jdoe']},
  {semVer: '0.3.0', events: [`ADD GLOSSARY_TERM ${TERM}`]},
  {semVer: '1.0.0', events: ['MODIFY TECHNICAL_SCHEMA field:amount', 'ADD TECHNICAL_SCHEMA field:customer_id', 'REMOVE TECHNICAL_SCHEMA field:note']},
  {semVer: '1.1.0', events: ['REMOVE TAG urn:li:tag:Legacy']},
  {semVer: '1.2.0', events: ['MODIFY OWNER urn:li:corpuser:jdoe', 'ADD OWNER urn:li:corpuser:alice']},
  {semVer: '1.3.0', events: ['REMOVE OWNER urn:li:corpuser:alice']},
  {semVer: '1.4.0', events: ['ADD TAG urn:li:tag:Finance', 'ADD DOCUMENTATION amount']},
  {semVer: '1.4.1', events: ['MODIFY DOCUMENTATION amount']},
  {semVer: '1.5.0', events: [`REMOVE GLOSSARY_TERM ${TERM}`]},
  {semVer: '1.6.0', events: ['ADD DOMAIN urn:li:domain:sales']},
  {semVer: '1.7.0', events: ['MODIFY DEPRECATION -']},
]

function summary(tx: any): {semVer: string; events: string[]} {
  return {
    semVer: tx.semVer.replace(/-computed$/, ''),
    events: tx.changeEvents.map((e: any) => `${e.operation} ${e.category} ${e.modifier === undefined ? '-' : e.modifier.startsWith('urn:li:schemaField:') ? `field:${e.fieldPath}` : e.modifier}`),
  }
}

function localTime(ms: number): string {
  const d = new Date(ms)
  const p = (n: number) => String(n).padStart(2, '0')
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`
}

/** Applies an RFC 6902 patch (add, remove, replace) to a copy of `doc`. */
function applyPatch(doc: unknown, ops: Array<{op: string; path: string; value?: unknown}>): unknown {
  const root = {'': structuredClone(doc)} as any
  for (const o of ops) {
    const keys = ['', ...o.path.split('/').slice(1).map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'))]
    let parent = root
    for (const k of keys.slice(0, -1)) parent = parent[k]
    const last = keys[keys.length - 1]!
    if (o.op === 'remove') {
      if (Array.isArray(parent)) parent.splice(Number(last), 1)
      else delete parent[last]
    } else if (o.op === 'add' && Array.isArray(parent)) parent.splice(Number(last), 0, o.value)
    else parent[last] = o.value
  }
  return root['']
}

describe('timeline', function () {
  this.timeout(90_000)
  let lite: LiteProcess
  let all: any[]

  before(async () => {
    lite = await startLite()
    const step = async (fn: () => Promise<void>) => {
      await fn()
      // Distinct milliseconds: writes of the same instant merge into one transaction.
      await sleep(5)
    }
    await step(() => putCli(lite, D, 'schemaMetadata', schemaMetadata('orders', [{path: 'id', type: 'int'}, {path: 'amount', type: 'decimal(10,2)'}, {path: 'note', type: 'varchar(200)'}])))
    await step(() => propose(lite, D, 'globalTags', {tags: [{tag: 'urn:li:tag:Legacy'}, {tag: 'urn:li:tag:PII'}]}))
    await step(() => propose(lite, D, 'ownership', {owners: [{owner: 'urn:li:corpuser:jdoe', type: 'DATAOWNER'}]}))
    await step(() => propose(lite, D, 'glossaryTerms', {terms: [{urn: TERM}], auditStamp: AUDIT}))
    await step(() => putCli(lite, D, 'schemaMetadata', schemaMetadata('orders', [{path: 'id', type: 'int'}, {path: 'amount', type: 'double'}, {path: 'customer_id', type: 'bigint'}])))
    await step(() => propose(lite, D, 'globalTags', {tags: [{tag: 'urn:li:tag:PII'}]}))
    await step(() => propose(lite, D, 'ownership', {owners: [{owner: 'urn:li:corpuser:jdoe', type: 'TECHNICAL_OWNER'}, {owner: 'urn:li:corpuser:alice', type: 'DATAOWNER'}]}))
    await step(() => propose(lite, D, 'ownership', {owners: [{owner: 'urn:li:corpuser:jdoe', type: 'TECHNICAL_OWNER'}]}))
    await step(() => propose(lite, D, 'editableSchemaMetadata', {editableSchemaFieldInfo: [{fieldPath: 'amount', description: 'Order total', globalTags: {tags: [{tag: 'urn:li:tag:Finance'}]}}]}))
    await step(() => propose(lite, D, 'editableSchemaMetadata', {editableSchemaFieldInfo: [{fieldPath: 'amount', description: 'Order total in EUR', globalTags: {tags: [{tag: 'urn:li:tag:Finance'}]}}]}))
    await step(() => propose(lite, D, 'glossaryTerms', {terms: [], auditStamp: AUDIT}))
    await step(() => propose(lite, D, 'domains', {domains: ['urn:li:domain:sales']}))
    await step(() => propose(lite, D, 'deprecation', {deprecated: true, note: 'use orders_v2', actor: 'urn:li:corpuser:datahub'}))
    const r = await mdcli(lite, ['timeline', '--urn', D, '--json'])
    expect(r.code, r.stderr).to.equal(0)
    all = JSON.parse(r.stdout)
  })

  after(async () => {
    await lite?.stop()
    if (lite) cleanup(lite.storeDir, lite.home)
  })

  it('turns the scripted history into the expected events and semantic versions', () => {
    expect(all.map(summary)).to.deep.equal(EXPECTED)
    for (const tx of all) {
      expect(tx.actor).to.equal('urn:li:corpuser:datahub')
      expect(tx.semVer).to.match(/^\d+\.\d+\.\d+-computed$/)
      for (const e of tx.changeEvents) expect(e.auditStamp).to.deep.equal({time: tx.timestamp, actor: tx.actor})
      expect(tx).not.to.have.property('rawDiff')
    }
    const ts = all.map((t) => t.timestamp)
    expect(ts).to.deep.equal([...ts].sort((a, b) => a - b))
    expect(all[4].semVerChange).to.equal('MAJOR')
    expect(all[6].semVerChange).to.equal('MINOR')
    expect(all[9].semVerChange).to.equal('PATCH')
  })

  it('gives DataHub’s descriptions, modifiers and field urns', () => {
    const [added] = all[0].changeEvents
    expect(added).to.include({entityUrn: D, category: 'TECHNICAL_SCHEMA', operation: 'ADD', semVerChange: 'MINOR', modifier: `urn:li:schemaField:(${D},amount)`, fieldPath: 'amount'})
    expect(added.description).to.equal("A forwards & backwards compatible change due to the newly added field 'amount'.")
    const [retyped, , dropped] = all[4].changeEvents
    expect(retyped.description).to.equal("A backwards incompatible change due to native datatype of the field 'amount' changed from 'decimal(10,2)' to 'double'.")
    expect(retyped.semVerChange).to.equal('MAJOR')
    expect(dropped.description).to.equal("A backwards incompatible change due to removal of field: 'note'.")
    expect(all[1].changeEvents[0].description).to.equal(`Tag 'Legacy' added to entity '${D}'.`)
    expect(all[5].changeEvents[0].description).to.equal(`Tag 'Legacy' removed from entity '${D}'.`)
    expect(all[2].changeEvents[0].description).to.equal(`'jdoe' added as a \`DATAOWNER\` of '${D}'.`)
    expect(all[6].changeEvents[0]).to.include({semVerChange: 'PATCH', description: `'jdoe''s ownership type changed from 'DATAOWNER' to 'TECHNICAL_OWNER' for '${D}'.`})
    expect(all[7].changeEvents[0].description).to.equal(`'alice' removed as a \`DATAOWNER\` of '${D}'.`)
    expect(all[3].changeEvents[0].description).to.equal(`Term 'Classification.Confidential' added to entity '${D}'.`)
    const fieldTag = all[8].changeEvents[0]
    expect(fieldTag).to.include({entityUrn: `urn:li:schemaField:(${D},amount)`, modifier: 'urn:li:tag:Finance', category: 'TAG'})
    expect(fieldTag.parameters).to.include({fieldPath: 'amount', parentUrn: D, tagUrn: 'urn:li:tag:Finance'})
    expect(all[9].changeEvents[0].description).to.equal(`Documentation for the field 'amount' of 'urn:li:schemaField:(${D},amount)' has been updated from 'Order total' to 'Order total in EUR'.`)
    expect(all[11].changeEvents[0].description).to.equal(`Domain 'sales' added to entity '${D}'.`)
    expect(all[12].changeEvents[0].parameters).to.include({status: 'DEPRECATED'})
    expect(all[4].versionStamp).to.match(/schemaMetadata:0/)
    expect(all[0].versionStamp).to.match(/schemaMetadata:1/)
  })

  it('prints one line per transaction and one tab-indented line per event', async () => {
    const r = await mdcli(lite, ['timeline', '--urn', D])
    expect(r.code, r.stderr).to.equal(0)
    const lines = r.stdout.trimEnd().split('\n')
    expect(lines[0]).to.equal(`${localTime(all[0].timestamp)} - 0.0.0-computed`)
    expect(lines[1]).to.equal("\tADD TECHNICAL_SCHEMA dataset:hive:db.orders (field:amount): A forwards & backwards compatible change due to the newly added field 'amount'.")
    expect(lines).to.include(`\tADD TAG dataset:hive:db.orders (urn:li:tag:PII): Tag 'PII' added to entity '${D}'.`)
    expect(lines).to.include(`\tADD TAG field:amount (urn:li:tag:Finance): Tag 'Finance' added to entity 'urn:li:schemaField:(${D},amount)'.`)
    expect(lines).to.include(`\tMODIFY DEPRECATION dataset:hive:db.orders: Entity '${D}' has been deprecated: 'use orders_v2'.`)
    expect(lines.filter((l) => !l.startsWith('\t'))).to.deep.equal(all.map((t) => `${localTime(t.timestamp)} - ${t.semVer}`))
    expect(lines.filter((l) => l.startsWith('\t'))).to.have.length(all.reduce((n, t) => n + t.changeEvents.length, 0))
  })

  it('filters by category, case-insensitively, and refuses unknown categories', async () => {
    const tags = await mdcli(lite, ['timeline', '--urn', D, '-c', 'tag', '--json'])
    expect(tags.code, tags.stderr).to.equal(0)
    expect(JSON.parse(tags.stdout).map(summary)).to.deep.equal([
      {semVer: '0.0.0', events: ['ADD TAG urn:li:tag:Legacy', 'ADD TAG urn:li:tag:PII']},
      {semVer: '0.1.0', events: ['REMOVE TAG urn:li:tag:Legacy']},
      {semVer: '0.2.0', events: ['ADD TAG urn:li:tag:Finance']},
    ])
    const schema = await mdcli(lite, ['timeline', '--urn', D, '--category', 'TECHNICAL_SCHEMA', '-c', 'Owner', '--json'])
    expect(JSON.parse(schema.stdout).map((t: any) => t.semVer)).to.deep.equal(['0.0.0-computed', '0.1.0-computed', '1.0.0-computed', '1.1.0-computed', '1.2.0-computed'])
    const bad = await mdcli(lite, ['timeline', '--urn', D, '-c', 'LINEAGE'])
    expect(bad.code).to.equal(1)
    expect(bad.stderr).to.contain("category: LINEAGE is not one of ['TAG', 'GLOSSARY_TERM', 'OWNER', 'DOCUMENTATION', 'TECHNICAL_SCHEMA', 'DOMAIN', 'DEPRECATION']")
  })

  it('says a dataset that does not exist does not, instead of an empty window', async () => {
    const r = await mdcli(lite, ['timeline', '--urn', 'urn:li:dataset:(urn:li:dataPlatform:hive,no_such_table_here,PROD)'])
    expect(r.code).to.equal(1)
    expect(r.stderr).to.match(/does not exist/)
    expect(r.stderr).not.to.contain('No changes in this window')
  })

  it('honours --start and --end, diffing the first change in the window against the version before it', async () => {
    const fromSchemaChange = await mdcli(lite, ['timeline', '--urn', D, '--start', String(all[4].timestamp), '--json'])
    const txs = JSON.parse(fromSchemaChange.stdout)
    expect(txs).to.have.length(all.length - 4)
    expect(summary(txs[0])).to.deep.equal({semVer: '0.0.0', events: EXPECTED[4]!.events})
    expect(summary(txs[1]).semVer).to.equal('0.1.0')

    const untilOwner = await mdcli(lite, ['timeline', '--urn', D, '--end', String(all[2].timestamp), '--json'])
    expect(JSON.parse(untilOwner.stdout).map(summary)).to.deep.equal(EXPECTED.slice(0, 3))

    const iso = await mdcli(lite, ['timeline', '--urn', D, '--start', '2000-01-01', '--end', new Date(all[1].timestamp).toISOString(), '--json'])
    expect(JSON.parse(iso.stdout)).to.have.length(2)

    const relative = await mdcli(lite, ['timeline', '--urn', D, '--start', '24hoursago', '--end', 'now', '--json'])
    expect(JSON.parse(relative.stdout)).to.have.length(all.length)
    const old = await mdcli(lite, ['timeline', '--urn', D, '--start', '30daysago', '--end', '7daysago', '--json'])
    expect(JSON.parse(old.stdout)).to.deep.equal([])

    const bad = await mdcli(lite, ['timeline', '--urn', D, '--start', 'yesterday'])
    expect(bad.code).to.equal(1)
    expect(bad.stderr).to.contain("Cannot read --start 'yesterday'")
  })

  it('adds the raw JSON patch with --raw, and prints the full answer with --verbose', async () => {
    const r = await mdcli(lite, ['timeline', '--urn', D, '-c', 'TAG', '--raw', '--json'])
    const txs = JSON.parse(r.stdout)
    const [first, second] = txs
    expect(first.rawDiff).to.deep.equal([{op: 'add', path: '/globalTags', value: {tags: [{tag: 'urn:li:tag:Legacy'}, {tag: 'urn:li:tag:PII'}]}}])
    const before = {globalTags: {tags: [{tag: 'urn:li:tag:Legacy'}, {tag: 'urn:li:tag:PII'}]}}
    expect(applyPatch(before, second.rawDiff)).to.deep.equal({globalTags: {tags: [{tag: 'urn:li:tag:PII'}]}})

    const text = await mdcli(lite, ['timeline', '--urn', D, '-c', 'TAG', '--raw'])
    expect(text.stdout).to.contain('\traw: [{"op":"add","path":"/globalTags"')

    const verbose = await mdcli(lite, ['timeline', '--urn', D, '-v'])
    expect(verbose.code, verbose.stderr).to.equal(0)
    expect(JSON.parse(verbose.stdout)).to.deep.equal(all)
  })

  it('refuses urns that are not datasets, from the CLI and over HTTP', async () => {
    const cli = await mdcli(lite, ['timeline', '--urn', 'urn:li:tag:PII'])
    expect(cli.code).to.equal(1)
    expect(cli.stderr).to.contain('timeline covers datasets only')
    const rest = await http(`${lite.url}/openapi/timeline/v1/${encodeUrnPath('urn:li:tag:PII')}`)
    expect(rest.status).to.equal(400)
    expect(rest.body.message).to.contain('timeline covers datasets only')
  })

  it('serves DataHub’s timeline endpoint with categories, window and raw parameters', async () => {
    const base = `${lite.url}/openapi/timeline/v1/${encodeUrnPath(D)}`
    const owners = await http(`${base}?categories=ownership,DOMAIN`)
    expect(owners.status).to.equal(200)
    expect(owners.body.map(summary).map((s: any) => s.events[0])).to.deep.equal(['ADD OWNER urn:li:corpuser:jdoe', 'MODIFY OWNER urn:li:corpuser:jdoe', 'REMOVE OWNER urn:li:corpuser:alice', 'ADD DOMAIN urn:li:domain:sales'])
    const windowed = await http(`${base}?categories=TAG&startTime=${all[5].timestamp}&endTime=${all[5].timestamp}&raw=true`)
    expect(windowed.body).to.have.length(1)
    expect(windowed.body[0].rawDiff).to.be.an('array').that.is.not.empty
    const older = await http(`${base}?categories=TAG&start=${all[5].timestamp}&end=${all[5].timestamp}`)
    expect(older.body).to.have.length(1)
    const v2 = await http(`${lite.url}/openapi/v2/timeline/v1/${encodeUrnPath(D)}?categories=TAG`)
    expect(v2.body).to.have.length(3)
    const bad = await http(`${base}?categories=NOPE`)
    expect(bad.status).to.equal(400)
    const badTime = await http(`${base}?startTime=soon`)
    expect(badTime.status).to.equal(400)
  })
})
