/**
 * The timeline: a dataset's versioned aspect history turned into change events, as DataHub's
 * Timeline API does (docs/dev-guides/timeline.md, metadata-io `timeline/**`).
 *
 * Glossary:
 * - change category: a kind of change a reader cares about (TAG, OWNER, TECHNICAL_SCHEMA, …);
 *   each is computed from a fixed set of aspects (`CATEGORY_ASPECTS`).
 * - change event: one semantic change — an operation (ADD, REMOVE, MODIFY) of a category on an
 *   entity or a schema field, with a modifier (the tag, term, owner or field it concerns), a
 *   description and a semantic-version level (`semVerChange`).
 * - change transaction: every event whose aspect version was written at the same millisecond,
 *   with the actor of that write. Versions are diffed pairwise in time order: each version in the
 *   window against the one just before it (looking back past the window's start once), the very
 *   first version of an aspect against nothing, so its content reads as ADDs.
 * - computed semantic version: walking the transactions in time order, the first one is `0.0.0`
 *   and each later one bumps major, minor or patch by the largest `semVerChange` it holds.
 * - version stamp: `aspect:version;…` (sorted by aspect name) of the aspect versions current at
 *   a transaction's time, over the aspects the request's categories read.
 * - raw diff: an RFC 6902 JSON patch between consecutive versions. One transaction may hold the
 *   changes of several aspects, so paths start with the aspect name (`/globalTags/tags/1`): the
 *   patch applies to a document `{<aspectName>: <value>}`.
 */
import {BadRequestError} from '../errors.js'
import {parseUrn} from '../model/urn.js'
import {CATEGORY_ASPECTS, CHANGE_CATEGORIES, diffAspect, jsonPatch, type ChangeEvent, type ChangeTransaction, type JsonPatchOp, type ChangeCategory, type SemVerChange} from '../model/change-events.js'
import type {MetadataStore, StoredAspect} from '../store/types.js'

const SEMVER_ORDER: Record<SemVerChange, number> = {NONE: 0, PATCH: 1, MINOR: 2, MAJOR: 3, EXCEPTIONAL: 4}

export interface TimelineRequest {
  urn: string
  /** Empty or absent: every category. */
  categories?: ChangeCategory[]
  /** Epoch ms; default `endTime` − 7 days. */
  startTime?: number
  /** Epoch ms; default now. */
  endTime?: number
  raw?: boolean
}

export const DEFAULT_LOOKBACK_MS = 7 * 24 * 60 * 60 * 1000

/** Order in which a transaction lists the events of different aspects. */
const ASPECT_ORDER = ['schemaMetadata', 'editableSchemaMetadata', 'globalTags', 'glossaryTerms', 'ownership', 'datasetProperties', 'editableDatasetProperties', 'institutionalMemory', 'domains', 'deprecation']

// ------------------------------------------------------------------ the timeline

/** Computes the change transactions of a dataset within a time window. */
export async function getTimeline(store: Pick<MetadataStore, 'listVersions'>, req: TimelineRequest, now: () => number = Date.now): Promise<ChangeTransaction[]> {
  const urn = parseUrn(req.urn)
  if (urn.entityType !== 'dataset') {
    throw new BadRequestError(`The timeline covers datasets only; ${req.urn} is a ${urn.entityType}`)
  }
  const endTime = req.endTime === undefined || req.endTime <= 0 ? now() : req.endTime
  const startTime = req.startTime === undefined || req.startTime < 0 ? endTime - DEFAULT_LOOKBACK_MS : req.startTime
  if (startTime > endTime) throw new BadRequestError(`startTime ${startTime} is after endTime ${endTime}`)
  const categories = req.categories && req.categories.length > 0 ? CHANGE_CATEGORIES.filter((c) => req.categories!.includes(c)) : [...CHANGE_CATEGORIES]
  const aspects = ASPECT_ORDER.filter((a) => categories.some((c) => CATEGORY_ASPECTS[c].includes(a)))

  const history = new Map<string, StoredAspect[]>()
  interface Piece {
    timestamp: number
    actor: string
    order: number
    events: ChangeEvent[]
    semVerChange: SemVerChange
    raw: JsonPatchOp[]
  }
  const pieces: Piece[] = []
  for (const [order, aspectName] of aspects.entries()) {
    const versions = chronological(await store.listVersions(req.urn, aspectName))
    history.set(aspectName, versions)
    versions.forEach((cur, i) => {
      const t = cur.created.time
      if (t < startTime || t > endTime) return
      const prev = i > 0 ? versions[i - 1]!.value : undefined
      const stamp = {time: t, actor: cur.created.actor}
      let events: ChangeEvent[] = []
      let level: SemVerChange
      try {
        for (const c of categories) if (CATEGORY_ASPECTS[c].includes(aspectName)) events.push(...diffAspect(aspectName, c, prev, cur.value, req.urn, stamp))
        level = maxLevel(events.map((e) => e.semVerChange))
      } catch (e) {
        // A malformed stored value must not hide the rest of the history.
        events = [{entityUrn: req.urn, category: categories[0]!, operation: 'MODIFY', auditStamp: stamp, semVerChange: 'EXCEPTIONAL', description: `${(e as Error).name}:${(e as Error).message}`}]
        level = 'EXCEPTIONAL'
      }
      if (events.length === 0) return
      const raw = req.raw ? jsonPatch(prev === undefined ? {} : {[aspectName]: prev}, {[aspectName]: cur.value}) : []
      pieces.push({timestamp: t, actor: cur.created.actor, order, events, semVerChange: level, raw})
    })
  }

  const byTime = new Map<number, Piece[]>()
  for (const p of pieces) {
    const list = byTime.get(p.timestamp)
    if (list) list.push(p)
    else byTime.set(p.timestamp, [p])
  }
  const out: ChangeTransaction[] = []
  let version: [number, number, number] | undefined
  for (const t of [...byTime.keys()].sort((a, b) => a - b)) {
    const group = byTime.get(t)!.sort((a, b) => a.order - b.order)
    const level = maxLevel(group.map((p) => p.semVerChange))
    version = nextVersion(version, level)
    const tx: ChangeTransaction = {
      timestamp: t,
      actor: group[0]!.actor,
      semVer: `${version.join('.')}-computed`,
      semVerChange: level,
      changeEvents: group.flatMap((p) => p.events),
      versionStamp: versionStamp(history, t),
    }
    if (req.raw) tx.rawDiff = group.flatMap((p) => p.raw)
    out.push(tx)
  }
  return out
}

/** listVersions gives 0 (latest), 1 (oldest), 2, …; oldest first is 1…n then 0. */
function chronological(versions: StoredAspect[]): StoredAspect[] {
  if (versions.length <= 1) return versions
  return [...versions.slice(1), versions[0]!]
}

function maxLevel(levels: SemVerChange[]): SemVerChange {
  let best: SemVerChange = 'NONE'
  for (const l of levels) if (SEMVER_ORDER[l] > SEMVER_ORDER[best]) best = l
  return best
}

function nextVersion(prev: [number, number, number] | undefined, level: SemVerChange): [number, number, number] {
  if (!prev) return [0, 0, 0]
  const [major, minor, patch] = prev
  if (level === 'MAJOR') return [major + 1, 0, 0]
  if (level === 'MINOR') return [major, minor + 1, 0]
  if (level === 'PATCH') return [major, minor, patch + 1]
  return prev
}

function versionStamp(history: Map<string, StoredAspect[]>, t: number): string {
  const parts: string[] = []
  for (const name of [...history.keys()].sort()) {
    let current: StoredAspect | undefined
    for (const v of history.get(name)!) if (v.created.time <= t) current = v
    if (current) parts.push(`${name}:${current.version}`)
  }
  return parts.join(';')
}
