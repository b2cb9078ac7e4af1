/**
 * The embedded store's rows as readers get them: the aspect envelope that parses a value only
 * when it is read.
 */
import type {AuditStamp, StoredAspect, SystemMetadata} from '../types.js'

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
