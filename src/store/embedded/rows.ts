/**
 * The rows of the embedded store's memtable as readers get them: a version, an old version's
 * place in the history file, or a timeseries row, and the aspect envelope that parses a value
 * only when it is read.
 */
import type {AuditStamp, StoredAspect, SystemMetadata} from '../types.js'
import type {OldRow} from './history.js'
import {type TsRow, Versions} from './snapshot.js'

/** A version of a versioned aspect, or a timeseries row. */
export type AnyRow = Versions | OldRow | TsRow

/** An old version's [3] is its time; a timeseries row's, its system metadata. */
export const isOld = (r: AnyRow): r is OldRow => Array.isArray(r) && typeof r[3] === 'number'
export const runIdOf = (r: AnyRow): string | undefined => (r instanceof Versions ? r.sm.runId : isOld(r) ? r[2] : r[3].runId)
export const timeOf = (r: AnyRow): number => (r instanceof Versions ? r.time : isOld(r) ? r[3] : r[1])

/**
 * A stored aspect whose value is parsed on first read: a GraphQL query that selects two
 * aspects of an entity parses two, not all of them. JSON.stringify sees `value` like a field.
 */
export class LazyAspect implements StoredAspect {
  private parsed?: unknown
  constructor(
    readonly urn: string,
    readonly entityType: string,
    readonly aspectName: string,
    readonly kind: 'versioned' | 'timeseries',
    readonly version: number,
    private readonly text: string,
    readonly created: AuditStamp,
    readonly systemMetadata: SystemMetadata,
  ) {}

  get value(): unknown {
    if (this.parsed === undefined) this.parsed = JSON.parse(this.text)
    return this.parsed
  }

  get valueText(): string {
    return this.text
  }

  toJSON(): Record<string, unknown> {
    return {urn: this.urn, entityType: this.entityType, aspectName: this.aspectName, kind: this.kind, version: this.version, value: this.value, created: this.created, systemMetadata: this.systemMetadata}
  }
}
