/**
 * The glossary's structure, as DataHub's glossary page edits it: related terms (`isA` →
 * `glossaryRelatedTerms.isRelatedTerms`, `hasA` → `hasRelatedTerms`), moving a term or node
 * under another node (`parentNode` of its info aspect), and deleting a term or node.
 *
 * Who may: MANAGE_GLOSSARIES on the platform, or MANAGE_GLOSSARY_CHILDREN /
 * MANAGE_ALL_GLOSSARY_CHILDREN on the parent node of what changes (DataHub's GlossaryUtils);
 * moving needs it at both the old and the new parent.
 */
import {BadRequestError, NotFoundError} from '../../errors.js'
import {validateUrn} from '../../model/registry.js'
import {type Actor, type Catalog, SYSTEM_ACTOR} from '../catalog.js'
import type {AuthzRequest} from '../authorize.js'
import {deleteEntities, deleteReferences} from '../delete.js'
import {type EditSummary, summarize, typeOf} from './common.js'
import {runEdit} from './engine.js'

type Obj = Record<string, any>

const INFO: Record<string, string> = {glossaryTerm: 'glossaryTermInfo', glossaryNode: 'glossaryNodeInfo'}

/** The privileges that allow changing the children of `parent` (the whole glossary when none). */
export function glossaryChildrenAuthz(parent: string | undefined): AuthzRequest {
  return parent
    ? {resourceUrn: parent, privileges: [['MANAGE_GLOSSARIES'], ['MANAGE_GLOSSARY_CHILDREN'], ['MANAGE_ALL_GLOSSARY_CHILDREN']]}
    : {privileges: [['MANAGE_GLOSSARIES']]}
}

/** The stored info of a term or node, or a 404 / 400 in DataHub's words. */
async function glossaryInfo(catalog: Catalog, urn: string, op: string): Promise<{type: string; info: Obj}> {
  validateUrn(urn)
  const type = typeOf(urn)!
  if (!INFO[type]) throw new BadRequestError(`Failed to ${op} ${urn}. It is not a glossary term or node.`)
  const info = (await catalog.getEntity(urn, [INFO[type]!]))?.aspects[INFO[type]!]?.value as Obj | undefined
  if (!info) throw new NotFoundError(`Failed to ${op} ${urn}. It does not exist.`)
  return {type, info}
}

export type TermRelationshipType = 'isA' | 'hasA'

/** Adds (`add`) or removes related terms of a term; each related term must be an existing term other than itself. */
export async function updateRelatedTerms(
  catalog: Catalog,
  actor: Actor,
  input: {urn: string; termUrns: string[]; relationshipType: TermRelationshipType},
  mode: 'add' | 'remove',
): Promise<EditSummary> {
  const {type, info} = await glossaryInfo(catalog, input.urn, 'update related terms of')
  if (type !== 'glossaryTerm') throw new BadRequestError(`Failed to update ${input.urn}. Related terms can only be set on glossary terms.`)
  const field = input.relationshipType === 'isA' ? 'isRelatedTerms' : 'hasRelatedTerms'
  const {writes} = await runEdit(catalog, actor, {
    authz: [glossaryChildrenAuthz(info.parentNode)],
    locks: [input.urn],
    build: async (tx) => {
      if (mode === 'add') {
        for (const t of input.termUrns) {
          if (t === input.urn) throw new BadRequestError(`Failed to update ${input.urn}. Tried to create related term to itself.`)
          if (typeOf(t) !== 'glossaryTerm' || !(await tx.exists(t))) throw new BadRequestError(`Failed to update ${input.urn}. Term with urn ${t} does not exist.`)
        }
      }
      const rel = (await tx.aspect<Obj>(input.urn, 'glossaryRelatedTerms')) ?? {}
      const current: string[] = rel[field] ?? []
      const next = mode === 'add' ? [...current, ...input.termUrns.filter((t, i, all) => !current.includes(t) && all.indexOf(t) === i)] : current.filter((t) => !input.termUrns.includes(t))
      tx.put(input.urn, 'glossaryRelatedTerms', {...rel, [field]: next})
    },
  })
  return summarize([input.urn], writes)
}

/** Moves a term or node under another node, or to the top (`parentNode` null). */
export async function updateParentNode(catalog: Catalog, actor: Actor, input: {resourceUrn: string; parentNode?: string | null}): Promise<EditSummary> {
  const u = input.resourceUrn
  const {type, info} = await glossaryInfo(catalog, u, 'move')
  const to = input.parentNode ?? undefined
  if (to !== undefined && (validateUrn(to), typeOf(to) !== 'glossaryNode')) throw new BadRequestError(`Failed to move ${u}. ${to} is not a glossary node.`)
  const {writes} = await runEdit(catalog, actor, {
    authz: [glossaryChildrenAuthz(info.parentNode), glossaryChildrenAuthz(to)],
    locks: [u],
    build: async (tx) => {
      if (to !== undefined) {
        if (!(await tx.exists(to))) throw new BadRequestError(`Failed to move ${u}. Parent node ${to} does not exist.`)
        // A node may not end up inside itself.
        for (let cur: string | undefined = to, hops = 0; cur && hops < 100; hops++) {
          if (cur === u) throw new BadRequestError(`Failed to move ${u}. ${to} is inside it.`)
          cur = (await tx.aspect<Obj>(cur, 'glossaryNodeInfo'))?.parentNode
        }
      }
      const current = (await tx.aspect<Obj>(u, INFO[type]!))!
      const {parentNode: _old, ...rest} = current
      tx.put(u, INFO[type]!, to ? {...rest, parentNode: to} : rest)
    },
  })
  return summarize([u], writes)
}

/** Deletes a term or node and removes the references to it (terms on entities, related terms, parents). */
export async function deleteGlossaryEntity(catalog: Catalog, actor: Actor, urn: string): Promise<void> {
  const {info} = await glossaryInfo(catalog, urn, 'delete')
  await catalog.authorize(actor, [glossaryChildrenAuthz(info.parentNode)])
  // As deleteTag: the actor was allowed; the cleanup runs on the system's behalf.
  await deleteEntities(catalog, SYSTEM_ACTOR, {urns: [urn], soft: false})
  await deleteReferences(catalog, SYSTEM_ACTOR, {urn, dryRun: false})
}
