/**
 * Links (DataHub's "institutional memory"): documents an entity points at, each an url with a
 * label, stamped with who added it and when.
 */
import {BadRequestError} from '../../errors.js'
import type {Actor, Catalog} from '../catalog.js'
import {accepts, type EditSummary, summarize, typeOf} from './common.js'
import {type EditTx, runEdit} from './engine.js'

type Element = {url: string; description: string; createStamp: {time: number; actor: string}; [k: string]: unknown}
type Memory = {elements?: Element[]; [k: string]: unknown}

async function checkLinkTarget(tx: EditTx, resourceUrn: string, linkUrl: string): Promise<void> {
  try {
    new URL(linkUrl)
  } catch {
    throw new BadRequestError(`Failed to change institutional memory for resource ${resourceUrn}. Expected an url.`)
  }
  if (!(await tx.exists(resourceUrn))) throw new BadRequestError(`Failed to change institutional memory for resource ${resourceUrn}. Resource does not exist.`)
  const type = typeOf(resourceUrn)!
  if (!accepts(type, 'institutionalMemory')) {
    throw new BadRequestError(`Failed to change institutional memory for resource ${resourceUrn}. Entities of type ${type} have no links.`)
  }
}

function linksAuthz(resourceUrn: string) {
  return [{resourceUrn, privileges: [['EDIT_ENTITY'], ['EDIT_ENTITY_DOC_LINKS']]}]
}

/** DataHub's per-link settings (InstitutionalMemoryMetadataSettings). */
export interface LinkSettings {
  showInAssetPreview?: boolean | null
}

const settingsOf = (s: LinkSettings | null | undefined) => (s ? {settings: {showInAssetPreview: s.showInAssetPreview === true}} : {})

/**
 * Adds a link unless one with the same url and label is already there; `upsert` (DataHub's
 * upsertLink) then replaces that one's settings instead of leaving it as it was.
 */
export async function addLink(
  catalog: Catalog,
  actor: Actor,
  input: {linkUrl: string; label: string; resourceUrn: string; settings?: LinkSettings | null},
  opts: {upsert?: boolean} = {},
): Promise<EditSummary> {
  const u = input.resourceUrn
  const {writes} = await runEdit(catalog, actor, {
    authz: linksAuthz(u),
    locks: [u],
    build: async (tx) => {
      await checkLinkTarget(tx, u, input.linkUrl)
      const mem = (await tx.aspect<Memory>(u, 'institutionalMemory')) ?? {}
      const elements = mem.elements ?? []
      const at = elements.findIndex((e) => e.url === input.linkUrl && e.description === input.label)
      if (at >= 0) {
        if (!opts.upsert || !input.settings) return
        const next = [...elements]
        next[at] = {...elements[at]!, ...settingsOf(input.settings), updateStamp: tx.stamp}
        tx.put(u, 'institutionalMemory', {...mem, elements: next})
        return
      }
      tx.put(u, 'institutionalMemory', {...mem, elements: [...elements, {url: input.linkUrl, description: input.label, createStamp: tx.stamp, ...settingsOf(input.settings)}]})
    },
  })
  return summarize([u], writes)
}

/** Removes every link with the url (and the label, when one is given). */
export async function removeLink(catalog: Catalog, actor: Actor, input: {linkUrl: string; resourceUrn: string; label?: string | null}): Promise<EditSummary> {
  const u = input.resourceUrn
  const {writes} = await runEdit(catalog, actor, {
    authz: linksAuthz(u),
    locks: [u],
    build: async (tx) => {
      await checkLinkTarget(tx, u, input.linkUrl)
      const mem = await tx.aspect<Memory>(u, 'institutionalMemory')
      if (!mem) return
      tx.put(u, 'institutionalMemory', {...mem, elements: (mem.elements ?? []).filter((e) => e.url !== input.linkUrl || (input.label != null && e.description !== input.label))})
    },
  })
  return summarize([u], writes)
}
