/**
 * The requests DataHub's own Python clients make (the REST emitter, DataHubGraph, the `datahub`
 * CLI), sent as they send them to a real `mdcli lite`, and what those clients read back.
 */
import {expect} from 'chai'
import {encodeUrnPath} from '../../src/model/urn.js'
import {http, runCli, useLite} from '../helpers/lite.js'

const DS = (n: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${n},PROD)`
const mcp = (urn: string, aspectName: string, json: unknown) => ({entityUrn: urn, aspectName, changeType: 'UPSERT', aspect: {json}})

describe('DataHub’s clients on lite', function () {
  this.timeout(120_000)
  const lite = useLite()
  const ingest = async (proposals: unknown[]) => {
    const r = await http(`${lite.url}/aspects?action=ingestProposalBatch`, {body: {proposals}})
    expect(r.status, JSON.stringify(r.body)).to.equal(200)
  }
  const search = (body: unknown) => http(`${lite.url}/entities?action=search`, {body})

  it('reads a batch of entities by urns quoted once, as the SDK quotes them (a dataset urn’s commas included)', async () => {
    await ingest([mcp(DS('cli.one'), 'datasetProperties', {name: 'one'}), mcp(DS('cli.two'), 'datasetProperties', {name: 'two'})])
    const ids = [DS('cli.one'), DS('cli.two'), DS('cli.absent')].map(encodeURIComponent).join(',')
    const r = await http(`${lite.url}/entitiesV2?ids=List(${ids})&aspects=List(datasetProperties)`)
    expect(r.status, JSON.stringify(r.body)).to.equal(200)
    expect(Object.keys(r.body.results).sort()).to.deep.equal([DS('cli.absent'), DS('cli.one'), DS('cli.two')])
    expect(r.body.results[DS('cli.two')].aspects.datasetProperties.value.name).to.equal('two')
    expect(Object.keys(r.body.results[DS('cli.absent')].aspects)).to.deep.equal(['datasetKey'])
    const without = await http(`${lite.url}/entitiesV2?ids=List(${ids})&aspects=List(datasetProperties)&alwaysIncludeKeyAspect=false`)
    expect(Object.keys(without.body.results).sort()).to.deep.equal([DS('cli.one'), DS('cli.two')])
    expect(Object.keys(without.body.results[DS('cli.one')].aspects)).to.deep.equal(['datasetProperties'])
  })

  it('answers every urn with its key aspect, as get_entity_semityped and get_aspects_for_entity expect, unless told not to', async () => {
    const absent = DS('cli.never.written')
    const r = await http(`${lite.url}/entitiesV2/${encodeUrnPath(absent)}`)
    expect(r.status, JSON.stringify(r.body)).to.equal(200)
    expect(r.body).to.deep.equal({
      entityName: 'dataset',
      urn: absent,
      aspects: {datasetKey: {name: 'datasetKey', type: 'VERSIONED', version: 0, value: {platform: 'urn:li:dataPlatform:hive', name: 'cli.never.written', origin: 'PROD'}}},
    })
    // get_aspects_for_entity projects the aspects it wants; the key comes with them.
    const projected = await http(`${lite.url}/entitiesV2/${encodeUrnPath(absent)}?aspects=List(status,ownership)`)
    expect(Object.keys(projected.body.aspects)).to.deep.equal(['datasetKey'])
    const urn = DS('cli.keyed')
    await ingest([mcp(urn, 'status', {removed: false})])
    const stored = await http(`${lite.url}/entitiesV2/${encodeUrnPath(urn)}?aspects=List(status)`)
    expect(Object.keys(stored.body.aspects).sort()).to.deep.equal(['datasetKey', 'status'])
    expect(stored.body.aspects.datasetKey.systemMetadata, 'the stored key, not one read off the urn').to.be.an('object')
    // Nothing was written by reading.
    expect((await http(`${lite.url}/entities?action=exists`, {body: {urn: absent}})).body).to.deep.equal({value: false})
    const strict = await http(`${lite.url}/entitiesV2/${encodeUrnPath(absent)}?alwaysIncludeKeyAspect=false`)
    expect(strict.status).to.equal(404)
    const bad = await http(`${lite.url}/entitiesV2/${encodeUrnPath(absent)}?alwaysIncludeKeyAspect=yes`)
    expect(bad.status).to.equal(400)
    expect(bad.body.message).to.include('alwaysIncludeKeyAspect')
    // mdcli's own CLI still says the entity does not exist.
    const cli = await runCli(['get', '--urn', absent], {env: lite.env()})
    expect(cli.code).to.not.equal(0)
    expect(cli.stderr).to.match(/does not exist|not found/i)
  })

  it('takes one value sent by the Python emitter (json.dumps spacing) and again in an MCE as one version', async () => {
    const urn = DS('cli.spelled')
    const value = {customProperties: {b: '2', a: '1'}, name: 'spelled', description: 'one value, two spellings'}
    // DataHub's emit_mcp: aspect.value is json.dumps(...) with its default ", " and ": ".
    const pythonText = '{"customProperties": {"b": "2", "a": "1"}, "name": "spelled", "description": "one value, two spellings"}'
    const mcp = await http(`${lite.url}/aspects?action=ingestProposal`, {body: {proposal: {entityType: 'dataset', entityUrn: urn, changeType: 'UPSERT', aspectName: 'datasetProperties', aspect: {contentType: 'application/json', value: pythonText}}}})
    expect(mcp.status, JSON.stringify(mcp.body)).to.equal(200)
    const mce = await http(`${lite.url}/entities?action=ingest`, {
      body: {entity: {value: {'com.linkedin.metadata.snapshot.DatasetSnapshot': {urn, aspects: [{'com.linkedin.dataset.DatasetProperties': {name: 'spelled', description: 'one value, two spellings', customProperties: {a: '1', b: '2'}}}]}}}},
    })
    expect(mce.status, JSON.stringify(mce.body)).to.equal(200)
    expect((await http(`${lite.url}/aspects/${encodeUrnPath(urn)}?aspect=datasetProperties&version=1`)).status, 'no second version').to.equal(404)
    const got = await http(`${lite.url}/aspects/${encodeUrnPath(urn)}?aspect=datasetProperties&version=0`)
    expect(got.body.aspect['com.linkedin.dataset.DatasetProperties']).to.deep.equal(value)
  })

  it('deletes the whole entity when a proposal deletes its key aspect', async () => {
    const urn = DS('cli.keyless')
    await ingest([mcp(urn, 'datasetProperties', {name: 'keylessprobe'}), mcp(urn, 'status', {removed: false})])
    const r = await http(`${lite.url}/aspects?action=ingestProposal`, {body: {proposal: {entityType: 'dataset', entityUrn: urn, changeType: 'DELETE', aspectName: 'datasetKey'}, async: 'false'}})
    expect(r.status, JSON.stringify(r.body)).to.equal(200)
    expect((await http(`${lite.url}/entitiesV2/${encodeUrnPath(urn)}?alwaysIncludeKeyAspect=false`)).status).to.equal(404)
    expect((await http(`${lite.url}/entities?action=exists`, {body: {urn}})).body).to.deep.equal({value: false})
    expect((await search({input: 'keylessprobe', entity: 'dataset', start: 0, count: 10})).body.value.numEntities).to.equal(0)
  })

  it('filters and sorts timeseries values as get_latest_timeseries_value asks, and refuses what it cannot filter', async () => {
    const urn = DS('cli.ops')
    const op = (t: number, operationType: string) => ({...mcp(urn, 'operation', {timestampMillis: t, lastUpdatedTimestamp: t, operationType}), entityType: 'dataset'})
    await ingest([op(1000, 'INSERT'), op(2000, 'DELETE'), op(3000, 'UPDATE'), op(4000, 'INSERT')])
    const values = async (extra: Record<string, unknown>) => {
      const r = await http(`${lite.url}/aspects?action=getTimeseriesAspectValues`, {body: {urn, entity: 'dataset', aspect: 'operation', ...extra}})
      expect(r.status, JSON.stringify(r.body)).to.equal(200)
      return r.body.value.values.map((v: {aspect: {value: string}}) => JSON.parse(v.aspect.value) as {timestampMillis: number; operationType: string})
    }
    const inserts = {filter: {or: [{and: [{field: 'operationType', values: ['INSERT'], condition: 'EQUAL'}]}]}}
    expect((await values({...inserts, limit: 1})).map((v: {timestampMillis: number}) => v.timestampMillis)).to.deep.equal([4000])
    expect((await values(inserts)).map((v: {operationType: string}) => v.operationType)).to.deep.equal(['INSERT', 'INSERT'])
    expect((await values({sort: {field: 'timestampMillis', order: 'ASCENDING'}, limit: 2})).map((v: {timestampMillis: number}) => v.timestampMillis)).to.deep.equal([1000, 2000])
    const bad = await http(`${lite.url}/aspects?action=getTimeseriesAspectValues`, {body: {urn, entity: 'dataset', aspect: 'operation', filter: {or: [{and: [{field: 'operationType', values: ['X'], condition: 'GREATER_THAN'}]}]}}})
    expect(bad.status).to.equal(400)
    expect(bad.body.message).to.include('GREATER_THAN')
  })

  it('searches by a name, as get_domain_urn_by_name does; a field no entity holds matches nothing', async () => {
    await ingest([mcp('urn:li:domain:mkt', 'domainProperties', {name: 'Marketing'}), mcp('urn:li:domain:fin', 'domainProperties', {name: 'Finance'})])
    const byName = await search({input: '*', entity: 'domain', start: 0, count: 10, filter: {or: [{and: [{field: 'name', values: ['Marketing'], condition: 'EQUAL'}]}]}})
    expect(byName.status, JSON.stringify(byName.body)).to.equal(200)
    expect(byName.body.value.entities.map((e: {entity: string}) => e.entity)).to.deep.equal(['urn:li:domain:mkt'])
    const tool = await search({input: '*', entity: 'chart', start: 0, count: 10, filter: {or: [{and: [{field: 'tool', values: ['looker'], condition: 'EQUAL'}]}]}})
    expect(tool.status, JSON.stringify(tool.body)).to.equal(200)
    expect(tool.body.value.numEntities).to.equal(0)
    // Typed on the command line, the same field is a mistake and says so.
    const cli = await runCli(['search', '*', '--filter', 'tool=looker'], {env: lite.env()})
    expect(cli.code).to.not.equal(0)
    expect(cli.stderr).to.include("--filter field 'tool'")
  })

  /** Reads a stream until `until` has been seen (or it ends); the text read. */
  const readUntil = async (reader: ReadableStreamDefaultReader<Uint8Array>, until: string): Promise<string> => {
    const chunks: string[] = []
    let tail = ''
    for (;;) {
      const {done, value} = await reader.read()
      if (done) break
      const chunk = Buffer.from(value).toString('utf8')
      chunks.push(chunk)
      if ((tail + chunk).includes(until)) break
      tail = chunk.slice(-until.length)
    }
    await reader.cancel()
    return chunks.join('')
  }

  it('streams a change larger than the subscriber bound to a live subscriber and on replay, then the next ones', async () => {
    const res = await fetch(`${lite.url}/events?aspect=datasetProperties`, {headers: {authorization: `Bearer ${lite.token}`}, signal: AbortSignal.timeout(90_000)})
    const reader = res.body!.getReader()
    await reader.read()
    const big = DS('cli.big')
    const description = 'x'.repeat(9 * 1024 * 1024)
    await ingest([mcp(big, 'datasetProperties', {name: 'big', description})])
    await ingest([mcp(DS('cli.after'), 'datasetProperties', {name: 'after'})])
    const text = await readUntil(reader, 'cli.after')
    expect(text).to.include('cli.big').and.include('cli.after')
    const firstId = Number(/^id: (\d+)$/m.exec(text)![1])
    const replay = await fetch(`${lite.url}/events?aspect=datasetProperties&lastEventId=${firstId - 1}`, {headers: {authorization: `Bearer ${lite.token}`}, signal: AbortSignal.timeout(90_000)})
    const again = await readUntil(replay.body!.getReader(), 'cli.after')
    expect(again).to.include('cli.big').and.include('cli.after')
  })

  it('cuts a subscriber that stops reading once it is behind by more than the bound, and nobody else', async () => {
    const stalled = await fetch(`${lite.url}/events?aspect=datasetProperties`, {headers: {authorization: `Bearer ${lite.token}`}, signal: AbortSignal.timeout(90_000)})
    const reading = await fetch(`${lite.url}/events?aspect=datasetProperties`, {headers: {authorization: `Bearer ${lite.token}`}, signal: AbortSignal.timeout(90_000)})
    const stalledReader = stalled.body!.getReader()
    await stalledReader.read()
    const readingReader = reading.body!.getReader()
    // The reading subscriber gets each change before the next is written (never more than one in
    // flight, whatever the machine's load); the stalled one falls further behind each time.
    let tail = ''
    // Eight changes of 5 MiB: more than the kernel's socket buffers could hold for the stalled one.
    for (let i = 1; i <= 8; i++) {
      await ingest([mcp(DS(`cli.stall${i}`), 'datasetProperties', {name: `stall${i}`, description: String(i).repeat(5 * 1024 * 1024)})])
      for (;;) {
        const {done, value} = await readingReader.read()
        if (done) throw new Error(`the reading subscriber's stream ended before change ${i}`)
        const seen = tail + Buffer.from(value).toString('utf8')
        tail = seen.slice(-64)
        if (seen.includes(`cli.stall${i},`)) break
      }
    }
    await readingReader.cancel()
    // The stalled one reads what its socket held, then the end the server made.
    const rest = await readUntil(stalledReader, 'cli.stall8').catch((e: Error) => `(${e.message}: ${String((e.cause as Error | undefined)?.message)})`)
    expect(rest).to.not.include('cli.stall8')
    expect(rest).to.include('other side closed')
  })
})
