/**
 * A first start never changes data that is there (issue 29, item 5): on a store that already
 * holds the root user and policies — restored into the embedded store, or DataHub's own
 * `metadata_aspect_v2` rows in PostgreSQL — `mdcli lite` adds only the missing parts (the root
 * user's Admin role, the default policies that cannot be deleted, an admin token) and leaves
 * every present value and version as it was.
 */
import {expect} from 'chai'
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import pg from 'pg'
import {encodeUrnPath} from '../../src/model/urn.js'
import {SUPERSEDED_POLICIES} from '../../src/catalog/access/default-policies.js'
import {http, type LiteProcess, runCli, startLite, tempDir} from '../helpers/lite.js'
import {createTestDatabase, type TestDatabase} from '../helpers/pg.js'
import {requirePostgres, requireSharedFixtures} from '../helpers/requires.js'

const ROOT = 'urn:li:corpuser:datahub'
const JDOE = 'urn:li:corpuser:jdoe'
/** DataHub's root user as DataHub writes it. */
const DATAHUB_ROOT_INFO = {active: true, displayName: 'Data Hub', email: 'datahub@linkedin.com', title: 'DataHub Root User'}
/** DataHub's policy 7, made different from ours so that an overwrite would show. */
const POLICY_7 = {
  displayName: 'All Users - Base Platform Privileges',
  description: 'Grants base platform privileges to ALL users of DataHub. Change this policy to alter that behavior.',
  type: 'PLATFORM',
  state: 'ACTIVE',
  privileges: ['MANAGE_INGESTION', 'MANAGE_SECRETS', 'GENERATE_PERSONAL_ACCESS_TOKENS'],
  actors: {resourceOwners: false, allUsers: true, allGroups: false},
  editable: true,
}

async function aspect(lite: LiteProcess, urn: string, name: string, version = 0): Promise<{status: number; value?: unknown}> {
  const r = await http(`${lite.url}/aspects/${encodeUrnPath(urn)}?aspect=${name}&version=${version}`, {token: lite.token})
  return {status: r.status, value: r.status === 200 ? (r.body.aspect?.[Object.keys(r.body.aspect)[0]!] ?? r.body.aspect) : undefined}
}

describe('first start on a store with users', function () {
  this.timeout(120000)

  it('embedded: a default policy an older mdcli wrote, since corrected, gets today\'s value once (the Editor\'s EDIT_ENTITY narrowed)', async () => {
    const store = tempDir('mdcli-store-')
    const file = join(tempDir(), 'older.json')
    const old = SUPERSEDED_POLICIES.find((p) => p.id === 'editor-metadata-policy')!
    writeFileSync(file, JSON.stringify([{entityType: 'dataHubPolicy', entityUrn: 'urn:li:dataHubPolicy:editor-metadata-policy', changeType: 'UPSERT', aspectName: 'dataHubPolicyInfo', aspect: {json: old.info}}]))
    const imported = await runCli(['lite', 'import', '--store', store, '--file', file])
    expect(imported.code, imported.stderr).to.equal(0)
    const urn = 'urn:li:dataHubPolicy:editor-metadata-policy'
    let lite = await startLite({storeDir: store})
    try {
      const now = (await aspect(lite, urn, 'dataHubPolicyInfo')).value as {privileges: string[]}
      expect(now.privileges).to.not.include('EDIT_ENTITY')
      expect(now.privileges).to.include('EDIT_ENTITY_TAGS')
      expect((await aspect(lite, urn, 'dataHubPolicyInfo', 1)).value).to.deep.equal(old.info)
      const entities = (await aspect(lite, 'urn:li:dataHubPolicy:editor-metadata-policy-entities', 'dataHubPolicyInfo')).value as {privileges: string[]}
      expect(entities.privileges).to.deep.equal(['EDIT_ENTITY'])
      await lite.stop()
      lite = await startLite({storeDir: store, home: lite.home})
      expect((await aspect(lite, urn, 'dataHubPolicyInfo', 2)).status, 'rewritten once, not at every start').to.equal(404)
    } finally {
      await lite.stop()
    }
  })

  it('embedded: keeps the root user and policies restored into it, adds only what is missing, and a restart changes nothing', async () => {
    const store = tempDir('mdcli-store-')
    const file = join(tempDir(), 'restore.json')
    const mcp = (entityType: string, entityUrn: string, aspectName: string, json: unknown) => ({entityType, entityUrn, changeType: 'UPSERT', aspectName, aspect: {json}})
    writeFileSync(
      file,
      JSON.stringify([
        mcp('corpuser', ROOT, 'corpUserInfo', DATAHUB_ROOT_INFO),
        mcp('corpuser', JDOE, 'corpUserInfo', {active: true, displayName: 'John Doe'}),
        mcp('dataHubPolicy', 'urn:li:dataHubPolicy:7', 'dataHubPolicyInfo', POLICY_7),
      ]),
    )
    const imported = await runCli(['lite', 'import', '--store', store, '--file', file])
    expect(imported.code, imported.stderr).to.equal(0)

    let lite = await startLite({storeDir: store})
    try {
      // There was no token: the first start makes one, and it works (the root policies were added).
      expect(lite.token).to.match(/^mdt_/)
      const info = await http(`${lite.url}/entitiesV2/${encodeUrnPath(ROOT)}`, {token: lite.token})
      expect(info.status).to.equal(200)
      const json = JSON.stringify(info.body)
      expect(json).to.include('Data Hub').and.include('datahub@linkedin.com')
      expect(json).to.not.include('Root user')
      // Present values keep their one version; the missing role is added.
      expect((await aspect(lite, ROOT, 'corpUserInfo', 1)).status).to.equal(404)
      expect(json).to.include('urn:li:dataHubRole:Admin')
      const p7 = await http(`${lite.url}/entitiesV2/${encodeUrnPath('urn:li:dataHubPolicy:7')}?alwaysIncludeKeyAspect=false`, {token: lite.token})
      expect(JSON.stringify(p7.body)).to.include('MANAGE_SECRETS')
      expect((await aspect(lite, 'urn:li:dataHubPolicy:7', 'dataHubPolicyInfo', 1)).status).to.equal(404)
      // A default that cannot be deleted was missing and is added; one that can (editable) is not,
      // since the store had policies.
      expect((await http(`${lite.url}/entitiesV2/${encodeUrnPath('urn:li:dataHubPolicy:admin-platform-policy')}?alwaysIncludeKeyAspect=false`, {token: lite.token})).status).to.equal(200)
      expect((await http(`${lite.url}/entitiesV2/${encodeUrnPath('urn:li:dataHubPolicy:view-entity-page-all')}?alwaysIncludeKeyAspect=false`, {token: lite.token})).status).to.equal(404)
      expect(JSON.stringify((await http(`${lite.url}/entitiesV2/${encodeUrnPath(JDOE)}`, {token: lite.token})).body)).to.include('John Doe')
    } finally {
      await lite.stop()
    }
    const home = lite.home
    lite = await startLite({storeDir: store, home})
    try {
      expect(lite.output()).to.not.match(/mdt_/)
      expect((await aspect(lite, ROOT, 'corpUserInfo', 1)).status).to.equal(404)
      expect((await aspect(lite, ROOT, 'roleMembership', 1)).status).to.equal(404)
      expect((await aspect(lite, 'urn:li:dataHubPolicy:admin-platform-policy', 'dataHubPolicyInfo', 1)).status).to.equal(404)
    } finally {
      await lite.stop()
    }
  })

  describe('PostgreSQL: a database DataHub wrote', () => {
    let db: TestDatabase | undefined
    let lite: LiteProcess | undefined
    let policies: Array<{urn: string; info: unknown}>
    let roles: Array<{urn: string; info: unknown}>
    before(async function () {
      const adminUrl = await requirePostgres(this)
      policies = JSON.parse(readFileSync(requireSharedFixtures(this, 'datahub', 'boot', 'policies.json'), 'utf8'))
      roles = JSON.parse(readFileSync(requireSharedFixtures(this, 'datahub', 'boot', 'roles.json'), 'utf8'))
      db = await createTestDatabase(adminUrl, 'mdcli_firststart')
    })
    after(async () => {
      await lite?.stop()
      await db?.drop()
    })

    const rows = async () => {
      const c = new pg.Client({connectionString: db!.url})
      await c.connect()
      try {
        return (await c.query<{urn: string; aspect: string; version: string; metadata: string; createdon: Date; createdby: string}>('SELECT urn, aspect, version, metadata, createdon, createdby FROM metadata_aspect_v2 ORDER BY urn, aspect, version')).rows
      } finally {
        await c.end()
      }
    }

    it('keeps every row DataHub wrote, with its version, and adds only absent aspects', async () => {
      const c = new pg.Client({connectionString: db!.url})
      await c.connect()
      try {
        // DataHub's table as its own migration creates it, with the rows its boot steps write.
        await c.query(`CREATE TABLE metadata_aspect_v2 (
          urn varchar(500) NOT NULL, aspect varchar(200) NOT NULL, version bigint NOT NULL, metadata text NOT NULL,
          systemmetadata text, createdon timestamp NOT NULL, createdby varchar(255) NOT NULL, createdfor varchar(255),
          CONSTRAINT pk_metadata_aspect_v2 PRIMARY KEY (urn, aspect, version))`)
        const put = (urn: string, aspect: string, value: unknown) =>
          c.query(`INSERT INTO metadata_aspect_v2 (urn, aspect, version, metadata, systemmetadata, createdon, createdby) VALUES ($1, $2, 0, $3, $4, '2024-01-02 03:04:05', 'urn:li:corpuser:__datahub_system')`, [
            urn,
            aspect,
            JSON.stringify(value),
            JSON.stringify({runId: 'no-run-id-provided', lastObserved: 1704164645000}),
          ])
        await put(ROOT, 'corpUserKey', {username: 'datahub'})
        await put(ROOT, 'corpUserInfo', DATAHUB_ROOT_INFO)
        await put(JDOE, 'corpUserKey', {username: 'jdoe'})
        await put(JDOE, 'corpUserInfo', {active: true, displayName: 'John Doe'})
        for (const p of policies) (await put(p.urn, 'dataHubPolicyKey', {id: p.urn.split(':').pop()}), await put(p.urn, 'dataHubPolicyInfo', p.info))
        for (const r of roles) (await put(r.urn, 'dataHubRoleKey', {id: r.urn.split(':').pop()}), await put(r.urn, 'dataHubRoleInfo', r.info))
      } finally {
        await c.end()
      }
      const before = await rows()

      lite = await startLite({storeDir: db!.url})
      const after = await rows()
      const key = (r: {urn: string; aspect: string; version: string}) => `${r.urn} ${r.aspect} ${r.version}`
      const now = new Map(after.map((r) => [key(r), r]))
      for (const r of before) expect(now.get(key(r)), `${key(r)} is unchanged`).to.deep.equal(r)
      const had = new Set(before.map((r) => `${r.urn} ${r.aspect}`))
      const added = after.filter((r) => !before.some((b) => key(b) === key(r)))
      for (const r of added) expect(had.has(`${r.urn} ${r.aspect}`), `${key(r)} is new, not a new version of DataHub's`).to.equal(false)
      expect(added.map((r) => `${r.urn} ${r.aspect}`)).to.include(`${ROOT} roleMembership`)

      // Read through the server: DataHub's root user as DataHub wrote it, and the new token works.
      const info = await aspect(lite, ROOT, 'corpUserInfo')
      expect(info.status).to.equal(200)
      expect(JSON.stringify(info.value)).to.include('Data Hub').and.include('datahub@linkedin.com')

      // A restart adds nothing more.
      await lite.stop()
      lite = await startLite({storeDir: db!.url, home: lite.home})
      expect(await rows()).to.deep.equal(after)
    })
  })
})
