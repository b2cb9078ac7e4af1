/**
 * `versionedDataset(urn, versionStamp)`: the dataset's record with the aspects named in the
 * stamp replaced by their stored versions, then resolved by the Dataset field resolvers — so a
 * field reads the same way at any version. An aspect whose version is not stored is absent, as
 * in DataHub's batchGetVersionedV2.
 */
import {BadRequestError} from '../../errors.js'
import {aspectsOf, validateUrn} from '../../model/registry.js'
import type {EntityRecord} from '../../store/types.js'
import {Ent, type GqlContext, withEnt} from './context.js'
import {COMMON_FIELDS, type Resolver, TYPE_FIELDS} from './entities.js'
import * as M from './mappers.js'

type Obj = Record<string, any>

/** `schemaMetadata:3;editableSchemaMetadata:0` → [[schemaMetadata, 3], …]; 400 on anything else. */
function parseStamp(stamp: string): Array<[string, number]> {
  const known = new Set(aspectsOf('dataset'))
  const out = new Map<string, number>()
  for (const part of stamp.split(';')) {
    if (part.trim() === '') continue
    const m = /^\s*([A-Za-z][A-Za-z0-9]*):(\d+)\s*$/.exec(part)
    if (!m) throw new BadRequestError(`Invalid versionStamp '${stamp}': expected aspect:version pairs separated by ';', e.g. schemaMetadata:2;editableSchemaMetadata:0`)
    const [, name, v] = m
    if (!known.has(name!)) throw new BadRequestError(`Invalid versionStamp '${stamp}': ${name} is not an aspect of datasets`)
    const version = Number(v)
    if (!Number.isSafeInteger(version)) throw new BadRequestError(`Invalid versionStamp '${stamp}': version ${v} is too large`)
    if (out.has(name!) && out.get(name!) !== version) throw new BadRequestError(`Invalid versionStamp '${stamp}': ${name} is given two versions`)
    out.set(name!, version)
  }
  return [...out]
}

async function versionedDataset(_r: unknown, args: {urn: string; versionStamp?: string | null}, ctx: GqlContext): Promise<Ent | null> {
  if (validateUrn(args.urn).spec.name !== 'dataset') throw new BadRequestError(`versionedDataset(urn:) expects a dataset urn, got ${args.urn}`)
  const pins = parseStamp(args.versionStamp ?? '')
  const latest = await ctx.loader.load(args.urn)
  if (!latest) return null
  const aspects = {...latest.aspects}
  for (const [name, version] of pins) {
    if (version === 0) continue
    const a = await ctx.catalog.readAspect(args.urn, name, version)
    if (a) aspects[name] = a
    else delete aspects[name]
  }
  const rec: EntityRecord = {...latest, aspects}
  return new Ent(args.urn, 'dataset', rec)
}

const schema: Resolver = (src: Ent, _a, ctx) =>
  withEnt(src, ctx, (e) => {
    const stored = e.rec?.aspects.schemaMetadata
    const m = M.schemaMetadata(stored?.value as Obj | undefined, e.urn, stored?.version ?? 0)
    if (!m) return null
    const {aspectVersion: _v, ...rest} = m
    return {...rest, lastObserved: stored?.systemMetadata?.lastObserved ?? null}
  })

const FIELDS = ['urn', 'type', 'platform', 'name', 'origin', 'properties', 'editableProperties', 'ownership', 'deprecation', 'institutionalMemory', 'editableSchemaMetadata', 'status', 'tags', 'glossaryTerms', 'domain', 'container', 'viewProperties']

/** The VersionedDataset fields: the Dataset resolvers of the same names, and `schema`. */
export function versionedDatasetFields(): Record<string, Resolver> {
  const dataset = {...COMMON_FIELDS, ...TYPE_FIELDS.Dataset}
  const out: Record<string, Resolver> = {schema}
  for (const f of FIELDS) {
    if (!dataset[f]) throw new Error(`No Dataset resolver for VersionedDataset.${f}`)
    out[f] = dataset[f]!
  }
  return out
}

export const VERSIONED_QUERY_FIELDS: Record<string, Resolver> = {versionedDataset}
