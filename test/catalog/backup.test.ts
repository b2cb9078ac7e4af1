/**
 * `lite import` writes through the catalog: under a grant the catalog made, leaving the change-log
 * entries of its writes like any other write, and `lite export` reads the rows as stored (secret
 * aspects too: it is a backup). The command runs end to end in test/store/backup.test.ts.
 */
import {expect} from 'chai'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {exportStore, importRecords, type FileElement} from '../../src/catalog/backup.js'
import {Catalog, type Grant, SYSTEM_ACTOR} from '../../src/catalog/catalog.js'
import {BugError} from '../../src/errors.js'
import type {LoggedChange} from '../../src/model/changelog.js'
import {createMemoryStore} from '../../src/store/index.js'

const TAG = 'urn:li:tag:restored'

async function* elements(values: unknown[]): AsyncGenerator<FileElement> {
  for (const [index, value] of values.entries()) yield {index, value}
}

const record = (aspectName: string, json: unknown, extra: Record<string, unknown> = {}) => ({entityType: 'tag', entityUrn: TAG, changeType: 'UPSERT', aspectName, aspect: {json}, ...extra})

async function newCatalog(): Promise<Catalog> {
  const store = createMemoryStore()
  await store.open()
  return new Catalog({store})
}

describe('lite import / export through the catalog', () => {
  it('an import leaves a change-log entry for every record it writes, stamped as exported', async () => {
    const catalog = await newCatalog()
    const logged: Array<Omit<LoggedChange, 'id'>> = []
    catalog.onChange((changes) => logged.push(...changes))
    const report = await importRecords(catalog, catalog.systemGrant(), 'backup.json', elements([
      record('tagProperties', {name: 'one'}, {systemMetadata: {runId: 'run-1', properties: {'mdcli.createdTime': '1700000000000', 'mdcli.createdActor': 'urn:li:corpuser:ann'}}}),
      record('tagProperties', {name: 'two'}),
    ]))
    expect(report).to.include({records: 2, failed: 0, entities: 1})
    const props = logged.filter((c) => c.mcl.aspectName === 'tagProperties')
    expect(props.map((c) => JSON.parse(c.mcl.aspect!.value).name)).to.deep.equal(['one', 'two'])
    expect(props.map((c) => c.mcl.changeType)).to.deep.equal(['UPSERT', 'UPSERT'])
    // The row keeps the exported audit stamp; the stamp is not taken from the importing process.
    expect((await catalog.rawVersions(TAG, 'tagProperties')).find((v) => v.version === 1)?.created).to.deep.equal({time: 1700000000000, actor: 'urn:li:corpuser:ann'})
  })

  it('an import under a grant the catalog did not make writes nothing', async () => {
    const catalog = await newCatalog()
    const forged: Grant = {actor: SYSTEM_ACTOR}
    let err: unknown
    await importRecords(catalog, forged, 'backup.json', elements([record('tagProperties', {name: 'x'})])).catch((e) => (err = e))
    expect(err).to.be.instanceOf(BugError)
    expect(await catalog.exists(TAG)).to.equal(false)
  })

  it('an export holds the secret aspects a restore needs (a native user keeps its password)', async () => {
    const catalog = await newCatalog()
    const user = 'urn:li:corpuser:ann'
    await importRecords(catalog, catalog.systemGrant(), 'in.json', elements([
      {entityType: 'corpuser', entityUrn: user, changeType: 'UPSERT', aspectName: 'corpUserCredentials', aspect: {json: {salt: 's', hashedPassword: 'h'}}},
    ]))
    // Reads for callers leave the secret out; the backup keeps it.
    expect(await catalog.readAspect(user, 'corpUserCredentials')).to.equal(null)
    const dir = mkdtempSync(join(tmpdir(), 'mdcli-backup-catalog-'))
    try {
      const file = join(dir, 'out.json')
      await exportStore(catalog, file)
      const records = JSON.parse(readFileSync(file, 'utf8')) as Array<{aspectName: string; aspect: {json: unknown}}>
      expect(records.find((r) => r.aspectName === 'corpUserCredentials')?.aspect.json).to.deep.equal({salt: 's', hashedPassword: 'h'})
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  })
})
