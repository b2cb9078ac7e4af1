/**
 * A test helper for plugin authors: runs a source the way `mdcli ingest` does (config checked
 * against its schema, defaults filled) and returns its work units and report, with no server.
 */
import {tmpdir} from 'node:os'
import type {PluginContext, ProposalInput, SourcePlugin, WorkUnit} from './plugin.js'
import {Report} from './report.js'
import {validateConfig} from './validate.js'

export interface SourceRun {
  workUnits: WorkUnit[]
  proposals: ProposalInput[]
  report: Report
}

export async function runSource<C>(plugin: SourcePlugin<C>, config: unknown, opts: {baseDir?: string; now?: () => number; runId?: string} = {}): Promise<SourceRun> {
  const report = new Report()
  // Checked and filled with the schema's defaults, as a recipe's config is.
  const checked = structuredClone(config ?? {}) as C
  validateConfig(plugin.configSchema, checked, {file: '(runSource)', base: 'source.config', what: 'source'})
  const baseDir = opts.baseDir ?? tmpdir()
  const ctx: PluginContext = {
    runId: opts.runId ?? 'test-run',
    baseDir,
    dryRun: true,
    report,
    now: opts.now ?? Date.now,
    graph: async () => undefined,
    stdout: process.stdout,
    env: process.env,
    resolvePath: (p) => (p.startsWith('/') ? p : `${baseDir}/${p}`),
  }
  const source = await plugin.create(checked, ctx)
  const workUnits: WorkUnit[] = []
  try {
    for await (const wu of source.workunits()) workUnits.push(wu)
  } finally {
    await source.close?.()
  }
  return {workUnits, proposals: workUnits.flatMap((w) => w.proposals), report: source.report ?? report}
}
