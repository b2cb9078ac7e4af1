/**
 * What every resolver gets: the acting user, the catalog, and a per-request entity loader.
 *
 * Glossary:
 * - Ent: the source object of every entity type in the schema — an urn, its entity type, and
 *   its latest aspects once loaded. Entities met as references (a tag on a dataset, an owner)
 *   start as stubs without aspects; fields that need aspects load them on demand, and fields
 *   derived from the urn alone (`urn`, `type`, `Dataset.name`, `Tag.name`) never do.
 * - loader: collects every entity asked for in one tick of execution and reads them with one
 *   `getEntities` call, caching each for the rest of the request (the DataLoader pattern).
 */
import {entityWithModelDefaults} from '../../model/defaults.js'
import type {Actor, Catalog} from '../../catalog/catalog.js'
import {entityByGraphqlType, findEntity, keyOfUrn} from '../../model/registry.js'
import {BadRequestError} from '../../errors.js'
import type {EntityRecord} from '../../store/types.js'
import type {Logger} from '../http.js'
import type {ChangeLog} from '../../events/changelog.js'

// A type alias, not an interface: graphql-http wants a context assignable to a plain record.
export type GqlContext = {
  actor: Actor
  catalog: Catalog
  loader: EntityLoader
  maxResultWindow: number
  logger: Logger
  /** The server's change log, when it keeps one (`recentlyChanged`). */
  changeLog?: ChangeLog
  /** Search results this request may still ask for, over all its fields (`spendResults`). */
  resultsLeft?: number
}

/** Search results one request may ask for over all its fields and aliases together. */
export const MAX_RESULTS_PER_REQUEST = 10_000
/**
 * What a field that scans a whole type (browse, glossary roots) costs of that budget, whatever
 * page it returns: ten of them per request.
 */
export const SCAN_COST = MAX_RESULTS_PER_REQUEST / 10

/**
 * Charges a search's page against the request's budget: 250 aliases of `search(count: 2000)`
 * fit the document limits but would hold the server for seconds and hundreds of MiB.
 */
export function spendResults(ctx: GqlContext, count: number): void {
  const left = ctx.resultsLeft ?? MAX_RESULTS_PER_REQUEST
  if (count > left) {
    throw new BadRequestError(`This request asks for more than ${MAX_RESULTS_PER_REQUEST} search results over all its fields together; ask for fewer per field, or split the request (scroll to walk everything)`)
  }
  ctx.resultsLeft = left - count
}

export class Ent {
  /** undefined: not loaded yet; null: the entity does not exist. */
  rec: EntityRecord | null | undefined
  private keyValue?: Record<string, string>

  constructor(
    readonly urn: string,
    readonly entityType: string,
    rec?: EntityRecord | null,
  ) {
    this.rec = rec
  }

  /** Key fields parsed from the urn (`{platform, name, origin}` for a dataset); {} if it does not parse. */
  get key(): Record<string, string> {
    return (this.keyValue ??= keyOfUrn(this.urn, this.entityType))
  }

  /** Latest value of an aspect (needs the entity loaded). */
  aspect<T = any>(name: string): T | undefined {
    return this.rec?.aspects[name]?.value as T | undefined
  }
}

const PREFIX = 'urn:li:'

/**
 * A reference to an entity by urn, not loaded. The entity type is the token after `urn:li:`
 * (stored references passed the schemas' urn checks; be lenient on reads all the same).
 */
export function stub(urn: string, fallbackType = 'unknown'): Ent {
  const end = urn.startsWith(PREFIX) ? urn.indexOf(':', PREFIX.length) : -1
  return new Ent(urn, end > PREFIX.length ? urn.slice(PREFIX.length, end) : fallbackType)
}

export function stubOrNull(urn: unknown, fallbackType?: string): Ent | null {
  return typeof urn === 'string' && urn.length > 0 ? stub(urn, fallbackType) : null
}

/** The GraphQL EntityType enum value of a registry entity type. */
export function graphqlEntityType(entityType: string): string {
  return findEntity(entityType)?.graphqlType ?? 'OTHER'
}

/** Registry name of a GraphQL EntityType value (undefined when the registry has no such type). */
export function registryType(graphqlType: string): string | undefined {
  return entityByGraphqlType(graphqlType)?.name
}

/** Batches and caches entity reads for one request. */
export class EntityLoader {
  private readonly cache = new Map<string, Promise<EntityRecord | null>>()
  private queue: Array<{urn: string; resolve: (r: EntityRecord | null) => void; reject: (e: unknown) => void}> = []

  constructor(private readonly catalog: Catalog) {}

  load(urn: string): Promise<EntityRecord | null> {
    let p = this.cache.get(urn)
    if (!p) {
      p = new Promise<EntityRecord | null>((resolve, reject) => {
        this.queue.push({urn, resolve, reject})
        if (this.queue.length === 1) queueMicrotask(() => this.flush())
      })
      this.cache.set(urn, p)
    }
    return p
  }

  /** Drops a cached entity, e.g. after a mutation changed it. */
  forget(urn: string): void {
    this.cache.delete(urn)
  }

  private flush(): void {
    const batch = this.queue
    this.queue = []
    this.catalog.readEntities([...new Set(batch.map((b) => b.urn))]).then(
      (found) => batch.forEach((b) => {
        const rec = found.get(b.urn)
        b.resolve(rec ? entityWithModelDefaults(rec) : null)
      }),
      (e) => batch.forEach((b) => b.reject(e)),
    )
  }
}

/** Runs `f` on the entity once its aspects are loaded — synchronously when they already are. */
export function withEnt<T>(ent: Ent, ctx: GqlContext, f: (e: Ent) => T): T | Promise<T> {
  if (ent.rec !== undefined) return f(ent)
  return ctx.loader.load(ent.urn).then((rec) => {
    ent.rec = rec
    return f(ent)
  })
}
