/**
 * Browse paths when none was ingested, as DataHub derives its defaults: v1 paths
 * `/<env>/<platform>/<name parts>` for datasets (the urn's parts for other types), and v2 paths
 * from the container chain or, without one, the dataset name's parts before the last.
 */
import {parseUrn} from '../model/urn.js'

export interface PathEntry {
  id: string
  urn?: string
}

const platformName = (u: string): string => (u.startsWith('urn:li:dataPlatform:') ? u.slice('urn:li:dataPlatform:'.length) : u)

function parts(urn: string): string[] {
  try {
    return [...parseUrn(urn).parts]
  } catch {
    return []
  }
}

/** DataHub's default v1 browse path of an entity (one path), the entity's own name last. */
export function derivedBrowsePath(urn: string, entityType: string): string {
  const p = parts(urn)
  switch (entityType) {
    case 'dataset': {
      const [platform = '', name = '', env = 'PROD'] = p
      return `/${env.toLowerCase()}/${platformName(platform)}/${name.split(/[./]/).filter((x) => x).join('/')}`
    }
    case 'dataFlow': {
      const [orchestrator = '', flowId = '', cluster = ''] = p
      return `/${orchestrator}/${cluster}/${flowId}`
    }
    case 'dataJob': {
      const [flow = '', jobId = ''] = p
      const [orchestrator = '', flowId = ''] = parts(flow)
      return `/${orchestrator}/${flowId}/${jobId}`
    }
    default:
      return `/${p.map((x) => (x.startsWith('urn:') ? parts(x).join('/') : x)).join('/')}`
  }
}

/** The v2 path of an entity without a container and without browsePathsV2. */
export function derivedNamePathV2(urn: string, entityType: string): PathEntry[] {
  if (entityType !== 'dataset') return []
  const name = parts(urn)[1] ?? ''
  return name
    .split(/[./]/)
    .filter((x) => x)
    .slice(0, -1)
    .map((id) => ({id}))
}
