/**
 * `migrate dataplatform2instance`: moves every dataset of a platform under a platform instance, as
 * DataHub's `cli/migrate.py` does.
 *
 * Glossary:
 * - platform instance: one deployment of a platform (a second Kafka cluster, a regional warehouse);
 *   its urn is `urn:li:dataPlatformInstance:(urn:li:dataPlatform:<p>,<instance>)` and a dataset
 *   under it is named `<instance>.<name>`.
 * - old / new urn: a dataset's urn before and after the move.
 * - migrated: an old entity whose latest versioned aspects were copied to its new urn (timeseries
 *   aspects stay behind); the old one is then soft-deleted (default), kept (`keep`) or
 *   hard-deleted (`hard`).
 * - affected: another entity whose aspects held an old urn (lineage, dashboards, charts, jobs, …),
 *   rewritten to point at the new urn.
 * - container: a database, schema, project or BigQuery dataset of the platform (its
 *   containerProperties' customProperties hold its key). Moved too, as DataHub's migrate moves
 *   them after the datasets: its urn is the guid of its key with the instance, the urn an
 *   ingestion with `platform_instance` would give it, and what refers to it is rewritten.
 * - run id `migrate-<uuid>`: carried by every row the migration writes, so that rolling the run
 *   back undoes it like an ingestion run (DataHub gives its containers a second run id).
 */
import {randomUUID} from 'node:crypto'
import {BadRequestError} from '../errors.js'
import {containerUrn} from '../model/container-key.js'
import {FABRIC_TYPES, datasetUrn, parseUrn} from '../model/urn.js'
import type {SystemMetadata, WriteOp} from '../store/types.js'
import type {AuthzRequest} from './authorize.js'
import {type Actor, type Catalog} from './catalog.js'
import {prepareProposal, toWriteOp} from './proposal.js'

export interface MigrateRequest {
  platform: string
  instance: string
  /** Environment (fabric) of the datasets to move; default PROD. */
  env?: string
  dryRun?: boolean
  keep?: boolean
  hard?: boolean
}

export interface MigrationReport {
  runId: string
  dryRun: boolean
  platform: string
  instance: string
  env: string
  /** What happens to the old entities. */
  mode: 'soft' | 'keep' | 'hard'
  /** New urns written. */
  created: string[]
  /** Other entities whose references were rewritten. */
  affected: string[]
  /** Old urns moved (kept, soft- or hard-deleted as `mode` says). */
  migrated: string[]
  /** Datasets of the platform already under an instance, left alone. */
  skipped: string[]
  counts: {created: number; affected: number; migrated: number}
  /** The platform's containers, moved the same way (their own report block). */
  containers: {
    created: string[]
    /** Other entities whose container references were rewritten (not the moved datasets). */
    affected: string[]
    migrated: string[]
    /** Containers of the platform left alone: under an instance already, or a key migrate cannot read. */
    skipped: string[]
  }
}

/**
 * The key fields of the container subtypes DataHub's migrate rebuilds (mcp_builder's DatabaseKey,
 * SchemaKey, ProjectIdKey, BigQueryDatasetKey, by their serialized names); other subtypes are
 * skipped, as there.
 */
const CONTAINER_KEY_FIELDS: Record<string, string[]> = {
  Database: ['database'],
  Schema: ['database', 'schema'],
  Project: ['project_id'],
  Dataset: ['project_id', 'dataset_id'],
}

/** Characters a urn key part can hold without escaping. */
const NAME_RE = /^[A-Za-z0-9_.-]+$/
/** Datasets copied per store write. */
const CHUNK = 100
const PAGE = 1000

const DATASET_PREFIX = 'urn:li:dataset:('

/**
 * Replaces every dataset urn of `map` found in `s` (whole or embedded, e.g. inside a schemaField
 * urn); cost is one scan of `s` whatever the size of the map.
 */
export function replaceDatasetUrns(s: string, map: ReadonlyMap<string, string>): string {
  let i = s.indexOf(DATASET_PREFIX)
  if (i < 0) return s
  let out = ''
  let from = 0
  while (i >= 0) {
    let depth = 0
    let end = -1
    for (let j = i + DATASET_PREFIX.length - 1; j < s.length; j++) {
      const c = s.charCodeAt(j)
      if (c === 40) depth++
      else if (c === 41 && --depth === 0) {
        end = j + 1
        break
      }
    }
    if (end < 0) break
    const replacement = map.get(s.slice(i, end))
    if (replacement !== undefined) {
      out += s.slice(from, i) + replacement
      from = end
    }
    i = s.indexOf(DATASET_PREFIX, end)
  }
  return out + s.slice(from)
}

/**
 * A copy of a JSON value with mapped dataset urns replaced in every string and key (whole or
 * embedded), and mapped container urns where a whole string is one (`container`, browse paths).
 */
export function rewriteUrns(v: unknown, map: ReadonlyMap<string, string>, containers: ReadonlyMap<string, string> = NO_CONTAINERS): unknown {
  const str = (s: string): string => containers.get(s) ?? replaceDatasetUrns(s, map)
  if (typeof v === 'string') return str(v)
  if (Array.isArray(v)) return v.map((x) => rewriteUrns(x, map, containers))
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[str(k)] = rewriteUrns(x, map, containers)
    return out
  }
  return v
}

const NO_CONTAINERS: ReadonlyMap<string, string> = new Map()

/** Every container urn (soft-deleted ones aside), a page at a time. */
async function walkContainers(catalog: Catalog, onPage: (urns: string[]) => Promise<void>): Promise<void> {
  let after: string | null = null
  for (;;) {
    const res = await catalog.search({types: ['container'], query: '*', count: PAGE, after})
    await onPage(res.hits.map((h) => h.urn))
    if (!res.next) return
    after = res.next
  }
}

interface ContainerPlan {
  /** Old container urn → new. */
  mapping: Map<string, string>
  /** New container urn → the customProperties its key gives it. */
  properties: Map<string, Record<string, string>>
  skipped: string[]
}

/**
 * The platform's containers in `env` and the urns they move to. A container belongs to them when
 * its customProperties name the platform and the env (`env`, or `instance` where older sources
 * wrote the env there, as DataHub's migrate matches); one under an instance already, or whose
 * subtype or key fields migrate cannot read, is skipped.
 */
async function planContainers(catalog: Catalog, platformName: string, env: string, instance: string): Promise<ContainerPlan> {
  const plan: ContainerPlan = {mapping: new Map(), properties: new Map(), skipped: []}
  await walkContainers(catalog, async (urns) => {
    for (const urn of urns) {
      const e = await catalog.rawEntity(urn, ['containerProperties', 'subTypes', 'dataPlatformInstance'])
      const props = (e?.aspects.containerProperties?.value as {customProperties?: Record<string, unknown>} | undefined)?.customProperties
      if (!props || props.platform !== platformName) continue
      const legacyEnv = props.instance === env && props.env === undefined
      if (!legacyEnv && (props.instance !== undefined || props.env !== env)) {
        // Under an instance already (reported), or of another env (not ours).
        if (props.env === env) plan.skipped.push(urn)
        continue
      }
      if (typeof (e!.aspects.dataPlatformInstance?.value as {instance?: unknown} | undefined)?.instance === 'string') {
        plan.skipped.push(urn)
        continue
      }
      const subType = (e!.aspects.subTypes?.value as {typeNames?: unknown[]} | undefined)?.typeNames?.[0]
      const fields = typeof subType === 'string' ? CONTAINER_KEY_FIELDS[subType] : undefined
      if (!fields || fields.some((f) => typeof props[f] !== 'string')) {
        plan.skipped.push(urn)
        continue
      }
      const key: Record<string, string> = {platform: platformName, instance}
      if (typeof props.env === 'string') key.env = props.env
      for (const f of fields) key[f] = props[f] as string
      const newUrn = containerUrn({...key, platform: platformName})
      if (newUrn === urn) continue
      plan.mapping.set(urn, newUrn)
      plan.properties.set(newUrn, key)
    }
  })
  return plan
}

function validate(req: MigrateRequest): {platformName: string; env: string} {
  if (req.keep && req.hard) throw new BadRequestError('--keep and --hard cannot be used together: --keep preserves the old entities, --hard deletes them. Nothing was changed.')
  if (typeof req.platform !== 'string' || req.platform.trim() === '') throw new BadRequestError('A platform is required (--platform). Nothing was changed.')
  if (typeof req.instance !== 'string' || req.instance.trim() === '') throw new BadRequestError('An instance is required (--instance). Nothing was changed.')
  const platformName = req.platform.startsWith('urn:li:dataPlatform:') ? req.platform.slice('urn:li:dataPlatform:'.length) : req.platform
  if (!NAME_RE.test(platformName)) {
    throw new BadRequestError(`Platform name '${req.platform}' cannot be part of a urn: use letters, digits, '_', '.' or '-' only. Nothing was changed.`)
  }
  if (!NAME_RE.test(req.instance)) {
    throw new BadRequestError(
      `Instance name '${req.instance}' cannot be part of a urn: use letters, digits, '_', '.' or '-' only (no commas, parentheses or whitespace). Nothing was changed.`,
    )
  }
  const env = (req.env ?? 'PROD').toUpperCase()
  if (!(FABRIC_TYPES as readonly string[]).includes(env)) throw new BadRequestError(`Unknown environment '${req.env}' (one of ${FABRIC_TYPES.join(', ')}). Nothing was changed.`)
  return {platformName, env}
}

async function walkDatasets(catalog: Catalog, platformUrn: string, env: string | undefined, onPage: (urns: string[]) => Promise<void> | void): Promise<number> {
  let after: string | null = null
  let total = 0
  for (;;) {
    const filters = [{field: 'platform' as const, values: [platformUrn]}, ...(env ? [{field: 'origin' as const, values: [env]}] : [])]
    const res = await catalog.search({types: ['dataset'], query: '*', filters: [filters], count: PAGE, after})
    total = res.total
    await onPage(res.hits.map((h) => h.urn))
    if (!res.next) return total
    after = res.next
  }
}

/**
 * The new urns of `moves` (old → new) that exist already, after refusing the moves that would
 * merge two entities into one: two old urns moving to one new urn, or a move onto an entity that
 * exists and is not under `instanceUrn` (another dataset, which the copy would overwrite). An
 * entity already under the instance (an earlier migration with --keep, or an ingestion with
 * platform_instance) is the move's own target and is written again.
 */
async function existingTargets(catalog: Catalog, moves: Array<[string, string]>, instanceUrn: string): Promise<Set<string>> {
  const from = new Map<string, string>()
  for (const [o, n] of moves) {
    const other = from.get(n)
    if (other !== undefined) throw new BadRequestError(`${other} and ${o} would both move to ${n}, one overwriting the other. Nothing was changed.`)
    from.set(n, o)
  }
  const existing = new Set<string>()
  for (const [o, n] of moves) {
    if (!(await catalog.exists(n, {includeSoftDeleted: true}))) continue
    existing.add(n)
    if (o === n) continue
    const instance = ((await catalog.rawAspect(n, 'dataPlatformInstance'))?.value as {instance?: unknown} | undefined)?.instance
    if (instance !== instanceUrn) {
      throw new BadRequestError(`${o} would move to ${n}, which exists already and is not under ${instanceUrn}: the move would overwrite it. Nothing was changed.`)
    }
  }
  return existing
}

const yieldToServer = (): Promise<void> => new Promise((r) => setImmediate(r))

/**
 * Plans and (unless `dryRun`) performs the migration. Validation and the access check come
 * before any write; every write carries one `migrate-<uuid>` run id.
 */
export async function migrateDataPlatformToInstance(catalog: Catalog, actor: Actor, req: MigrateRequest): Promise<MigrationReport> {
  const {platformName, env} = validate(req)
  const platformUrn = `urn:li:dataPlatform:${platformName}`
  const instanceUrn = `urn:li:dataPlatformInstance:(${platformUrn},${req.instance})`
  const mode: MigrationReport['mode'] = req.keep ? 'keep' : req.hard ? 'hard' : 'soft'

  const mapping = new Map<string, string>()
  const skipped: string[] = []
  const found = await walkDatasets(catalog, platformUrn, env, async (urns) => {
    for (const u of urns) {
      const dpi = await catalog.rawAspect(u, 'dataPlatformInstance')
      if (typeof (dpi?.value as {instance?: unknown} | undefined)?.instance === 'string') {
        skipped.push(u)
        continue
      }
      const name = parseUrn(u).parts[1]!
      // A name that already carries the instance prefix is migrated in place, never prefixed twice.
      const newName = name.startsWith(`${req.instance}.`) ? name : `${req.instance}.${name}`
      mapping.set(u, datasetUrn(platformUrn, newName, env))
    }
  })
  if (found === 0 && !(await catalog.exists(platformUrn))) {
    const anyEnv = await catalog.search({types: ['dataset'], query: '*', filters: [[{field: 'platform', values: [platformUrn]}]], count: 0, includeSoftDeleted: true})
    if (anyEnv.total === 0) {
      throw new BadRequestError(`Unknown platform '${platformName}': there are no datasets of it and no data platform entity ${platformUrn}. Nothing was changed.`)
    }
  }

  const containers = await planContainers(catalog, platformName, env, req.instance)
  // Which new urns hold an entity already: writing to one is editing it, not creating it.
  const existing = await existingTargets(catalog, [...mapping, ...containers.mapping], instanceUrn)

  // References are found up front: the access check must cover every entity before any write.
  const olds = new Set([...mapping.keys(), ...containers.mapping.keys()])
  const moved = [...mapping].filter(([o, n]) => o !== n)
  const refsByEntity = new Map<string, Set<string>>()
  const containerAffected = new Set<string>()
  const datasetAffected = new Set<string>()
  const refs = await catalog.referencesTo([...moved.map(([old]) => old), ...containers.mapping.keys()])
  for (const r of refs) {
    if (olds.has(r.urn)) continue
    ;(containers.mapping.has(r.target) ? containerAffected : datasetAffected).add(r.urn)
    let aspects = refsByEntity.get(r.urn)
    if (!aspects) refsByEntity.set(r.urn, (aspects = new Set()))
    aspects.add(r.aspectName)
  }

  const report: MigrationReport = {
    runId: `migrate-${randomUUID()}`,
    dryRun: req.dryRun === true,
    platform: platformName,
    instance: req.instance,
    env,
    mode,
    created: moved.map(([, n]) => n),
    affected: [...datasetAffected],
    migrated: [...mapping.keys()],
    skipped,
    counts: {created: moved.length, affected: datasetAffected.size, migrated: mapping.size},
    containers: {created: [...containers.mapping.values()], affected: [...containerAffected], migrated: [...containers.mapping.keys()], skipped: containers.skipped},
  }

  const goneOlds = [...moved.map(([o]) => o), ...containers.mapping.keys()]
  const requests: AuthzRequest[] = [
    ...[...mapping.values(), ...containers.mapping.values()].map((u) => ({resourceUrn: u, privileges: existing.has(u) ? [['EDIT_ENTITY']] : [['EDIT_ENTITY'], ['CREATE_ENTITY']]})),
    ...[...refsByEntity.keys()].map((u) => ({resourceUrn: u, privileges: [['EDIT_ENTITY']]})),
    ...(mode === 'keep' ? [] : goneOlds.map((o) => ({resourceUrn: o, privileges: [['DELETE_ENTITY']]}))),
  ]
  // A non-empty mapping always asks for something, so every write below has its grant.
  const grant = requests.length > 0 ? await catalog.authorize(actor, requests) : undefined
  if (report.dryRun || (mapping.size === 0 && containers.mapping.size === 0) || !grant) return report

  // One instant for every row: the migration reads as a single change in each entity's history.
  const created = {time: catalog.now(), actor: actor.urn}
  const sm: SystemMetadata = {runId: report.runId, lastObserved: created.time}
  const upsert = (urn: string, aspectName: string, value: unknown): WriteOp =>
    toWriteOp(prepareProposal({entityUrn: urn, aspectName, changeType: 'UPSERT', aspect: {json: value}}), created, sm)

  // 1. New entities: every versioned aspect's latest value, self-references rewritten, plus the instance.
  const entries = [...mapping]
  for (let i = 0; i < entries.length; i += CHUNK) {
    const ops: WriteOp[] = []
    for (const [oldUrn, newUrn] of entries.slice(i, i + CHUNK)) {
      if (oldUrn !== newUrn) {
        const entity = await catalog.rawEntity(oldUrn)
        for (const a of Object.values(entity?.aspects ?? {})) {
          if (a.kind !== 'versioned' || a.aspectName === 'datasetKey' || a.aspectName === 'dataPlatformInstance') continue
          ops.push(upsert(newUrn, a.aspectName, rewriteUrns(a.value, mapping, containers.mapping)))
        }
      }
      ops.push(upsert(newUrn, 'dataPlatformInstance', {platform: platformUrn, instance: instanceUrn}))
    }
    await catalog.writeOps(grant, ops)
    await yieldToServer()
  }

  // 1b. New containers: the same, with the customProperties of their new key.
  const containerEntries = [...containers.mapping]
  for (let i = 0; i < containerEntries.length; i += CHUNK) {
    const ops: WriteOp[] = []
    for (const [oldUrn, newUrn] of containerEntries.slice(i, i + CHUNK)) {
      const entity = await catalog.rawEntity(oldUrn)
      for (const a of Object.values(entity?.aspects ?? {})) {
        if (a.kind !== 'versioned' || a.aspectName === 'containerKey' || a.aspectName === 'dataPlatformInstance') continue
        let value = rewriteUrns(a.value, mapping, containers.mapping) as Record<string, unknown>
        if (a.aspectName === 'containerProperties') value = {...value, customProperties: containers.properties.get(newUrn)}
        ops.push(upsert(newUrn, a.aspectName, value))
      }
      ops.push(upsert(newUrn, 'dataPlatformInstance', {platform: platformUrn, instance: instanceUrn}))
    }
    await catalog.writeOps(grant, ops)
    await yieldToServer()
  }

  // 2. Other entities' references, each aspect rewritten once for every old urn it holds.
  const referrers = [...refsByEntity]
  for (let i = 0; i < referrers.length; i += CHUNK) {
    const ops: WriteOp[] = []
    for (const [urn, aspects] of referrers.slice(i, i + CHUNK)) {
      for (const aspectName of aspects) {
        const current = await catalog.rawAspect(urn, aspectName)
        if (current) ops.push(upsert(urn, aspectName, rewriteUrns(current.value, mapping, containers.mapping)))
      }
    }
    await catalog.writeOps(grant, ops)
    await yieldToServer()
  }

  // 3. The old entities (datasets, then containers).
  if (mode !== 'keep') {
    for (let i = 0; i < goneOlds.length; i += CHUNK * 10) {
      const ops = goneOlds.slice(i, i + CHUNK * 10).map((o): WriteOp => (mode === 'hard' ? {op: 'deleteEntity', urn: o} : upsert(o, 'status', {removed: true})))
      await catalog.writeOps(grant, ops)
      await yieldToServer()
    }
  }
  return report
}
