/**
 * Browse paths when none was ingested, as DataHub derives its defaults: v1 paths
 * `/<env>/<platform>/<name parts>` for datasets (the urn's parts for other types), and v2 paths
 * from the container chain or, without one, the dataset name's parts before the last, a job's
 * flow, or the Default folder.
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

/** The folder DataHub files an entity under when nothing else places it (BrowsePathV2Utils). */
export const DEFAULT_FOLDER = 'Default'

/**
 * The v2 path of an entity without a container and without browsePathsV2, as DataHub derives it:
 * a dataset's lower-cased name parts before the last, a job's flow, and otherwise the Default
 * folder, so that browsing still reaches every entity.
 */
export function derivedNamePathV2(urn: string, entityType: string): PathEntry[] {
  if (entityType === 'dataset') {
    const name = parts(urn)[1] ?? ''
    if (name.includes('.')) {
      return name
        .toLowerCase()
        .split('.')
        .slice(0, -1)
        .map((id) => ({id}))
    }
  }
  if (entityType === 'dataJob') {
    const flow = parts(urn)[0]
    if (flow) return [{id: flow, urn: flow}]
  }
  return [{id: DEFAULT_FOLDER}]
}
