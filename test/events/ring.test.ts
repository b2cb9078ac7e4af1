import {expect} from 'chai'
import {setFlagsFromString} from 'node:v8'
import {runInNewContext} from 'node:vm'
import {changesOf} from '../../src/store/core/changes.js'
import {ChangeLog} from '../../src/events/changelog.js'
import type {EntityRecord, WriteOp, WriteResult} from '../../src/store/types.js'

const change = (i: number, bytes: number) => ({
  mcl: {entityType: 'dataset', entityUrn: `urn:li:dataset:(urn:li:dataPlatform:hive,t${i},PROD)`, changeType: 'UPSERT' as const, aspectName: 'datasetProperties', aspect: {value: 'x'.repeat(bytes), contentType: 'application/json' as const}, created: {time: i, actor: 'urn:li:corpuser:test'}},
  changeEvents: [],
})

describe('change log ring', () => {
  it('keeps at most twice its capacity of changes, then the newest `capacity`', () => {
    const log = new ChangeLog(100, undefined, {firstId: 1})
    for (let i = 0; i < 450; i++) log.append([change(i, 10)])
    const {entries, gap} = log.since(0)
    expect(entries.length).to.be.within(100, 200)
    expect(entries[entries.length - 1]!.id).to.equal(450)
    expect(gap).to.equal(true)
  })

  it('holds fewer changes when their values are large: memory is bounded by bytes too', () => {
    // 1,000 changes of 100 KB would be 100 MB; a 1 MiB budget keeps a handful.
    const log = new ChangeLog(10_000, 2 ** 20, {firstId: 1})
    for (let i = 0; i < 1000; i++) log.append([change(i, 100_000)])
    const {entries} = log.since(0)
    expect(entries.length).to.be.within(1, 11)
    expect(entries[entries.length - 1]!.id).to.equal(1000)
    // Resuming from a dropped id says so.
    expect(log.since(5).gap).to.equal(true)
    expect(log.since(999).entries.map((e) => e.id)).to.deep.equal([1000])
  })

  it('an id it never gave out (a client resuming across a server restart) is a gap, and every held change is new to it', () => {
    const log = new ChangeLog(100, undefined, {firstId: 1})
    for (let i = 0; i < 3; i++) log.append([change(i, 10)])
    expect(log.since(3)).to.deep.include({gap: false, entries: []})
    const resumed = log.since(126)
    expect(resumed.gap).to.equal(true)
    expect(resumed.entries.map((e) => e.id)).to.deep.equal([1, 2, 3])
    expect(new ChangeLog(100, undefined, {firstId: 1}).since(126)).to.deep.include({gap: true, entries: []})
  })

  it('an id of an earlier log (below this one\'s first id) resumes with a gap and every held change', () => {
    const earlier = new ChangeLog(100, undefined, {firstId: 1000})
    for (let i = 0; i < 3; i++) earlier.append([change(i, 10)])
    const last = earlier.since(0).entries.at(-1)!.id
    const later = new ChangeLog(100, undefined, {firstId: 5000})
    later.append([change(9, 10)])
    expect(later.since(last)).to.deep.include({gap: true})
    expect(later.since(last).entries.map((e) => e.id)).to.deep.equal([5000])
    expect(later.since(0)).to.deep.include({gap: false})
    expect(later.since(5000)).to.deep.include({gap: false, entries: []})
  })
})

describe('change log ring, entries read back', () => {
  it('gives back every field of a change as it was appended, whatever its text', () => {
    const log = new ChangeLog(4, 2 ** 16, {firstId: 1})
    const texts = ['{"name":"plain"}', '{"name":"café ☕ 日本"}', '{"name":"\ud83d\ude00 pair"}', `{"name":"lone ${String.fromCharCode(0xd800)} surrogate"}`]
    const sm = {runId: 'run-1', lastObserved: 5}
    const entries = texts.map((t, i) => ({
      mcl: {entityType: 'dataset', entityUrn: `urn:li:dataset:(urn:li:dataPlatform:hive,t${i},PROD)`, changeType: 'UPSERT' as const, aspectName: 'datasetProperties', aspect: {value: t, contentType: 'application/json' as const}, previousAspectValue: {value: texts[(i + 1) % texts.length]!, contentType: 'application/json' as const}, created: {time: 10 + i, actor: 'urn:li:corpuser:ann'}, systemMetadata: sm},
      changeEvents: [{category: 'DOCUMENTATION', operation: 'MODIFY', entityUrn: 'x', auditStamp: {time: 1, actor: 'a'}}] as never[],
      commit: {seq: 7, index: i},
    }))
    log.append(entries)
    log.append([{mcl: {entityType: 'tag', entityUrn: 'urn:li:tag:gone', changeType: 'DELETE', created: {time: 99, actor: 'urn:li:corpuser:bob'}}, changeEvents: []}])
    const back = log.since(0)
    // Four slots: the first change made room for the fifth.
    expect(back.gap).to.equal(true)
    expect(back.entries.map((e) => e.id)).to.deep.equal([2, 3, 4, 5])
    for (const e of back.entries.slice(0, 3)) {
      const i = e.id - 1
      expect(JSON.parse(JSON.stringify(e))).to.deep.equal(JSON.parse(JSON.stringify({id: e.id, ...entries[i]!})))
      expect(e.mcl.aspect!.value).to.equal(texts[i])
    }
    const del = back.entries[3]!
    expect(del.mcl).to.deep.equal({entityType: 'tag', entityUrn: 'urn:li:tag:gone', changeType: 'DELETE', created: {time: 99, actor: 'urn:li:corpuser:bob'}})
    expect(del.commit).to.equal(undefined)
    expect(log.recentEntities(10).map((e) => e.mcl.entityUrn)).to.deep.equal(['urn:li:tag:gone', ...[3, 2, 1].map((i) => `urn:li:dataset:(urn:li:dataPlatform:hive,t${i},PROD)`)])
  })

  it('works out the change events of a change read back from its two values', () => {
    const urn = 'urn:li:dataset:(urn:li:dataPlatform:hive,events,PROD)'
    const stamp = {time: 1, actor: 'urn:li:corpuser:test'}
    const op = {op: 'upsert', urn, entityType: 'dataset', aspectName: 'globalTags', value: '{"tags":[{"tag":"urn:li:tag:pii"}]}', created: stamp, systemMetadata: {}} as WriteOp
    const result = {urn, aspectName: 'globalTags', changed: true, createdEntity: false, rowsRemoved: 0} as WriteResult
    const before = new Map([[urn, {urn, entityType: 'dataset', aspects: {globalTags: {value: {tags: [{tag: 'urn:li:tag:old'}]}, valueText: '{"tags":[{"tag":"urn:li:tag:old"}]}'}}} as unknown as EntityRecord]])
    const log = new ChangeLog(10)
    log.append(changesOf([op], [result], before, new Map(), stamp.actor, 1))
    const [e] = log.since(0).entries
    expect(e!.changeEvents.map((c) => [c.operation, c.modifier])).to.deep.equal([['REMOVE', 'urn:li:tag:old'], ['ADD', 'urn:li:tag:pii']])
  })

  it('keeps a text larger than its chunks in a buffer of the size it needs', () => {
    const log = new ChangeLog(10, 2 ** 16)
    const ascii = `{"d":"${'a'.repeat(300_000)}"}`
    const wide = `{"d":"${'é'.repeat(100_000)}"}`
    const before = process.memoryUsage().arrayBuffers
    log.append([{...change(1, 1), mcl: {...change(1, 1).mcl, aspect: {value: ascii, contentType: 'application/json' as const}, previousAspectValue: {value: wide, contentType: 'application/json' as const}}}])
    // 300 KB of ASCII and 100,000 two-byte characters, not three bytes a character of each.
    expect(process.memoryUsage().arrayBuffers - before).to.be.below(600_000)
    const [e] = log.since(0).entries
    expect(e!.mcl.aspect!.value).to.equal(ascii)
    expect(e!.mcl.previousAspectValue!.value).to.equal(wide)
  })

  it('reuses its memory: a long run of changes keeps the byte budget', () => {
    const log = new ChangeLog(1000, 2 ** 20)
    const before = process.memoryUsage().arrayBuffers
    for (let i = 0; i < 20_000; i++) log.append([change(i, 2000)])
    const grown = process.memoryUsage().arrayBuffers - before
    // 40 MB of texts went through a ring that holds 1 MiB of them.
    expect(grown).to.be.below(4 * 2 ** 20)
    const {entries} = log.since(0)
    expect(entries.length).to.be.within(400, 525)
    expect(entries.every((e) => e.mcl.aspect!.value === 'x'.repeat(2000))).to.equal(true)
  })
})

describe('change log entries', () => {
  it("keep only their own change alive, not the batch's before and after entities", async () => {
    // The entries' lazy change events once closed over the whole batch: a ring of 10,000 entries
    // then held every entity every write touched, with all of its aspects.
    setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as () => void
    const urn = 'urn:li:dataset:(urn:li:dataPlatform:hive,retained,PROD)'
    const stamp = {time: 1, actor: 'urn:li:corpuser:test'}
    // Built in a function of its own: a suspended async function keeps its dead locals alive.
    const make = () => {
      const big = {aspects: {schemaMetadata: {value: {fields: new Array(100_000).fill('x')}, valueText: '{}'}, globalTags: {value: {tags: []}, valueText: '{"tags":[]}'}}}
      const before = new Map([[urn, {urn, entityType: 'dataset', ...big} as unknown as EntityRecord]])
      const op = {op: 'upsert', urn, entityType: 'dataset', aspectName: 'globalTags', value: '{"tags":[{"tag":"urn:li:tag:pii"}]}', created: stamp, systemMetadata: {}} as WriteOp
      const result = {urn, aspectName: 'globalTags', changed: true, createdEntity: false, rowsRemoved: 0} as WriteResult
      return {watch: new WeakRef(before.get(urn)!), entries: changesOf([op], [result], before, new Map(), stamp.actor, 1)}
    }
    const {watch, entries} = make()
    await new Promise((r) => setImmediate(r))
    gc()
    expect(watch.deref()).to.equal(undefined)
    // The entry still works out its events from its own two values.
    expect(entries).to.have.length(1)
    expect(entries[0]!.changeEvents.map((e) => [e.category, e.operation, e.modifier])).to.deep.equal([['TAG', 'ADD', 'urn:li:tag:pii']])
    // Written as JSON (the outbox, a publisher), the entry carries its events and its id as fields.
    const log = new ChangeLog(10, undefined, {firstId: 1})
    log.append(entries)
    const written = JSON.parse(JSON.stringify(log.since(0).entries[0]))
    expect(Object.keys(written).sort()).to.deep.equal(['changeEvents', 'id', 'mcl'])
    expect(written.id).to.equal(1)
    expect(written.changeEvents[0].modifier).to.equal('urn:li:tag:pii')
  })
})
