/**
 * Backup and restore of a store as DataHub change-event JSON (`mdcli lite export|import`).
 *
 * The file is a JSON array of MetadataChangeProposals, one per line, as DataHub's file sink
 * writes them (`{entityType, entityUrn, changeType, aspectName, aspect: {json}, systemMetadata}`),
 * so it moves to and from DataHub and between our stores. What a plain MCP cannot say rides in
 * `systemMetadata.properties` (a string map DataHub keeps as it is):
 * - history: every version of a versioned aspect is a record, oldest first and the latest last,
 *   so replaying the file in order rebuilds versions 1…n and 0;
 * - audit stamp: `mdcli.createdTime` / `mdcli.createdActor` carry each row's `created`;
 * - run ids: `runId` / `lastRunId` as stored.
 * Timeseries aspects are one record per row. Both directions stream: neither holds the store nor
 * the file in memory.
 *
 * Both work on a stopped store: opening it takes the store's lock, so a running server holding
 * it makes them refuse with E_STORE_LOCKED. Both go through the Catalog on it: an export reads
 * every row as stored (secret aspects too: it is a backup), an import writes under a grant and
 * leaves the change-log entries of its writes like any other write.
 */
import {once} from 'node:events'
import {createWriteStream} from 'node:fs'
import {rm} from 'node:fs/promises'
import {FileError, MdcliError, ParseError} from '../errors.js'
import {keyAspectName} from '../model/registry.js'
import type {StoredAspect, SystemMetadata, WriteOp} from '../store/types.js'
import type {Catalog, Grant} from './catalog.js'
import {prepareProposal, toWriteOp} from './proposal.js'
import type {ProposalInput} from '../model/wire.js'

const CREATED_TIME = 'mdcli.createdTime'
const CREATED_ACTOR = 'mdcli.createdActor'
/** Actor stamped on imported rows that carry no audit stamp of their own. */
export const IMPORT_ACTOR = 'urn:li:corpuser:__mdcli_import'

export interface ExportReport {
  file: string
  /** Every entity in the store: entitiesLive + entitiesSoftDeleted (src/model/counts.ts). */
  entities: number
  entitiesLive: number
  /** Entities whose status says removed; `lite ls` counts them apart. */
  entitiesSoftDeleted: number
  /** Records written: aspect versions plus timeseries rows. */
  records: number
}

export interface ImportReport {
  file: string
  records: number
  /** Records refused (invalid proposal), with the first few reasons. */
  failed: number
  failures: Array<{index: number; message: string}>
  entities: number
}

function recordOf(a: StoredAspect): Record<string, unknown> {
  const sm: SystemMetadata = {...a.systemMetadata, properties: {...(a.systemMetadata.properties ?? {}), [CREATED_TIME]: String(a.created.time), [CREATED_ACTOR]: a.created.actor}}
  return {entityType: a.entityType, entityUrn: a.urn, changeType: 'UPSERT', aspectName: a.aspectName, aspect: {json: a.value}, systemMetadata: sm}
}

/** Every record of one entity, in the order that rebuilds it: per aspect, oldest version first. */
async function* entityRecords(catalog: Catalog, urn: string): AsyncGenerator<Record<string, unknown>> {
  const e = await catalog.rawEntity(urn)
  if (!e) return
  // The key aspect first: it is what a later record of the entity would otherwise create.
  const key = keyAspectName(e.entityType)
  const names = Object.keys(e.aspects).sort((a, b) => (a === key ? -1 : b === key ? 1 : 0))
  for (const name of names) {
    const latest = e.aspects[name]!
    if (latest.kind === 'timeseries') {
      const rows = await catalog.listTimeseries(urn, name, {limit: Number.MAX_SAFE_INTEGER})
      for (const r of rows.reverse()) yield recordOf(r)
      continue
    }
    const versions = await catalog.rawVersions(urn, name)
    // listVersions: 0, 1, 2, … n; written as 1, 2, … n, then 0.
    for (const v of [...versions.slice(1), versions[0]!]) yield recordOf(v)
  }
}

/** Writes the whole store to `file` as a JSON array of MCPs, one per line. */
export async function exportStore(catalog: Catalog, file: string, onProgress?: (records: number) => void): Promise<ExportReport> {
  // Owner-only, as every store file: the backup holds password hashes, tokens and every old value.
  const out = createWriteStream(file, {flags: 'wx', mode: 0o600})
  const failed = new Promise<never>((_, reject) => out.once('error', (e) => reject(new FileError(`Cannot write ${file}: ${e.message}`))))
  failed.catch(() => undefined)
  const put = async (s: string): Promise<void> => {
    if (!out.write(s)) await Promise.race([once(out, 'drain'), failed])
  }
  let entities = 0
  let softDeleted = 0
  let records = 0
  // Only a file this export created is removed on failure, never one that was there.
  let opened = false
  try {
    await Promise.race([once(out, 'open'), failed])
    opened = true
    await put('[')
    const PAGE = 1000
    // One moment's store, on PostgreSQL where replicas may write while the backup reads.
    await catalog.readSnapshot(async () => {
      for (let start = 0; ; start += PAGE) {
        const page = await catalog.rawUrns({start, count: PAGE, includeSoftDeleted: true})
        for (const urn of page.urns) {
          entities++
          if (((await catalog.rawAspect(urn, 'status'))?.value as {removed?: unknown} | undefined)?.removed === true) softDeleted++
          for await (const rec of entityRecords(catalog, urn)) {
            await put(`${records === 0 ? '\n' : ',\n'}${JSON.stringify(rec)}`)
            records++
          }
        }
        onProgress?.(records)
        if (page.urns.length < PAGE) break
      }
    })
    await put('\n]\n')
    out.end()
    await Promise.race([once(out, 'finish'), failed])
  } catch (e) {
    out.destroy()
    // A half-written backup is no backup, and it would make the retry fail (the file exists).
    if (opened) await rm(file, {force: true}).catch(() => undefined)
    throw e instanceof MdcliError ? e : new FileError(`Cannot write ${file}: ${(e as Error).message}`)
  }
  return {file, entities, entitiesLive: entities - softDeleted, entitiesSoftDeleted: softDeleted, records}
}

/** One element of the file as the JSON reader yields it. */
export interface FileElement {
  index: number
  value?: unknown
  error?: string
}

/**
 * Writes every record of `elements` into the store, in order and in batches, each record checked
 * like any proposal (registry, aspect schema) and written under `grant` (a restore is the
 * system's own job: `catalog.systemGrant()`). Records that are not valid proposals are counted
 * and the first few reported; they never stop the import.
 */
export async function importRecords(catalog: Catalog, grant: Grant, file: string, elements: AsyncIterable<FileElement>, opts: {batch?: number} = {}): Promise<ImportReport> {
  const now = catalog.now
  const BATCH = opts.batch ?? 2000
  const report: ImportReport = {file, records: 0, failed: 0, failures: [], entities: 0}
  const fail = (index: number, message: string): void => {
    report.failed++
    if (report.failures.length < 10) report.failures.push({index, message})
  }
  let ops: WriteOp[] = []
  const flush = async (): Promise<void> => {
    if (ops.length === 0) return
    const results = await catalog.writeOps(grant, ops)
    for (const r of results) if (r.createdEntity) report.entities++
    ops = []
  }
  for await (const el of elements) {
    if (el.error !== undefined) {
      fail(el.index, el.error)
      continue
    }
    const p = el.value as ProposalInput
    let prepared
    try {
      prepared = prepareProposal(p, `record ${el.index}`)
    } catch (e) {
      if (e instanceof MdcliError) {
        fail(el.index, e.message)
        continue
      }
      throw e
    }
    const props: Record<string, string> = {...(prepared.systemMetadata.properties ?? {})}
    const time = Object.hasOwn(props, CREATED_TIME) ? Number(props[CREATED_TIME]) : Number.NaN
    const actor = Object.hasOwn(props, CREATED_ACTOR) ? props[CREATED_ACTOR] : undefined
    delete props[CREATED_TIME]
    delete props[CREATED_ACTOR]
    const sm: SystemMetadata = {...prepared.systemMetadata}
    if (Object.keys(props).length > 0) sm.properties = props
    else delete sm.properties
    prepared.systemMetadata = sm
    const created = {time: Number.isFinite(time) ? time : now(), actor: typeof actor === 'string' && actor.length > 0 ? actor : IMPORT_ACTOR}
    ops.push(toWriteOp(prepared, created, {}))
    report.records++
    if (ops.length >= BATCH) await flush()
  }
  await flush()
  if (report.records === 0 && report.failed > 0) throw new ParseError(`${file}: no record could be imported (${report.failures[0]!.message})`, report.failures)
  return report
}
