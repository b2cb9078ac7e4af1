/**
 * DataHub's container urns: `urn:li:container:<guid>`, where the guid is the MD5 of the container
 * key serialised as Python's `json.dumps(key, separators=(",", ":"), sort_keys=True)` (ASCII
 * escapes, no spaces). Sources must reproduce it byte for byte, or a DataHub user's containers
 * would get other urns here.
 */
import {createHash} from 'node:crypto'

/** Python's `json.dumps(…, sort_keys=True, separators=(",", ":"))` of a flat string bag. */
export function pythonSortedJson(bag: Record<string, string>): string {
  const keys = Object.keys(bag).sort()
  const esc = (s: string): string => JSON.stringify(s).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
  return `{${keys.map((k) => `${esc(k)}:${esc(bag[k]!)}`).join(',')}}`
}

/** The guid DataHub derives from a key's fields (`datahub_guid`). */
export function datahubGuid(fields: Record<string, string | undefined | null>): string {
  const bag: Record<string, string> = {}
  for (const [k, v] of Object.entries(fields)) if (v !== undefined && v !== null) bag[k] = v
  return createHash('md5').update(pythonSortedJson(bag), 'utf8').digest('hex')
}

export interface ContainerKey {
  /** The bare platform name (`postgres`, `looker`), not its urn. */
  platform: string
  instance?: string | null
  /** Never hashed, except through `envAsInstance`. */
  env?: string | null
  /** Further key fields (`database`, `schema`, `project_name`…), by their serialised names. */
  [field: string]: string | null | undefined | boolean
}

/**
 * `urn:li:container:<guid>` of a container key. `envAsInstance` copies DataHub's backwards
 * compatible quirk of its SQL sources: with no instance, the env is hashed as the instance.
 */
export function containerUrn(key: ContainerKey, opts: {envAsInstance?: boolean} = {}): string {
  const fields: Record<string, string | undefined | null> = {}
  for (const [k, v] of Object.entries(key)) if (k !== 'env' && typeof v !== 'boolean') fields[k] = v
  if (opts.envAsInstance && !key.instance && key.env) fields.instance = key.env
  return `urn:li:container:${datahubGuid(fields)}`
}
