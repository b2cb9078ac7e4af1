import {expect} from 'chai'
import {jetstreamManager} from '@nats-io/jetstream'
import {jetstream} from '@nats-io/jetstream'
import {connect, type NatsConnection} from '@nats-io/transport-node'
import {cleanup, http, tempDir, useLite} from '../helpers/lite.js'
import {requireNats, uniqueName} from '../helpers/requires.js'
import {ingestJson, writeRecipe} from '../ingest/helpers.js'

const enc = encodeURIComponent
const natsUrn = (stream: string) => `urn:li:dataset:(urn:li:dataPlatform:nats,${stream},PROD)`

describe('events: the nats source catalogues JetStream streams', function () {
  this.timeout(180_000)
  const lite = useLite()
  let url: string
  let nc: NatsConnection
  let dir: string
  let prefix: string
  const streams: string[] = []

  before(async function () {
    url = await requireNats(this)
    nc = await connect({servers: url.replace(/^nats:\/\//, '')})
    dir = tempDir('mdcli-nats-source-')
    prefix = uniqueName('SRC').replace(/[^A-Za-z0-9_]/g, '_')
    const jsm = await jetstreamManager(nc)
    const js = jetstream(nc)
    for (const s of ['MCP', 'ORDERS', 'GONE']) {
      const name = `${prefix}_${s}`
      streams.push(name)
      await jsm.streams.add({name, subjects: [`${name.toLowerCase()}.>`], max_msgs: 1000, description: `the ${s} stream`})
    }
    const enc8 = new TextEncoder()
    const mcp = {entityType: 'dataset', entityUrn: 'urn:li:dataset:(urn:li:dataPlatform:hive,x,PROD)', changeType: 'UPSERT', aspectName: 'status', aspect: {value: '{"removed":false}', contentType: 'application/json'}}
    for (let i = 0; i < 3; i++) await js.publish(`${prefix.toLowerCase()}_mcp.p`, enc8.encode(JSON.stringify(mcp)))
    await js.publish(`${prefix.toLowerCase()}_orders.new`, enc8.encode(JSON.stringify({id: 1, customer: {name: 'a'}})))
  })
  after(async () => {
    if (nc) {
      const jsm = await jetstreamManager(nc)
      for (const s of streams) await jsm.streams.delete(s).catch(() => undefined)
      await nc.close()
    }
    if (dir) cleanup(dir)
  })

  const recipe = (name: string) =>
    writeRecipe(
      dir,
      {
        pipeline_name: `nats_${prefix}`,
        source: {
          type: 'nats',
          config: {
            server: url,
            stream_pattern: {allow: [`${prefix}_`]},
            schemas: {[`${prefix}_ORDERS`]: {type: 'object', properties: {id: {type: 'integer'}, customer: {type: ['object', 'null'], properties: {name: {type: 'string', description: 'who'}}}}}},
            stateful_ingestion: {enabled: true, fail_safe_threshold: 50},
          },
        },
        sink: {type: 'datahub-rest'},
      },
      `${name}.yml`,
    )
  const aspect = async (urn: string, name: string) => (await http(`${lite.url}/aspects/${enc(urn)}?aspect=${name}`, {token: lite.token})).body

  it('makes each stream a dataset with its properties and schema, and soft-deletes a stream removed since', async () => {
    const first = await ingestJson(recipe('first'), lite.env())
    expect(first.code, first.stderr + first.stdout).to.equal(0)

    const props = await aspect(natsUrn(`${prefix}_MCP`), 'datasetProperties')
    const custom = JSON.stringify(props)
    expect(custom).to.contain(`"messages":"3"`)
    expect(custom).to.contain(`"subjects":"${prefix.toLowerCase()}_mcp.>"`)
    expect(custom).to.contain(`"max_msgs":"1000"`)
    expect(custom).to.contain(`"retention":"limits"`)
    expect(custom).to.contain('the MCP stream')

    const mcpSchema = JSON.stringify(await aspect(natsUrn(`${prefix}_MCP`), 'schemaMetadata'))
    for (const f of ['entityUrn', 'aspectName', 'changeType', 'aspect.value']) expect(mcpSchema).to.contain(`"fieldPath":"${f}"`)
    const declared = JSON.stringify(await aspect(natsUrn(`${prefix}_ORDERS`), 'schemaMetadata'))
    expect(declared).to.contain('"fieldPath":"customer.name"')
    expect(declared).to.contain('com.linkedin.schema.NumberType')
    // No messages, no declared schema: no schema.
    const none = await http(`${lite.url}/aspects/${enc(natsUrn(`${prefix}_GONE`))}?aspect=schemaMetadata`, {token: lite.token})
    expect(none.status).to.equal(404)

    await (await jetstreamManager(nc)).streams.delete(`${prefix}_GONE`)
    const second = await ingestJson(recipe('second'), lite.env())
    expect(second.code, second.stderr + second.stdout).to.equal(0)
    expect(second.result.source.report.info.softDeletedStaleEntities).to.deep.equal([natsUrn(`${prefix}_GONE`)])
    expect(JSON.stringify(await aspect(natsUrn(`${prefix}_GONE`), 'status'))).to.contain('"removed":true')
    expect(JSON.stringify(await aspect(natsUrn(`${prefix}_MCP`), 'status'))).to.contain('"removed":false')
  })
})
