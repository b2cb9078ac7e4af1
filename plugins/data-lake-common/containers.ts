/**
 * Folder containers as DataHub's data-lake sources build them (`ContainerWUCreator`): one
 * container per folder above a dataset (`tests`, `tests/integration`, …), subtype `Folder`, each
 * inside its parent, keyed by (platform, instance, folder_abs_path) — with DataHub's quirk of
 * hashing the env as the instance when there is none — and emitted once per run.
 */
import {containerUrn, mcp, type ProposalInput} from '../../src/sdk/index.js'

export interface FolderContainerOptions {
  platform: string
  instance?: string
  env: string
}

export interface DatasetPlacement {
  /** Proposals of the folders first seen for this dataset. */
  proposals: ProposalInput[]
  /** The innermost folder (the dataset's `container`), when the dataset is in one. */
  parent?: string
  /** The dataset's `browsePathsV2` path. */
  browsePath: Array<{id: string; urn?: string}>
}

export class FolderContainers {
  private readonly emitted = new Set<string>()
  private readonly instanceUrn: string | undefined

  constructor(private readonly opts: FolderContainerOptions) {
    this.instanceUrn = opts.instance ? `urn:li:dataPlatformInstance:(urn:li:dataPlatform:${opts.platform},${opts.instance})` : undefined
  }

  private platformInstance(): Record<string, string> {
    return this.instanceUrn ? {platform: `urn:li:dataPlatform:${this.opts.platform}`, instance: this.instanceUrn} : {platform: `urn:li:dataPlatform:${this.opts.platform}`}
  }

  /** The dataset's `dataPlatformInstance`, which DataHub emits only with an instance. */
  datasetPlatformInstance(): Record<string, string> | undefined {
    return this.instanceUrn ? this.platformInstance() : undefined
  }

  /** The folders above `path` (a table folder or file, as written), created as needed. */
  place(path: string): DatasetPlacement {
    const {platform, instance, env} = this.opts
    const segments = path.split('/').slice(0, -1)
    const proposals: ProposalInput[] = []
    const chain: string[] = []
    let abs = path.startsWith('/') ? '' : undefined
    for (const name of segments) {
      if (name === '') continue
      abs = abs === undefined ? name : `${abs}/${name}`
      const urn = containerUrn({platform, instance, env, folder_abs_path: abs}, {envAsInstance: true})
      const parent = chain[chain.length - 1]
      if (!this.emitted.has(urn)) {
        this.emitted.add(urn)
        proposals.push(
          mcp(urn, 'containerProperties', {customProperties: {platform, ...(instance ? {instance} : {}), env, folder_abs_path: abs}, name, env}),
          mcp(urn, 'status', {removed: false}),
          mcp(urn, 'dataPlatformInstance', this.platformInstance()),
          mcp(urn, 'subTypes', {typeNames: ['Folder']}),
          ...(parent ? [mcp(urn, 'container', {container: parent})] : []),
          mcp(urn, 'browsePathsV2', {path: this.pathTo(chain)}),
        )
      }
      chain.push(urn)
    }
    return {proposals, parent: chain[chain.length - 1], browsePath: this.pathTo(chain)}
  }

  private pathTo(chain: string[]): Array<{id: string; urn?: string}> {
    return [...(this.instanceUrn ? [{id: this.instanceUrn, urn: this.instanceUrn}] : []), ...chain.map((u) => ({id: u, urn: u}))]
  }
}
