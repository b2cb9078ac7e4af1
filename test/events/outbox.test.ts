import {expect} from 'chai'
import {appendFileSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {ChangeOutbox, OUTBOX_FILE, rebuildChanges} from '../../src/events/outbox.js'
import type {EntityRecord} from '../../src/store/types.js'
import {cleanup, tempDir} from '../helpers/lite.js'

const A = 'urn:li:dataset:(urn:li:dataPlatform:hive,a,PROD)'
const B = 'urn:li:dataset:(urn:li:dataPlatform:hive,b,PROD)'

describe('events: the change-log outbox', () => {
  let dir: string
  beforeEach(() => (dir = tempDir('mdcli-outbox-')))
  afterEach(() => cleanup(dir))

  it('keeps every commit not marked published across a reopen, with its entries when they were written, and its id', () => {
    const o = ChangeOutbox.open(dir)
    const mcl = {entityType: 'dataset', entityUrn: A, changeType: 'UPSERT' as const, aspectName: 'status', created: {time: 1, actor: 'urn:li:corpuser:x'}}
    const one = o.intent([{op: 'deleteEntity', urn: A}])
    o.committed(one, [{mcl, changeEvents: []}])
    const two = o.intent([{op: 'deleteAspect', urn: B, aspectName: 'status'}])
    const three = o.intent([{op: 'deleteEntity', urn: B}])
    o.committed(three, [{mcl, changeEvents: []}])
    o.published(three)
    o.close()
    // A torn last line (death mid-append) is ignored.
    appendFileSync(join(dir, OUTBOX_FILE), '{"c": 2, "chan')
    const again = ChangeOutbox.open(dir)
    expect(again.id).to.equal(o.id)
    expect(again.pending.map((p) => [p.commit, p.changes?.length])).to.deep.equal([
      [one, 1],
      [two, undefined],
    ])
    // New commits continue the sequence, so their message ids never collide with old ones.
    expect(again.intent([{op: 'deleteEntity', urn: A}])).to.equal(three + 1)
    again.close()
    expect(readFileSync(join(dir, OUTBOX_FILE), 'utf8').split('\n')[0]).to.equal(JSON.stringify({id: o.id}))
  })

  it('rebuilds a commit whose entries were lost from the store as it is now', () => {
    const now = new Map<string, EntityRecord>([[A, {urn: A, entityType: 'dataset', aspects: {status: {value: {removed: true}, systemMetadata: {runId: 'r'}}}} as unknown as EntityRecord]])
    const changes = rebuildChanges(
      {
        commit: 1,
        urns: [A, B],
        ops: [
          ['upsert', A, 'status'],
          ['deleteAspect', A, 'ownership'],
          ['deleteEntity', B],
          ['timeseries', A, 'datasetProfile'],
        ],
      },
      now,
      5,
    )
    expect(changes.map((c) => [c.mcl.entityUrn, c.mcl.changeType, c.mcl.aspectName, c.mcl.aspect?.value])).to.deep.equal([
      [A, 'UPSERT', 'status', '{"removed":true}'],
      [A, 'DELETE', 'ownership', undefined],
      [B, 'DELETE', undefined, undefined],
    ])
  })
})
