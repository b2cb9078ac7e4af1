/**
 * Helpers for the history, delete and migration suites: write metadata to a running `mdcli lite`
 * through its REST endpoint or the real `mdcli put`, and read entities back in full.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {expect} from 'chai'
import {encodeUrnPath} from '../../src/model/urn.js'
import {cleanup, http, runCli, tempDir, type CliResult, type LiteProcess} from '../helpers/lite.js'

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

export function dataset(platform: string, name: string, env = 'PROD'): string {
  return `urn:li:dataset:(urn:li:dataPlatform:${platform},${name},${env})`
}

/** One UPSERT proposal through `POST /aspects?action=ingestProposal`. */
export async function propose(lite: LiteProcess, urn: string, aspectName: string, value: unknown): Promise<void> {
  const r = await http(`${lite.url}/aspects?action=ingestProposal`, {
    body: {proposal: {entityUrn: urn, aspectName, changeType: 'UPSERT', aspect: {contentType: 'application/json', value: JSON.stringify(value)}}},
  })
  expect(r.status, JSON.stringify(r.body)).to.equal(200)
}

/** Many proposals in one atomic batch. */
export async function proposeAll(lite: LiteProcess, items: Array<[string, string, unknown]>): Promise<void> {
  for (let i = 0; i < items.length; i += 2000) {
    const proposals = items.slice(i, i + 2000).map(([urn, aspectName, value]) => ({entityUrn: urn, aspectName, changeType: 'UPSERT', aspect: {json: value}}))
    const r = await http(`${lite.url}/aspects?action=ingestProposalBatch`, {body: {proposals, atomic: true}})
    expect(r.status, JSON.stringify(r.body).slice(0, 500)).to.equal(200)
    expect(r.body.value.failed).to.equal(0)
  }
}

export function mdcli(lite: LiteProcess, args: string[], opts: {input?: string; timeoutMs?: number} = {}): Promise<CliResult> {
  return runCli(args, {env: lite.env(), input: opts.input, timeoutMs: opts.timeoutMs})
}

/** `mdcli put` with the value written to a temporary file, as a user would. */
export async function putCli(lite: LiteProcess, urn: string, aspectName: string, value: unknown): Promise<void> {
  const dir = tempDir('mdcli-put-')
  const file = join(dir, `${aspectName}.json`)
  writeFileSync(file, JSON.stringify(value))
  const r = await mdcli(lite, ['put', '--urn', urn, '--aspect', aspectName, '-d', file])
  cleanup(dir)
  expect(r.code, r.stderr).to.equal(0)
  expect(r.stdout).to.contain('Update succeeded with status 200')
}

/** The entity as `GET /entitiesV2/{urn}` answers it (every aspect), or null when it does not exist. */
export async function readEntity(lite: LiteProcess, urn: string): Promise<any> {
  const r = await http(`${lite.url}/entitiesV2/${encodeUrnPath(urn)}?alwaysIncludeKeyAspect=false`)
  if (r.status === 404) return null
  expect(r.status, JSON.stringify(r.body)).to.equal(200)
  return r.body
}

/** Full reads of several entities, keyed by urn: the before/after picture of "nothing changed". */
export async function snapshot(lite: LiteProcess, urns: string[]): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {}
  for (const u of urns) out[u] = await readEntity(lite, u)
  return out
}

/** Urns a full-text search of one type finds (soft-deleted ones excluded, as search does). */
export async function searchUrns(lite: LiteProcess, entity: string, input: string, filter?: Array<{field: string; value: string}>): Promise<string[]> {
  const r = await http(`${lite.url}/entities?action=search`, {body: {entity, input, count: 1000, ...(filter ? {filter: {or: [{and: filter}]}} : {})}})
  expect(r.status, JSON.stringify(r.body)).to.equal(200)
  return r.body.value.entities.map((e: {entity: string}) => e.entity)
}

export function schemaMetadata(name: string, fields: Array<{path: string; type: string; description?: string}>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    schemaName: name,
    platform: 'urn:li:dataPlatform:hive',
    version: 0,
    hash: '',
    platformSchema: {'com.linkedin.schema.MySqlDDL': {tableSchema: ''}},
    fields: fields.map((f) => ({
      fieldPath: f.path,
      nativeDataType: f.type,
      type: {type: {[/int|double|decimal/.test(f.type) ? 'com.linkedin.schema.NumberType' : 'com.linkedin.schema.StringType']: {}}},
      ...(f.description ? {description: f.description} : {}),
    })),
    ...extra,
  }
}

export const AUDIT = {time: 1700000000000, actor: 'urn:li:corpuser:datahub'}
export const CHANGE_AUDIT = {created: AUDIT, lastModified: AUDIT}
