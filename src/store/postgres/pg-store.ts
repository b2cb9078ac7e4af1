/**
 * A MetadataStore on PostgreSQL (`pg`, one bounded Pool). Versioned aspects live in DataHub's
 * `metadata_aspect_v2` (version 0 = latest; value text kept exactly as received); the rest in
 * tables of our own (see schema.ts).
 *
 * Concurrency: every write batch is one transaction that first takes a transaction-scoped
 * advisory lock per urn it touches (in sorted order, so two batches never deadlock). Writers of
 * the same entity are thus serialised whichever process they run in, and no update is lost.
 *
 * Search is not the store's: a write's sidecar (`write(ops, sidecar)`) runs inside the batch's
 * transaction, after its ops, with a view of the rows as the transaction sees them
 * (`latestTexts`) and the connection as an opaque handle; the catalog feeds the search index
 * (search-index.ts, `mdcli_search_doc`) through it, so a committed write is searchable on every
 * replica at once and a rolled-back one never was.
 *
 * Replicas: every write batch NOTIFYs the urns it touched on `mdcli_write` (delivered at
 * COMMIT). Each process LISTENs on one connection of its own (application_name
 * `mdcli-listener:<pid>`) and tells the catalog, whose caches (tokens, policies, group members)
 * drop what changed. A listener whose connection drops reconnects for as long as the store is
 * open, LISTEN_RETRY_MIN_MS doubling to LISTEN_RETRY_MAX_MS between attempts; since what was
 * committed meanwhile was never announced, caches drop everything (`onResync`) when it drops
 * and again once it listens. Read-modify-write edits take
 * session advisory locks (two-int key space, distinct from the writers' bigint one) on a
 * separate small pool, so edits of one entity on two replicas run one after the other.
 */
import pg from 'pg'
import {arrayLiteral, boolArray} from './literal.js'
import type {
  EntityRecord,
  EntityRules,
  EntityTexts,
  ReferenceQuery,
  ListUrnsRequest,
  MetadataStore,
  RunRow,
  RunSummary,
  StoredAspect,
  StoreStats,
  StoreCapabilities,
  StoreCheck,
  SystemMetadata,
  WriteOp,
  WriteResult,
  WriteSidecar,
} from '../types.js'
import {existsFor} from '../core/read.js'
import {decideUpsert, noChange, removalResult, sameValue, writesKeyRow} from '../core/write.js'
import {holdsSchema, migrate} from './schema.js'
import {hasNul} from './nul.js'
import {maskUrl} from './url.js'
import {FileError, StoreUnavailableError} from '../../errors.js'
import {urnsIn} from '../reference-index.js'
import {guardPool, isConnectionFailure} from './unavailable.js'

export {maskUrl} from './url.js'

export interface PgStoreOptions {
  url: string
  rules: EntityRules
  /** Pool size; small by default, since one server rarely needs more. */
  poolMax?: number
  /** Where the store says what went wrong in the background (the server's log). */
  warn?: (msg: string) => void
  /**
   * Refuse a database without mdcli's schema instead of creating it there (a command that only
   * reads a store, or recovers its token: a mistyped database name must not become a new store).
   */
  mustExist?: boolean
}

const TS_EXPR = `(round(extract(epoch from createdon) * 1000))::bigint`

/** A row of GET_ENTITIES_SQL: the entity, and one aspect of it (none when it has no aspect left). */
interface EntityReadRow {
  urn: string
  entity_type: string
  kind: 't' | 'v' | null
  aspect: string | null
  version: string | null
  metadata: string
  systemmetadata: string | null
  created_ms: string
  createdon: string
  createdby: string
}

/**
 * A versioned row whose value is parsed on first read: the change log reads the previous values
 * of a batch's entities as text, and a GraphQL query reads only the aspects it selects.
 */
class RowAspect implements StoredAspect {
  readonly kind = 'versioned' as const
  private parsed?: unknown
  constructor(
    readonly urn: string,
    readonly entityType: string,
    readonly aspectName: string,
    readonly version: number,
    readonly valueText: string,
    readonly created: {time: number; actor: string},
    readonly systemMetadata: SystemMetadata,
  ) {}

  get value(): unknown {
    if (this.parsed === undefined) this.parsed = JSON.parse(this.valueText)
    return this.parsed
  }

  toJSON(): Record<string, unknown> {
    return {urn: this.urn, entityType: this.entityType, aspectName: this.aspectName, kind: this.kind, version: this.version, value: this.value, created: this.created, systemMetadata: this.systemMetadata}
  }
}

/** getEntities calls of one turn that ask for the same aspects. */
interface ReadBatch {
  names: string[] | null
  urns: Set<string>
  waiters: Array<{urns: string[]; resolve: (m: Map<string, EntityRecord>) => void; reject: (e: unknown) => void}>
}

/** $1 urns, $2 aspect names or NULL for all. Timeseries rows first, so versioned ones overwrite. */
const GET_ENTITIES_SQL = `
SELECT e.urn, e.entity_type, x.kind, x.aspect, x.version, x.metadata, x.systemmetadata, x.created_ms, x.created_ms AS createdon, x.createdby
FROM mdcli_entity e
LEFT JOIN LATERAL (
  (SELECT DISTINCT ON (t.aspect) 't' AS kind, t.aspect, 0::bigint AS version, t.metadata, t.systemmetadata, t.createdon AS created_ms, t.createdby
     FROM mdcli_timeseries t WHERE t.urn = e.urn AND ($2::text[] IS NULL OR t.aspect = ANY($2))
     ORDER BY t.aspect, t.ts DESC, t.createdon DESC)
  UNION ALL
  SELECT 'v', m.aspect, m.version, m.metadata, m.systemmetadata, ${TS_EXPR.replace('createdon', 'm.createdon')}, m.createdby
    FROM metadata_aspect_v2 m WHERE m.urn = e.urn AND m.version = 0 AND ($2::text[] IS NULL OR m.aspect = ANY($2))
) x ON true
WHERE e.urn = ANY($1::text[])
ORDER BY e.urn, x.kind`
/** A batch's rows mostly share one time: the last one converted is kept. */
let lastStampMs = NaN
let lastStamp = ''
function toTimestamp(ms: number): string {
  if (ms !== lastStampMs) {
    lastStamp = new Date(ms).toISOString().replace('T', ' ').replace('Z', '')
    lastStampMs = ms
  }
  return lastStamp
}

interface AspectRow {
  urn: string
  aspect: string
  version: string
  metadata: string
  systemmetadata: string | null
  created_ms: string
  createdby: string
}
interface TsRow {
  urn: string
  aspect: string
  ts: string
  metadata: string
  systemmetadata: string | null
  createdon: string
  createdby: string
}

const CHANNEL = 'mdcli_write'
/** First wait before the listener reconnects; it doubles with each failed attempt up to the max. */
export const LISTEN_RETRY_MIN_MS = 250
export const LISTEN_RETRY_MAX_MS = 5_000
/** How long a request waits for a pooled connection before it answers E_STORE_UNAVAILABLE. */
const CONNECT_TIMEOUT_MS = 10_000

/**
 * One write batch's view of the rows it touches, and the rows it has yet to write. New entities,
 * new latest values, their references, unchanged values' system metadata and status flags are
 * written in a few bulk statements rather than one statement each.
 */
interface Batch {
  known: Map<string, boolean>
  /**
   * Entities this batch creates that had no row of any kind before it and that no op of the batch
   * deletes or reverts: their latest rows are exactly what the batch wrote (`current`), so the
   * sidecar's `latestTexts` answers them without reading back. Their ids come from the insert.
   */
  fresh: Set<string>
  /** A fresh entity's id and type, and the latest text of each aspect the batch wrote of it. */
  created: Map<string, {id: number; type: string; texts: Map<string, string>}>
  /** Latest row per urn + aspect the batch upserts; null when there is none. */
  current: Map<string, {metadata: string; systemmetadata: string | null} | null>
  entities: Array<[string, string]>
  versions: Array<{urn: string; aspect: string; text: string; sm: string; created: string; by: string}>
  /** Targets per urn + aspect, written in the next flush. */
  refs: Map<string, {urn: string; aspect: string; targets: Set<string>}>
  observed: Map<string, [string, string, string]>
  removed: Map<string, boolean>
}

const pairKey = (urn: string, aspect: string) => `${urn}\u0000${aspect}`

/** A key holding a NUL names nothing stored, and PostgreSQL refuses it as a parameter. */
const storable = (s: string) => !hasNul(s)

/** The urns an aspect's value mentions, as its reference targets (not itself; none over the urn column's 500 characters or holding a NUL, which PostgreSQL's text cannot). */
function referenceTargets(urn: string, text: string): Set<string> {
  const out = urnsIn(text)
  out.delete(urn)
  for (const t of out) if (t.length > 500 || hasNul(t)) out.delete(t)
  return out
}
/** Class id of the edit locks' two-int advisory key space. */
const EDIT_LOCK_CLASS = 7_342_002
const NOTIFY_CHUNK = 7000

export class PgStore implements MetadataStore {
  private pool: pg.Pool | null = null
  private lockPool: pg.Pool | null = null
  /** One connection (max 1) for /health's probe, so a busy pool does not read as a dead database. */
  private probePool: pg.Pool | null = null
  private listener: pg.Client | null = null
  private readonly instance = `${process.pid}-${Math.random().toString(36).slice(2, 10)}`
  private readonly external: Array<(urns: string[]) => void> = []
  private readonly resync: Array<() => void> = []
  private closing = false
  /** Why the listener is not listening, and since when; undefined while it listens. */
  private listenDown?: {since: number; reason: string}
  private listenAttempts = 0
  private listenTimer?: NodeJS.Timeout

  constructor(private readonly opts: PgStoreOptions) {}

  readonly capabilities: StoreCapabilities = {transactions: true, reindex: (onProgress) => this.reindex(onProgress), snapshot: (fn) => this.snapshot(fn)}
  /** While `snapshot` runs: its transaction's connection, which every read goes through. */
  private snapshotDb: pg.Pool | null = null

  /** Each batch is a transaction on a connection of its own: as many as the pool holds. */
  get writeConcurrency(): number {
    return this.opts.poolMax ?? 8
  }

  private get db(): pg.Pool {
    if (!this.pool) throw new Error('store is not open')
    return this.snapshotDb ?? this.pool
  }

  /**
   * A backup read while replicas write: paging through the entities by offset, a delete moved
   * later pages back and entities that never went were left out. In one REPEATABLE READ
   * transaction every page, aspect and version is read as of its first statement.
   */
  private async snapshot<T>(fn: () => Promise<T>): Promise<T> {
    if (this.snapshotDb) return fn()
    const client = await this.db.connect()
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY')
      this.snapshotDb = {
        query: (...args: Parameters<pg.PoolClient['query']>) => (client.query as (...a: unknown[]) => unknown)(...args),
        connect: () => Promise.reject(new Error('a store snapshot only reads')),
      } as unknown as pg.Pool
      const out = await fn()
      await client.query('COMMIT')
      return out
    } catch (e) {
      await client.query('ROLLBACK').catch(() => undefined)
      throw e
    } finally {
      this.snapshotDb = null
      client.release()
    }
  }

  /** Pool settings shared by the store's pools: a name in pg_stat_activity, and no wait without end. */
  private poolConfig(max: number, name: string): pg.PoolConfig {
    return {connectionString: this.opts.url, max, application_name: name, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, keepAlive: true}
  }

  async open(): Promise<void> {
    const pool = new pg.Pool(this.poolConfig(this.opts.poolMax ?? 8, 'mdcli'))
    // An idle client's error (server restart) must not crash the process; the next query reconnects.
    pool.on('error', () => undefined)
    let c: pg.PoolClient
    try {
      c = await pool.connect()
    } catch (err) {
      await pool.end().catch(() => undefined)
      // Typed, so every command and the server say it as the store being out of reach (retry once it is back).
      throw new StoreUnavailableError(`Cannot connect to the store ${maskUrl(this.opts.url)}: ${(err as Error).message}`)
    }
    if (this.opts.mustExist && !(await holdsSchema(c))) {
      c.release()
      await pool.end().catch(() => undefined)
      throw new FileError(`No mdcli store in database ${maskUrl(this.opts.url)}: it has no mdcli schema (table mdcli_schema_version); check the URL, or start \`mdcli lite --store <url>\` once to create a store there`)
    }
    try {
      const {latest, database} = await migrate(c)
      // Servers of two versions share a database while replicas are upgraded one by one; the
      // older one is told, not stopped, so the replicas not yet upgraded keep answering.
      if (database > latest) {
        this.opts.warn?.(`The database ${maskUrl(this.opts.url)} is at schema version ${database}, newer than this mdcli's ${latest} (a newer mdcli migrated it): running as the older version, as during an upgrade; upgrade this mdcli`)
      }
    } finally {
      c.release()
    }
    // Connection failures of every statement from here on are E_STORE_UNAVAILABLE (see unavailable.ts).
    this.pool = guardPool(pool)
    const lockPool = new pg.Pool(this.poolConfig(4, 'mdcli-locks'))
    lockPool.on('error', () => undefined)
    this.lockPool = guardPool(lockPool)
    // Kept open (no idle timeout) and opened now: a probe on a loaded machine must not wait for a
    // new backend to start, or /health would fail while the database is fine.
    const probePool = new pg.Pool({...this.poolConfig(1, 'mdcli-health'), idleTimeoutMillis: 0})
    probePool.on('error', () => undefined)
    this.probePool = probePool
    await probePool.query('SELECT 1').catch(() => undefined)
    this.closing = false
    this.listenDown = undefined
    this.listenAttempts = 0
    await this.listen()
  }

  /**
   * Opens the listener's connection and LISTENs. Exactly one listener connection exists at a
   * time: a lost one reports itself once (its `error` and `end` events both come), and the next
   * attempt is scheduled only if none is.
   */
  private async listen(): Promise<void> {
    const client = new pg.Client({connectionString: this.opts.url, application_name: `mdcli-listener:${process.pid}`, keepAlive: true})
    /** Set once LISTEN succeeded: from then on a lost connection is reported by `lost`. */
    let live = false
    let gone = false
    const lost = (reason: string) => {
      if (gone) return
      gone = true
      client.end().catch(() => undefined)
      if (!live) return
      if (this.listener === client) this.listener = null
      this.listenerLost(reason)
    }
    client.on('error', (e) => lost(e.message))
    client.on('end', () => lost('the connection ended'))
    client.on('notification', (n) => {
      if (n.channel !== CHANNEL || !n.payload) return
      let msg: {s: string; u: string[]}
      try {
        msg = JSON.parse(n.payload)
      } catch {
        return
      }
      if (msg.s === this.instance) return
      for (const l of this.external) l(msg.u)
    })
    try {
      await client.connect()
      await client.query(`LISTEN ${CHANNEL}`)
    } catch (e) {
      gone = true
      client.end().catch(() => undefined)
      throw e
    }
    if (gone) throw new Error('the connection ended while it started listening')
    if (this.closing) {
      gone = true
      await client.end().catch(() => undefined)
      return
    }
    live = true
    this.listener = client
  }

  private listenerLost(reason: string): void {
    if (this.closing) return
    this.listenDown ??= {since: Date.now(), reason}
    this.opts.warn?.(`Not listening for other replicas' writes (${reason}); reconnecting`)
    // Writes committed from now until the listener is back are never announced.
    this.fireResync()
    this.scheduleListen()
  }

  private scheduleListen(): void {
    if (this.closing || this.listenTimer) return
    const delay = Math.min(LISTEN_RETRY_MAX_MS, LISTEN_RETRY_MIN_MS * 2 ** Math.min(this.listenAttempts, 16))
    this.listenAttempts++
    this.listenTimer = setTimeout(() => {
      this.listenTimer = undefined
      if (this.closing) return
      this.listen().then(
        () => {
          if (this.closing) return
          const was = this.listenDown
          this.listenDown = undefined
          this.listenAttempts = 0
          if (was) this.opts.warn?.(`Listening for other replicas' writes again (after ${((Date.now() - was.since) / 1000).toFixed(1)} s)`)
          // What other replicas committed while nobody listened is read afresh.
          this.fireResync()
        },
        (e: unknown) => {
          if (this.listenDown) this.listenDown.reason = (e as Error)?.message ?? String(e)
          this.scheduleListen()
        },
      )
    }, delay)
    this.listenTimer.unref()
  }

  private fireResync(): void {
    for (const l of this.resync) l()
  }

  onExternalWrite(listen: (urns: string[]) => void): void {
    this.external.push(listen)
  }

  onResync(listen: () => void): void {
    this.resync.push(listen)
  }

  /** `store`: the database answers a statement; `listener`: other replicas' writes are heard. */
  healthChecks(): StoreCheck[] {
    return [
      {
        name: 'store',
        check: async () => {
          const probe = this.probePool
          if (!probe) return {ok: false, reason: 'the store is closed'}
          try {
            await probe.query('SELECT 1')
            return {ok: true}
          } catch (e) {
            const code = (e as {code?: unknown}).code
            const what = isConnectionFailure(e) ? 'cannot reach the PostgreSQL database' : 'the PostgreSQL database failed a probe'
            return {ok: false, reason: `${what} (${typeof code === 'string' ? `${code}: ` : ''}${(e as Error).message})`}
          }
        },
      },
      {
        name: 'listener',
        check: async () => {
          const down = this.listenDown
          if (!down && this.listener) return {ok: true}
          if (!down) return {ok: false, reason: 'not listening'}
          return {ok: false, reason: `not hearing other replicas' writes since ${new Date(down.since).toISOString()} (${down.reason}); reconnecting, attempt ${this.listenAttempts}`}
        },
      },
    ]
  }

  async withEntityLocks<T>(urns: string[], fn: () => Promise<T>): Promise<T> {
    if (!this.lockPool) throw new Error('store is not open')
    const keys = [...new Set(urns)].sort()
    const c = await this.lockPool.connect()
    let ok = false
    try {
      await c.query('SELECT count(pg_advisory_lock($1, hashtext(k))) FROM unnest($2::text[]) AS k', [EDIT_LOCK_CLASS, keys])
      const out = await fn()
      ok = true
      return out
    } finally {
      try {
        await c.query('SELECT pg_advisory_unlock_all()')
        c.release()
      } catch (err) {
        // A client whose unlock failed may still hold locks: destroy it rather than reuse it.
        c.release(err as Error)
        if (ok) throw err
      }
    }
  }

  async close(): Promise<void> {
    this.closing = true
    clearTimeout(this.listenTimer)
    this.listenTimer = undefined
    const p = this.pool
    const l = this.lockPool
    const n = this.listener
    const h = this.probePool
    this.pool = this.lockPool = this.listener = this.probePool = null
    await n?.end().catch(() => undefined)
    await h?.end().catch(() => undefined)
    await l?.end()
    if (p) await p.end()
  }

  // ---------------------------------------------------------------- writes

  async write(ops: WriteOp[], sidecar?: WriteSidecar): Promise<WriteResult[]> {
    const c = await this.db.connect()
    const results: WriteResult[] = []
    try {
      const urns = [...new Set(ops.map((o) => o.urn))].sort()
      // unnest keeps the sorted order, so batches never wait on each other in a cycle. BEGIN goes
      // in the same round trip (a simple query of two statements, the urns as a literal) unless
      // an urn holds a NUL, which a query text cannot carry (PostgreSQL then refuses the parameter).
      if (urns.some(hasNul)) {
        await c.query('BEGIN')
        await c.query('SELECT count(pg_advisory_xact_lock(hashtext(k))) FROM unnest($1::text[]) AS k', [urns])
      } else {
        await c.query(`BEGIN; SELECT count(pg_advisory_xact_lock(hashtext(k))) FROM unnest(${pg.escapeLiteral(arrayLiteral(urns))}::text[]) AS k`)
      }
      const b = await this.prefetch(c, ops, urns)
      for (let i = 0; i < ops.length; ) {
        const op = ops[i]!
        if (op.op === 'deleteEntity') {
          // A run of entity deletes (a bulk delete, a rollback) goes in five statements, not five per entity.
          let j = i
          while (j < ops.length && ops[j]!.op === 'deleteEntity') j++
          const gone = ops.slice(i, j).map((o) => o.urn)
          for (const u of gone) b.fresh.delete(u)
          results.push(...(await this.deleteEntities(c, gone, b)))
          i = j
          continue
        }
        results.push(await this.apply(c, op, b))
        if (op.op === 'upsert' || op.op === 'timeseries') b.known.set(op.urn, true)
        else {
          b.fresh.delete(op.urn)
          await this.reread(c, b, op.urn)
        }
        i++
      }
      await this.flush(c, b)
      if (sidecar) await sidecar({handle: c, latestTexts: (u, names) => this.txTexts(c, b, u, names)}, results)
      // Delivered to the other replicas at COMMIT, never for a rolled-back batch; a payload holds
      // under 8,000 bytes, so the urns go in chunks, all sent in one statement.
      const payloads: string[] = []
      let chunk: string[] = []
      let size = 0
      for (const u of urns) {
        if (size + u.length > NOTIFY_CHUNK && chunk.length > 0) {
          payloads.push(JSON.stringify({s: this.instance, u: chunk}))
          chunk = []
          size = 0
        }
        chunk.push(u)
        size += u.length + 3
      }
      if (chunk.length > 0) payloads.push(JSON.stringify({s: this.instance, u: chunk}))
      // With COMMIT in one round trip; a failed NOTIFY skips the COMMIT (the rest of a simple
      // query is not run after an error) and the batch rolls back below. Payloads are JSON of
      // urns without a NUL (checked above, or the batch failed already).
      if (payloads.length > 0) await c.query(`${payloads.map((x) => `SELECT pg_notify('${CHANNEL}', ${pg.escapeLiteral(x)});`).join(' ')} COMMIT`)
      else await c.query('COMMIT')
    } catch (err) {
      await c.query('ROLLBACK').catch(() => undefined)
      throw err
    } finally {
      c.release()
    }
    return results
  }

  /**
   * What a batch needs to know before it writes, in one round trip: which of its entities exist,
   * the latest row of every aspect it upserts of those that do (with each new entity's key
   * aspect), and which of the others have rows all the same (DataHub's, not indexed yet), whose
   * rows are then read in a second. A new entity without any row is `fresh` (see `Batch`).
   */
  private async prefetch(c: pg.PoolClient, ops: WriteOp[], urns: string[]): Promise<Batch> {
    const b: Batch = {known: new Map(), fresh: new Set(), created: new Map(), current: new Map(), entities: [], versions: [], refs: new Map(), observed: new Map(), removed: new Map()}
    for (const u of urns) b.known.set(u, false)
    // Every key aspect is read along, since which entities exist is learnt in the same round trip;
    // those of existing entities are then left out.
    const upserted = new Map<string, [string, string]>()
    const keys = new Map<string, [string, string]>()
    for (const op of ops) {
      if (op.op !== 'upsert' && op.op !== 'timeseries') continue
      if (op.op === 'upsert') upserted.set(pairKey(op.urn, op.aspectName), [op.urn, op.aspectName])
      if (op.keyAspect) keys.set(pairKey(op.urn, op.keyAspect.name), [op.urn, op.keyAspect.name])
    }
    const list = [...upserted.values(), ...keys.values()]
    const names = [...new Set(list.map((x) => x[1]))]
    // Aspect rows are looked up (a descent of the primary key per urn and name) only for the
    // entities found, and for an entity not found, whether it has any row at all (one descent):
    // an ingest of new entities asked for every pair, 3 µs of PostgreSQL's CPU per aspect. The
    // pairs themselves are picked out here. (A join with the unnested pairs was planned as a
    // scan: 23 ms a batch of 1,000 aspects.) Kinds: 'e' an entity, 'a' an aspect, 'o' rows of an
    // entity not found.
    const {rows} = await c.query<{kind: 'e' | 'a' | 'o'; urn: string; aspect: string | null; metadata: string | null; systemmetadata: string | null}>(
      `WITH e AS MATERIALIZED (SELECT urn FROM mdcli_entity WHERE urn = ANY($1::text[]))
       SELECT 'e' AS kind, urn, NULL::text AS aspect, NULL::text AS metadata, NULL::text AS systemmetadata FROM e
       UNION ALL
       SELECT 'a', urn, aspect, metadata, systemmetadata FROM metadata_aspect_v2
        WHERE urn = ANY(ARRAY(SELECT urn FROM e)) AND aspect = ANY($2::text[]) AND version = 0
       UNION ALL
       SELECT 'o', u, NULL, NULL, NULL FROM unnest($1::text[]) AS x(u)
        WHERE NOT EXISTS (SELECT 1 FROM e WHERE e.urn = x.u) AND EXISTS (SELECT 1 FROM metadata_aspect_v2 m WHERE m.urn = x.u)`,
      [urns, names],
    )
    const orphans: string[] = []
    for (const r of rows) {
      if (r.kind === 'e') b.known.set(r.urn, true)
      else if (r.kind === 'o') orphans.push(r.urn)
    }
    const found = rows.filter((r) => r.kind === 'a')
    if (orphans.length > 0 && names.length > 0) {
      const more = await c.query<{urn: string; aspect: string; metadata: string; systemmetadata: string | null}>(
        'SELECT urn, aspect, metadata, systemmetadata FROM metadata_aspect_v2 WHERE urn = ANY($1::text[]) AND aspect = ANY($2::text[]) AND version = 0',
        [orphans, names],
      )
      for (const r of more.rows) found.push({kind: 'a', ...r})
    }
    const orphan = new Set(orphans)
    for (const u of urns) if (!b.known.get(u) && !orphan.has(u)) b.fresh.add(u)
    const pairs = new Map(upserted)
    for (const [k, x] of keys) if (!b.known.get(x[0])) pairs.set(k, x)
    for (const k of pairs.keys()) b.current.set(k, null)
    for (const r of found) {
      const k = pairKey(r.urn, r.aspect!)
      if (pairs.has(k)) b.current.set(k, {metadata: r.metadata!, systemmetadata: r.systemmetadata})
    }
    return b
  }

  /** After a delete or a revert: what now exists of the entity, as later ops of the batch must see it. */
  private async reread(c: pg.PoolClient, b: Batch, urn: string): Promise<void> {
    b.known.set(urn, (await c.query('SELECT 1 FROM mdcli_entity WHERE urn = $1', [urn])).rowCount! > 0)
    const prefix = pairKey(urn, '')
    for (const k of b.current.keys()) if (k.startsWith(prefix)) b.current.set(k, null)
    const rows = await c.query<{aspect: string; metadata: string; systemmetadata: string | null}>('SELECT aspect, metadata, systemmetadata FROM metadata_aspect_v2 WHERE urn = $1 AND version = 0', [urn])
    for (const r of rows.rows) b.current.set(pairKey(urn, r.aspect), {metadata: r.metadata, systemmetadata: r.systemmetadata})
  }

  /** Writes what the batch has buffered, in bulk statements; runs before any statement that reads or changes those rows. */
  private async flush(c: pg.PoolClient, b: Batch): Promise<void> {
    // New entities, new latest rows and their references go in one statement (three INSERTs in
    // data-modifying WITH clauses, on three tables, none reading another's rows): one round trip.
    const parts: string[] = []
    const values: unknown[] = []
    // Columns go as literals built here (see `arrayLiteral`), each a single parameter.
    const param = (v: unknown, cast: string) => {
      values.push(cast === 'text[]' ? arrayLiteral(v as string[]) : cast === 'bool[]' ? boolArray(v as boolean[]) : v)
      return `$${values.length}::${cast}`
    }
    if (b.entities.length > 0) {
      // A new entity's status is known by now: inserted with it, not updated after.
      const removed = b.entities.map(([u]) => {
        const r = b.removed.get(u)
        b.removed.delete(u)
        return r ?? false
      })
      parts.push(
        `INSERT INTO mdcli_entity (urn, entity_type, removed) SELECT * FROM unnest(${param(
          b.entities.map((e) => e[0]),
          'text[]',
        )}, ${param(
          b.entities.map((e) => e[1]),
          'text[]',
        )}, ${param(removed, 'bool[]')}) RETURNING urn, id`,
      )
      for (const [u, t] of b.entities) {
        if (!b.fresh.has(u)) continue
        const e = b.created.get(u)
        if (e) e.type = t
        else b.created.set(u, {id: 0, type: t, texts: new Map()})
      }
    }
    if (b.versions.length > 0) {
      const v = b.versions
      parts.push(
        `INSERT INTO metadata_aspect_v2 (urn, aspect, version, metadata, systemmetadata, createdon, createdby)
         SELECT u, a, 0, m.m, s, t::timestamp, by FROM unnest(${param(
           v.map((r) => r.urn),
           'text[]',
         )}, ${param(
           v.map((r) => r.aspect),
           'text[]',
         )}, ${param(
           v.map((r) => r.sm),
           'text[]',
         )}, ${param(
           v.map((r) => r.created),
           'text[]',
         )}, ${param(
           v.map((r) => r.by),
           'text[]',
         )}) WITH ORDINALITY AS x(u, a, s, t, by, i)
         JOIN json_array_elements_text(${param(JSON.stringify(v.map((r) => r.text)), 'json')}) WITH ORDINALITY AS m(m, i) USING (i)`,
      )
      b.versions = []
    }
    if (b.refs.size > 0) {
      // A row per target on the wire, grouped back into a row per aspect.
      const u: string[] = []
      const a: string[] = []
      const t: string[] = []
      for (const r of b.refs.values()) {
        for (const x of r.targets) {
          u.push(r.urn)
          a.push(r.aspect)
          t.push(x)
        }
      }
      parts.push(
        `INSERT INTO mdcli_reference (urn, aspect, targets)
         SELECT u, a, array_agg(t) FROM unnest(${param(u, 'text[]')}, ${param(a, 'text[]')}, ${param(t, 'text[]')}) AS x(u, a, t) GROUP BY u, a
         ON CONFLICT (urn, aspect) DO UPDATE SET targets = ARRAY(SELECT DISTINCT x FROM unnest(mdcli_reference.targets || EXCLUDED.targets) AS x)`,
      )
      b.refs.clear()
    }
    // New entities' ids come back (the first part, its RETURNING), for the batch's fresh entities.
    const withIds = b.entities.length > 0
    b.entities = []
    if (withIds) {
      const {rows} = await c.query<{urn: string; id: string}>(
        parts.length === 1 ? parts[0]! : `WITH ${parts.map((x, i) => `w${i} AS (${x})`).join(', ')} SELECT urn, id FROM w0`,
        values,
      )
      for (const r of rows) {
        const e = b.created.get(r.urn)
        if (e) e.id = Number(r.id)
      }
    } else if (parts.length === 1) await c.query(parts[0]!, values)
    else if (parts.length > 1) await c.query(`WITH ${parts.slice(0, -1).map((x, i) => `w${i} AS (${x})`).join(', ')} ${parts[parts.length - 1]}`, values)
    if (b.observed.size > 0) {
      const o = [...b.observed.values()]
      await c.query(
        `UPDATE metadata_aspect_v2 m SET systemmetadata = x.s FROM unnest($1::text[], $2::text[], $3::text[]) AS x(u, a, s)
         WHERE m.urn = x.u AND m.aspect = x.a AND m.version = 0`,
        [o.map((r) => r[0]), o.map((r) => r[1]), o.map((r) => r[2])],
      )
      b.observed.clear()
    }
    if (b.removed.size > 0) {
      await c.query('UPDATE mdcli_entity e SET removed = x.r FROM unnest($1::text[], $2::bool[]) AS x(u, r) WHERE e.urn = x.u', [[...b.removed.keys()], [...b.removed.values()]])
      b.removed.clear()
    }
  }

  private async apply(c: pg.PoolClient, op: WriteOp, b: Batch): Promise<WriteResult> {
    const none = noChange(op)
    const exists = b.known.get(op.urn) === true
    // Everything but a new or unchanged latest value reads or changes rows one by one: the buffer goes first.
    if (op.op !== 'upsert') await this.flush(c, b)
    switch (op.op) {
      case 'upsert':
      case 'timeseries': {
        let createdEntity = false
        if (!exists) {
          b.entities.push([op.urn, op.entityType])
          createdEntity = true
          // A key row already in DataHub's table (not indexed yet) stays as it is.
          if (op.keyAspect && writesKeyRow(op, b.current.get(pairKey(op.urn, op.keyAspect.name)) != null)) {
            this.bufferVersion(b, op.urn, op.keyAspect.name, op.keyAspect.value, op.systemMetadata, op.created)
            this.bufferRefs(b, op.urn, op.keyAspect.name, op.keyAspect.value)
          }
        }
        let changed = true
        if (op.op === 'upsert') {
          // Known even for an entity new to us: DataHub's table may hold rows not indexed yet (before a reindex).
          const k = pairKey(op.urn, op.aspectName)
          const cur = b.current.get(k) ?? null
          const sm = JSON.stringify(op.systemMetadata)
          const d = decideUpsert(
            cur === null ? undefined : cur.metadata === op.value,
            () => JSON.parse(cur!.systemmetadata ?? '{}') as SystemMetadata,
            op.systemMetadata,
            () => sameValue(cur!.metadata, op.value),
          )
          if (d.value === 'insert') {
            this.bufferVersion(b, op.urn, op.aspectName, op.value, op.systemMetadata, op.created, sm)
            this.bufferRefs(b, op.urn, op.aspectName, op.value)
          } else if (d.value === 'unchanged') {
            const next = JSON.stringify(d.observed)
            b.observed.set(k, [op.urn, op.aspectName, next])
            b.current.set(k, {metadata: cur!.metadata, systemmetadata: next})
            changed = false
          } else {
            await this.flush(c, b)
            // The latest becomes the newest of the old (max + 1), then version 0 takes the new value.
            await c.query(
              `INSERT INTO metadata_aspect_v2 (urn, aspect, version, metadata, systemmetadata, createdon, createdby, createdfor)
               SELECT urn, aspect, (SELECT max(version) + 1 FROM metadata_aspect_v2 WHERE urn = $1 AND aspect = $2), metadata, systemmetadata, createdon, createdby, createdfor
               FROM metadata_aspect_v2 WHERE urn = $1 AND aspect = $2 AND version = 0`,
              [op.urn, op.aspectName],
            )
            await c.query('UPDATE metadata_aspect_v2 SET metadata = $3, systemmetadata = $4, createdon = $5, createdby = $6 WHERE urn = $1 AND aspect = $2 AND version = 0', [
              op.urn,
              op.aspectName,
              op.value,
              sm,
              toTimestamp(op.created.time),
              op.created.actor,
            ])
            b.current.set(k, {metadata: op.value, systemmetadata: sm})
            b.created.get(op.urn)?.texts.set(op.aspectName, op.value)
            await c.query('DELETE FROM mdcli_reference WHERE urn = $1 AND aspect = $2', [op.urn, op.aspectName])
            this.bufferRefs(b, op.urn, op.aspectName, op.value)
          }
          if (changed) {
            if (op.aspectName === this.opts.rules.softDeleteAspect) b.removed.set(op.urn, this.opts.rules.isRemoved(op.value))
          }
        } else {
          await c.query(
            `INSERT INTO mdcli_timeseries (urn, aspect, ts, metadata, systemmetadata, createdon, createdby, run_id) VALUES ($1,$2,$3,$4,$5,$6,$7,$8)
             ON CONFLICT (urn, aspect, ts) DO UPDATE SET metadata = EXCLUDED.metadata, systemmetadata = EXCLUDED.systemmetadata, createdon = EXCLUDED.createdon, createdby = EXCLUDED.createdby, run_id = EXCLUDED.run_id`,
            [op.urn, op.aspectName, op.timestampMillis, op.value, JSON.stringify(op.systemMetadata), op.created.time, op.created.actor, op.systemMetadata.runId ?? null],
          )
        }
        return this.result({urn: op.urn, aspectName: op.aspectName, changed, createdEntity, rowsRemoved: 0})
      }
      case 'deleteEntity': {
        if (!exists) return this.result(none)
        const a = await c.query('DELETE FROM metadata_aspect_v2 WHERE urn = $1', [op.urn])
        const t = await c.query('DELETE FROM mdcli_timeseries WHERE urn = $1', [op.urn])
        await this.forget(c, op.urn)
        return this.result(removalResult(op, a.rowCount! + t.rowCount!))
      }
      case 'deleteAspect': {
        if (!exists) return this.result(none)
        const a = await c.query('DELETE FROM metadata_aspect_v2 WHERE urn = $1 AND aspect = $2', [op.urn, op.aspectName])
        const t = await c.query('DELETE FROM mdcli_timeseries WHERE urn = $1 AND aspect = $2', [op.urn, op.aspectName])
        await c.query('DELETE FROM mdcli_reference WHERE urn = $1 AND aspect = $2', [op.urn, op.aspectName])
        const n = a.rowCount! + t.rowCount!
        await this.afterRemoval(c, op.urn, op.aspectName)
        return this.result(removalResult(op, n))
      }
      case 'revert': {
        if (!exists) return this.result(none)
        // One statement: a write that replaced version 0 meanwhile is seen, and then nothing goes.
        const d =
          op.runId === undefined
            ? await c.query('DELETE FROM metadata_aspect_v2 WHERE urn = $1 AND aspect = $2 AND version = 0', [op.urn, op.aspectName])
            : await c.query(`DELETE FROM metadata_aspect_v2 WHERE urn = $1 AND aspect = $2 AND version = 0 AND systemmetadata::jsonb->>'runId' = $3`, [op.urn, op.aspectName, op.runId])
        if (d.rowCount === 0) return this.result(none)
        const m = await c.query<{v: string | null}>('SELECT max(version) AS v FROM metadata_aspect_v2 WHERE urn = $1 AND aspect = $2', [op.urn, op.aspectName])
        const v = m.rows[0]?.v
        if (v !== null && v !== undefined) {
          await c.query('UPDATE metadata_aspect_v2 SET version = 0 WHERE urn = $1 AND aspect = $2 AND version = $3', [op.urn, op.aspectName, v])
          const r = await c.query<{metadata: string}>('SELECT metadata FROM metadata_aspect_v2 WHERE urn = $1 AND aspect = $2 AND version = 0', [op.urn, op.aspectName])
          await this.setRefs(c, op.urn, op.aspectName, r.rows[0]!.metadata)
        } else {
          await c.query('DELETE FROM mdcli_reference WHERE urn = $1 AND aspect = $2', [op.urn, op.aspectName])
        }
        await this.afterRemoval(c, op.urn, op.aspectName)
        return this.result(removalResult(op, 1))
      }
      case 'deleteTimeseriesOfRun':
      case 'deleteTimeseriesRange': {
        if (!exists) return this.result(none)
        const d =
          op.op === 'deleteTimeseriesOfRun'
            ? await c.query('DELETE FROM mdcli_timeseries WHERE urn = $1 AND aspect = $2 AND run_id = $3', [op.urn, op.aspectName, op.runId])
            : await c.query('DELETE FROM mdcli_timeseries WHERE urn = $1 AND aspect = $2 AND ts BETWEEN $3 AND $4', [op.urn, op.aspectName, op.startTime, op.endTime])
        await this.afterRemoval(c, op.urn, op.aspectName)
        return this.result(removalResult(op, d.rowCount!))
      }
    }
  }

  /** Hard deletes of whole entities, in order; an urn named twice is gone by its second delete. */
  private async deleteEntities(c: pg.PoolClient, urns: string[], b: Batch): Promise<WriteResult[]> {
    await this.flush(c, b)
    const gone = new Set(urns.filter((u) => b.known.get(u) === true))
    const rows = new Map<string, number>()
    if (gone.size > 0) {
      const list = [...gone]
      const counted = await c.query<{urn: string; n: string}>(
        `WITH a AS (DELETE FROM metadata_aspect_v2 WHERE urn = ANY($1) RETURNING urn),
              t AS (DELETE FROM mdcli_timeseries WHERE urn = ANY($1) RETURNING urn)
         SELECT urn, count(*) AS n FROM (SELECT urn FROM a UNION ALL SELECT urn FROM t) x GROUP BY urn`,
        [list],
      )
      for (const r of counted.rows) rows.set(r.urn, Number(r.n))
      await c.query('DELETE FROM mdcli_reference WHERE urn = ANY($1)', [list])
      await c.query('DELETE FROM mdcli_entity WHERE urn = ANY($1)', [list])
      for (const k of b.current.keys()) if (gone.has(k.slice(0, k.indexOf('\u0000')))) b.current.set(k, null)
      for (const u of list) b.known.set(u, false)
    }
    return urns.map((urn) => {
      const first = gone.delete(urn)
      const op: WriteOp = {op: 'deleteEntity', urn}
      return first ? removalResult(op, rows.get(urn) ?? 0) : noChange(op)
    })
  }

  private result(r: WriteResult): WriteResult {
    return r
  }

  private async setRefs(c: pg.PoolClient, urn: string, aspect: string, text: string): Promise<void> {
    await c.query('DELETE FROM mdcli_reference WHERE urn = $1 AND aspect = $2', [urn, aspect])
    const targets = referenceTargets(urn, text)
    if (targets.size > 0) await c.query('INSERT INTO mdcli_reference (urn, aspect, targets) VALUES ($1, $2, $3)', [urn, aspect, [...targets]])
  }

  private async setRemoved(c: pg.PoolClient, urn: string): Promise<void> {
    const r = await c.query<{metadata: string}>('SELECT metadata FROM metadata_aspect_v2 WHERE urn = $1 AND aspect = $2 AND version = 0', [urn, this.opts.rules.softDeleteAspect])
    await c.query('UPDATE mdcli_entity SET removed = $2 WHERE urn = $1', [urn, this.opts.rules.isRemoved(r.rows[0]?.metadata)])
  }

  private async afterRemoval(c: pg.PoolClient, urn: string, aspect: string): Promise<void> {
    const left = await c.query('SELECT 1 FROM metadata_aspect_v2 WHERE urn = $1 UNION ALL SELECT 1 FROM mdcli_timeseries WHERE urn = $1 LIMIT 1', [urn])
    if (left.rowCount === 0) return this.forget(c, urn)
    if (aspect === this.opts.rules.softDeleteAspect) await this.setRemoved(c, urn)
  }

  private async forget(c: pg.PoolClient, urn: string): Promise<void> {
    await c.query('DELETE FROM mdcli_reference WHERE urn = $1', [urn])
    await c.query('DELETE FROM mdcli_entity WHERE urn = $1', [urn])
  }

  /**
   * `latestTexts` inside a write's transaction (for its sidecar): the values the batch knows
   * (`b.current`: what it prefetched and wrote, kept in step with every op) are not read back;
   * only the names of the entities' aspects are, and the values of those the batch did not touch.
   */
  private async txTexts(c: pg.PoolClient, b: Batch, urns: string[], aspectNames: readonly string[]): Promise<Map<string, EntityTexts>> {
    const out = new Map<string, EntityTexts>()
    // An entity the batch made from nothing holds just what the batch wrote (see `Batch.fresh`).
    let rest = urns
    let asked: Set<string> | undefined
    if (b.fresh.size > 0) {
      rest = []
      for (const u of urns) {
        const e = b.fresh.has(u) ? b.created.get(u) : undefined
        if (e === undefined || e.id === 0) {
          rest.push(u)
          continue
        }
        asked ??= new Set(aspectNames)
        const values: Record<string, string> = {}
        for (const [n, text] of e.texts) if (asked.has(n)) values[n] = text
        out.set(u, {id: e.id, entityType: e.type, values})
      }
    }
    urns = rest
    if (urns.length === 0) return out
    // One round trip: the entities, and the names of their latest aspects of those asked (two
    // index scans; a join of the two tables was planned as a hash join over all rows).
    const {rows} = await c.query<{id: string | null; urn: string; entity_type: string | null; aspect: string | null}>(
      `SELECT id, urn, entity_type, NULL::text AS aspect FROM mdcli_entity WHERE urn = ANY($1::text[])
       UNION ALL
       SELECT NULL, urn, NULL, aspect FROM metadata_aspect_v2 WHERE urn = ANY($1::text[]) AND aspect = ANY($2::text[]) AND version = 0`,
      [urns, aspectNames],
    )
    for (const r of rows) if (r.aspect === null) out.set(r.urn, {id: Number(r.id), entityType: r.entity_type!, values: {}})
    const missing: Array<{urn: string; aspect: string}> = []
    for (const r of rows) {
      const e = r.aspect === null ? undefined : out.get(r.urn)
      if (!e) continue
      const text = b.current.get(pairKey(r.urn, r.aspect!))?.metadata
      if (text === undefined) missing.push({urn: r.urn, aspect: r.aspect!})
      else e.values[r.aspect!] = text
    }
    if (missing.length > 0) {
      const want = new Set(missing.map((r) => pairKey(r.urn, r.aspect)))
      const rows = await c.query<{urn: string; aspect: string; metadata: string}>(
        'SELECT urn, aspect, metadata FROM metadata_aspect_v2 WHERE urn = ANY($1::text[]) AND aspect = ANY($2::text[]) AND version = 0',
        [[...new Set(missing.map((r) => r.urn))], [...new Set(missing.map((r) => r.aspect))]],
      )
      for (const r of rows.rows) if (want.has(pairKey(r.urn, r.aspect))) out.get(r.urn)!.values[r.aspect] = r.metadata
    }
    return out
  }

  async latestTexts(urns: string[], aspectNames: readonly string[]): Promise<Map<string, EntityTexts>> {
    const out = new Map<string, EntityTexts>()
    if (!urns.every(storable)) urns = urns.filter(storable)
    if (urns.length === 0) return out
    const {rows} = await this.db.query<{id: string; urn: string; entity_type: string; aspect: string | null; metadata: string | null}>(
      `SELECT e.id, e.urn, e.entity_type, m.aspect, m.metadata FROM mdcli_entity e
       LEFT JOIN metadata_aspect_v2 m ON m.urn = e.urn AND m.version = 0 AND m.aspect = ANY($2::text[])
       WHERE e.urn = ANY($1::text[])`,
      [urns, aspectNames.filter(storable)],
    )
    for (const r of rows) {
      let e = out.get(r.urn)
      if (!e) out.set(r.urn, (e = {id: Number(r.id), entityType: r.entity_type, values: {}}))
      if (r.aspect !== null && r.metadata !== null) e.values[r.aspect] = r.metadata
    }
    return out
  }

  private bufferVersion(b: Batch, urn: string, aspect: string, text: string, sm: SystemMetadata, created: {time: number; actor: string}, smText = JSON.stringify(sm)): void {
    b.versions.push({urn, aspect, text, sm: smText, created: toTimestamp(created.time), by: created.actor})
    b.current.set(pairKey(urn, aspect), {metadata: text, systemmetadata: smText})
    if (b.fresh.has(urn)) {
      const e = b.created.get(urn)
      if (e) e.texts.set(aspect, text)
      else b.created.set(urn, {id: 0, type: '', texts: new Map([[aspect, text]])})
    }
  }

  private bufferRefs(b: Batch, urn: string, aspect: string, text: string): void {
    const targets = referenceTargets(urn, text)
    if (targets.size === 0) return
    const k = pairKey(urn, aspect)
    const had = b.refs.get(k)
    if (had) for (const t of targets) had.targets.add(t)
    else b.refs.set(k, {urn, aspect, targets})
  }

  /**
   * DataHub's "restore indices": rebuilds entities and references from the
   * rows of `metadata_aspect_v2` (and our timeseries table), page by page of urns, each page one
   * transaction under the writers' per-urn locks. Timeseries rows are not in DataHub's table
   * (DataHub keeps them in Elasticsearch), so there is nothing to rebuild them from.
   */
  async reindex(onProgress?: (done: number) => void, pageSize = 500): Promise<{entities: number; removed: number}> {
    const gone = await this.db.query(
      `DELETE FROM mdcli_entity e WHERE NOT EXISTS (SELECT 1 FROM metadata_aspect_v2 a WHERE a.urn = e.urn) AND NOT EXISTS (SELECT 1 FROM mdcli_timeseries t WHERE t.urn = e.urn)`,
    )
    await this.db.query('DELETE FROM mdcli_reference r WHERE NOT EXISTS (SELECT 1 FROM mdcli_entity e WHERE e.urn = r.urn)')
    let after = ''
    let done = 0
    for (;;) {
      const {rows} = await this.db.query<{urn: string}>(
        `SELECT urn FROM (SELECT DISTINCT urn FROM metadata_aspect_v2 WHERE urn > $1 ORDER BY urn LIMIT $2) a
         UNION SELECT urn FROM (SELECT DISTINCT urn FROM mdcli_timeseries WHERE urn > $1 ORDER BY urn LIMIT $2) t ORDER BY urn LIMIT $2`,
        [after, pageSize],
      )
      if (rows.length === 0) break
      await this.indexUrns(rows.map((r) => r.urn))
      done += rows.length
      onProgress?.(done)
      after = rows[rows.length - 1]!.urn
    }
    return {entities: done, removed: gone.rowCount ?? 0}
  }

  /** Rebuilds the entity row and references of each urn, in one transaction. */
  private async indexUrns(urns: string[]): Promise<void> {
    const c = await this.db.connect()
    try {
      await c.query('BEGIN')
      for (const urn of urns) {
        await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [urn])
        const type = urn.split(':')[2] ?? 'unknown'
        await c.query('INSERT INTO mdcli_entity (urn, entity_type) VALUES ($1, $2) ON CONFLICT (urn) DO NOTHING', [urn, type])
        await c.query('DELETE FROM mdcli_reference WHERE urn = $1', [urn])
        const latest = await c.query<{aspect: string; metadata: string}>('SELECT aspect, metadata FROM metadata_aspect_v2 WHERE urn = $1 AND version = 0', [urn])
        for (const r of latest.rows) await this.setRefs(c, urn, r.aspect, r.metadata)
        await this.setRemoved(c, urn)
      }
      await c.query('COMMIT')
    } catch (err) {
      await c.query('ROLLBACK').catch(() => undefined)
      throw err
    } finally {
      c.release()
    }
  }

  async indexExisting(urns: string[]): Promise<void> {
    const {rows} = await this.db.query<{urn: string}>(
      'SELECT DISTINCT a.urn FROM metadata_aspect_v2 a WHERE a.urn = ANY($1::text[]) AND NOT EXISTS (SELECT 1 FROM mdcli_entity e WHERE e.urn = a.urn)',
      [urns],
    )
    if (rows.length > 0) await this.indexUrns(rows.map((r) => r.urn))
  }

  // ---------------------------------------------------------------- reads

  private versioned(r: AspectRow, type: string): StoredAspect {
    return new RowAspect(r.urn, type, r.aspect, Number(r.version), r.metadata, {time: Number(r.created_ms), actor: r.createdby}, JSON.parse(r.systemmetadata ?? '{}') as SystemMetadata)
  }

  private series(r: TsRow, type: string): StoredAspect {
    return {
      urn: r.urn,
      entityType: type,
      aspectName: r.aspect,
      kind: 'timeseries',
      version: 0,
      value: JSON.parse(r.metadata),
      created: {time: Number(r.createdon), actor: r.createdby},
      systemMetadata: JSON.parse(r.systemmetadata ?? '{}'),
    }
  }

  private async types(urns: string[]): Promise<Map<string, string>> {
    if (!urns.every(storable)) urns = urns.filter(storable)
    const {rows} = await this.db.query<{urn: string; entity_type: string}>('SELECT urn, entity_type FROM mdcli_entity WHERE urn = ANY($1)', [urns])
    return new Map(rows.map((r) => [r.urn, r.entity_type]))
  }

  async getAspect(urn: string, aspectName: string, version = 0): Promise<StoredAspect | null> {
    if (!storable(aspectName)) return null
    if (version === 0) return (await this.getEntities([urn], [aspectName])).get(urn)?.aspects[aspectName] ?? null
    const type = (await this.types([urn])).get(urn)
    if (!type) return null
    const v = await this.db.query<AspectRow>(`SELECT urn, aspect, version, metadata, systemmetadata, ${TS_EXPR} AS created_ms, createdby FROM metadata_aspect_v2 WHERE urn = $1 AND aspect = $2 AND version = $3`, [urn, aspectName, version])
    if (v.rowCount! > 0) return this.versioned(v.rows[0]!, type)
    if (version !== 0) return null
    const t = await this.db.query<TsRow>('SELECT * FROM mdcli_timeseries WHERE urn = $1 AND aspect = $2 ORDER BY ts DESC, createdon DESC LIMIT 1', [urn, aspectName])
    return t.rowCount! > 0 ? this.series(t.rows[0]!, type) : null
  }

  async getEntity(urn: string, aspectNames?: string[]): Promise<EntityRecord | null> {
    return (await this.getEntities([urn], aspectNames)).get(urn) ?? null
  }

  async getEntities(urns: string[], aspectNames?: string[]): Promise<Map<string, EntityRecord>> {
    if (!urns.every(storable)) urns = urns.filter(storable)
    if (aspectNames && !aspectNames.every(storable)) aspectNames = aspectNames.filter(storable)
    if (urns.length === 0) return new Map()
    const names = aspectNames && aspectNames.length > 0 ? aspectNames : null
    // Reads that arrive in the same turn of the event loop (concurrent requests) share one
    // statement: at 32 requests in flight, a round trip each queued on the pool and woke
    // PostgreSQL 32 times for what one statement answers.
    const key = names === null ? '' : names.join('\u0000')
    let batch = this.pendingReads.get(key)
    if (!batch) {
      batch = {names, urns: new Set(), waiters: []}
      this.pendingReads.set(key, batch)
      if (this.pendingReads.size === 1) setImmediate(() => this.readPending())
    }
    for (const u of urns) batch.urns.add(u)
    const b = batch
    return new Promise((resolve, reject) => b.waiters.push({urns, resolve, reject}))
  }

  private readonly pendingReads = new Map<string, ReadBatch>()

  private readPending(): void {
    const batches = [...this.pendingReads.values()]
    this.pendingReads.clear()
    for (const b of batches) {
      // One round trip (a prepared statement): the entities, their latest versioned rows and
      // their latest timeseries row per aspect.
      // Promise.resolve().then: a store closed since the call rejects its waiters, never throws here.
      Promise.resolve().then(() => this.db.query<EntityReadRow>({name: 'mdcli_get_entities', text: GET_ENTITIES_SQL, values: [[...b.urns], b.names]})).then(
        ({rows}) => {
          const byUrn = new Map<string, EntityReadRow[]>()
          for (const r of rows) {
            let l = byUrn.get(r.urn)
            if (!l) byUrn.set(r.urn, (l = []))
            l.push(r)
          }
          // Each caller gets records of its own: a caller may change what it was given.
          for (const w of b.waiters) {
            const out = new Map<string, EntityRecord>()
            for (const u of w.urns) {
              const rs = byUrn.get(u)
              if (!rs || out.has(u)) continue
              const e: EntityRecord = {urn: u, entityType: rs[0]!.entity_type, aspects: Object.create(null) as Record<string, StoredAspect>}
              // A versioned row wins over a timeseries row of the same name (rows come timeseries first).
              for (const r of rs) if (r.aspect !== null) e.aspects[r.aspect] = r.kind === 'v' ? this.versioned(r as unknown as AspectRow, r.entity_type) : this.series(r as unknown as TsRow, r.entity_type)
              out.set(u, e)
            }
            w.resolve(out)
          }
        },
        (err: unknown) => {
          for (const w of b.waiters) w.reject(err)
        },
      )
    }
  }

  async listVersions(urn: string, aspectName: string): Promise<StoredAspect[]> {
    if (!storable(aspectName)) return []
    const type = (await this.types([urn])).get(urn)
    if (!type) return []
    const {rows} = await this.db.query<AspectRow>(
      `SELECT urn, aspect, version, metadata, systemmetadata, ${TS_EXPR} AS created_ms, createdby FROM metadata_aspect_v2 WHERE urn = $1 AND aspect = $2 ORDER BY version`,
      [urn, aspectName],
    )
    return rows.map((r) => this.versioned(r, type))
  }

  async listTimeseries(urn: string, aspectName: string, opts: {startTime?: number; endTime?: number; limit?: number} = {}): Promise<StoredAspect[]> {
    if (!storable(aspectName)) return []
    const type = (await this.types([urn])).get(urn)
    if (!type) return []
    const {rows} = await this.db.query<TsRow>(
      `SELECT * FROM mdcli_timeseries WHERE urn = $1 AND aspect = $2 AND ($3::bigint IS NULL OR ts >= $3) AND ($4::bigint IS NULL OR ts <= $4) ORDER BY ts DESC LIMIT $5`,
      [urn, aspectName, opts.startTime ?? null, opts.endTime ?? null, opts.limit ?? 10000],
    )
    return rows.map((r) => this.series(r, type))
  }

  async exists(urn: string, opts: {includeSoftDeleted?: boolean} = {}): Promise<boolean> {
    if (!storable(urn)) return false
    // Checks of one turn (a batch's authorization asks one per entity) share one statement.
    let waiting = this.pendingExists.get(urn)
    if (!waiting) {
      this.pendingExists.set(urn, (waiting = []))
      if (this.pendingExists.size === 1) setImmediate(() => this.checkPending())
    }
    const w = waiting
    const removed = await new Promise<boolean | undefined>((resolve, reject) => w.push({resolve, reject}))
    if (removed === undefined) return false
    return existsFor(() => removed, opts)
  }

  /** Urns whose existence was asked this turn; each answer is the entity's removed flag, or undefined. */
  private readonly pendingExists = new Map<string, Array<{resolve: (removed: boolean | undefined) => void; reject: (e: unknown) => void}>>()

  private checkPending(): void {
    const asked = new Map(this.pendingExists)
    this.pendingExists.clear()
    Promise.resolve().then(() => this.db.query<{urn: string; removed: boolean}>({name: 'mdcli_exists', text: 'SELECT urn, removed FROM mdcli_entity WHERE urn = ANY($1::text[])', values: [[...asked.keys()]]})).then(
      ({rows}) => {
        const removed = new Map(rows.map((r) => [r.urn, r.removed]))
        for (const [urn, ws] of asked) for (const w of ws) w.resolve(removed.get(urn))
      },
      (err: unknown) => {
        for (const ws of asked.values()) for (const w of ws) w.reject(err)
      },
    )
  }

  async listUrns(req: ListUrnsRequest): Promise<{total: number; urns: string[]}> {
    const where = `($1::text IS NULL OR entity_type = $1) AND ($2 OR NOT removed)`
    const args = [req.entityType ?? null, req.includeSoftDeleted ?? false]
    const total = await this.db.query<{n: string}>(`SELECT count(*) AS n FROM mdcli_entity WHERE ${where}`, args)
    const {rows} = await this.db.query<{urn: string}>(`SELECT urn FROM mdcli_entity WHERE ${where} ORDER BY id OFFSET $3 LIMIT $4`, [...args, req.start ?? 0, req.count ?? null])
    return {total: Number(total.rows[0]!.n), urns: rows.map((r) => r.urn)}
  }


  async referencesTo(targets: string[], opts: ReferenceQuery = {}): Promise<Array<{target: string; urn: string; aspectName: string}>> {
    if (!targets.every(storable)) targets = targets.filter(storable)
    if (targets.length === 0) return []
    // The GIN index finds the rows mentioning any target; unnest says which.
    const sql = `SELECT t AS target, r.urn, r.aspect FROM mdcli_reference r CROSS JOIN LATERAL unnest(r.targets) AS t
      WHERE r.targets && $1::text[] AND t = ANY($1::text[]) AND r.urn <> t`
    // The order every store answers in (store/core/read.ts inReferenceOrder).
    const order = ' ORDER BY r.urn COLLATE "C", r.aspect COLLATE "C", t COLLATE "C"'
    const {rows} = opts.aspects
      ? await this.db.query<{target: string; urn: string; aspect: string}>(`${sql} AND r.aspect = ANY($2::text[])${order}`, [targets, opts.aspects])
      : await this.db.query<{target: string; urn: string; aspect: string}>(sql + order, [targets])
    return rows.map((r) => ({target: r.target, urn: r.urn, aspectName: r.aspect}))
  }

  async listRuns(opts: {start?: number; count?: number} = {}): Promise<RunSummary[]> {
    const {rows} = await this.db.query<{run_id: string; ts: string; n: string}>(
      `SELECT run_id, min(t) AS ts, count(*) AS n FROM (
         SELECT systemmetadata::jsonb ->> 'runId' AS run_id, ${TS_EXPR} AS t FROM metadata_aspect_v2
         UNION ALL SELECT run_id, createdon AS t FROM mdcli_timeseries
       ) r WHERE run_id IS NOT NULL GROUP BY run_id ORDER BY ts DESC, run_id OFFSET $1 LIMIT $2`,
      [opts.start ?? 0, opts.count ?? 100],
    )
    return rows.map((r) => ({runId: r.run_id, timestamp: Number(r.ts), rows: Number(r.n)}))
  }

  async runRows(runId: string): Promise<RunRow[]> {
    if (!storable(runId)) return []
    const v = await this.db.query<AspectRow & {entity_type: string}>(
      `SELECT a.urn, a.aspect, a.version, ${TS_EXPR} AS created_ms, a.createdby, e.entity_type FROM metadata_aspect_v2 a JOIN mdcli_entity e ON e.urn = a.urn
       WHERE (a.systemmetadata::jsonb ->> 'runId') = $1`,
      [runId],
    )
    const t = await this.db.query<TsRow & {entity_type: string}>(
      'SELECT t.urn, t.aspect, t.createdon, t.createdby, e.entity_type FROM mdcli_timeseries t JOIN mdcli_entity e ON e.urn = t.urn WHERE t.run_id = $1',
      [runId],
    )
    const out: RunRow[] = v.rows.map((r) => ({
      urn: r.urn,
      entityType: r.entity_type,
      aspectName: r.aspect,
      version: Number(r.version),
      kind: 'versioned',
      keyAspect: r.aspect === this.opts.rules.keyAspectName(r.entity_type),
      created: {time: Number(r.created_ms), actor: r.createdby},
    }))
    for (const r of t.rows) out.push({urn: r.urn, entityType: r.entity_type, aspectName: r.aspect, version: 0, kind: 'timeseries', keyAspect: false, created: {time: Number(r.createdon), actor: r.createdby}})
    return out
  }

  async stats(): Promise<StoreStats> {
    const {rows} = await this.db.query<{e: string; a: string; t: string; d: string}>(
      `SELECT (SELECT count(*) FROM mdcli_entity) AS e, (SELECT count(*) FROM metadata_aspect_v2) AS a,
              (SELECT count(*) FROM mdcli_timeseries) AS t, pg_database_size(current_database()) AS d`,
    )
    const r = rows[0]!
    return {entities: Number(r.e), aspectRows: Number(r.a) + Number(r.t), diskBytes: Number(r.d)}
  }
}
