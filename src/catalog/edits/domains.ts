/**
 * The domain of entities: `setDomain` puts an entity into one domain (replacing any other),
 * `unsetDomain` takes it out, `batchSetDomain` does either for many entities at once.
 * The `domains` aspect holds the list; DataHub keeps at most one domain in it.
 */
import {BadRequestError} from '../../errors.js'
import type {Actor, Catalog} from '../catalog.js'
import {accepts, checkResource, type EditSummary, type ResourceRef, summarize, typeOf} from './common.js'
import {type EditTx, runEdit} from './engine.js'

/** Which mutation is asking: each words its errors as DataHub does. */
export type DomainWording = 'set' | 'unset' | 'batch'

async function domainExists(tx: EditTx, domainUrn: string): Promise<boolean> {
  return typeOf(domainUrn) === 'domain' && (await tx.exists(domainUrn))
}

/** Sets (domainUrn) or removes (null) the domain of every resource. */
export async function setDomain(
  catalog: Catalog,
  actor: Actor,
  domainUrn: string | null,
  resources: ResourceRef[],
  wording: DomainWording = 'batch',
): Promise<EditSummary> {
  const {writes} = await runEdit(catalog, actor, {
    authz: resources.map((r) => ({resourceUrn: r.resourceUrn, privileges: [['EDIT_ENTITY'], ['EDIT_DOMAINS_PRIVILEGE']]})),
    locks: resources.map((r) => r.resourceUrn),
    build: async (tx) => {
      if (domainUrn !== null && !(await domainExists(tx, domainUrn))) {
        const entity = resources[0]?.resourceUrn
        throw new BadRequestError(
          wording === 'set' ? `Failed to add Entity ${entity} to Domain ${domainUrn}. Domain does not exist.` : `Failed to validate Domain with urn ${domainUrn}. Urn does not exist.`,
        )
      }
      for (const r of resources) {
        const u = r.resourceUrn
        if (wording === 'set') {
          if (!(await tx.exists(u))) throw new BadRequestError(`Failed to add Entity ${u} to Domain ${domainUrn}. Entity does not exist.`)
        } else if (wording === 'unset') {
          if (!(await tx.exists(u))) throw new BadRequestError(`Failed to remove Entity ${u} from its Domain. Entity does not exist.`)
        } else await checkResource(tx, {resourceUrn: u})
        const type = typeOf(u)!
        if (!accepts(type, 'domains')) throw new BadRequestError(`Failed to update resource with urn ${u}. Entities of type ${type} have no domain.`)
      }
      for (const r of resources) {
        const cur = (await tx.aspect<{domains?: string[]}>(r.resourceUrn, 'domains')) ?? {}
        tx.put(r.resourceUrn, 'domains', {...cur, domains: domainUrn === null ? [] : [domainUrn]})
      }
    },
  })
  return summarize(resources.map((r) => r.resourceUrn), writes)
}
