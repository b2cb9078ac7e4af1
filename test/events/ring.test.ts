import {expect} from 'chai'
import {ChangeLog} from '../../src/events/changelog.js'

const change = (i: number, bytes: number) => ({
  mcl: {entityType: 'dataset', entityUrn: `urn:li:dataset:(urn:li:dataPlatform:hive,t${i},PROD)`, changeType: 'UPSERT' as const, aspectName: 'datasetProperties', aspect: {value: 'x'.repeat(bytes), contentType: 'application/json' as const}, created: {time: i, actor: 'urn:li:corpuser:test'}},
  changeEvents: [],
})

describe('change log ring', () => {
  it('keeps at most twice its capacity of changes, then the newest `capacity`', () => {
    const log = new ChangeLog(100)
    for (let i = 0; i < 450; i++) log.append([change(i, 10)])
    const {entries, gap} = log.since(0)
    expect(entries.length).to.be.within(100, 200)
    expect(entries[entries.length - 1]!.id).to.equal(450)
    expect(gap).to.equal(true)
  })

  it('holds fewer changes when their values are large: memory is bounded by bytes too', () => {
    // 1,000 changes of 100 KB would be 100 MB; a 1 MiB budget keeps a handful.
    const log = new ChangeLog(10_000, 2 ** 20)
    for (let i = 0; i < 1000; i++) log.append([change(i, 100_000)])
    const {entries} = log.since(0)
    expect(entries.length).to.be.within(1, 11)
    expect(entries[entries.length - 1]!.id).to.equal(1000)
    // Resuming from a dropped id says so.
    expect(log.since(5).gap).to.equal(true)
    expect(log.since(999).entries.map((e) => e.id)).to.deep.equal([1000])
  })
})
