import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base.js'
import {preparePipeline, runPipeline, type PipelineResult} from '../../recipes/pipeline.js'
import {loadRecipe} from '../../recipes/recipe.js'
import {PluginRegistry} from '../../recipes/registry.js'
import {startIngestDisplay} from '../../ui/ingest-progress.js'
import {isInteractive} from '../../ui/render.js'

export default class Ingest extends BaseCommand {
  static override summary = 'Run a recipe: read metadata from a source and write it to a sink.'
  static override description = `Loads the recipe (.yaml, .yml, .toml or .json), checks it and every plugin's config before anything runs, then streams work units from the source through the transformers to the sink.

Every proposal is stamped with the run id, so the run can be listed (\`ingest list-runs\`) and rolled back (\`ingest rollback\`). Exits 1 when any record failed (or, with --strict-warnings, when there were warnings); 130 after Ctrl-C, which stops between work units, prints the partial report and the command that rolls the run back.

Counts, the same words in the report, the progress line, list-runs, show, rollback and --json (counts):
- work units: what the source produced, each holding aspects of one entity
- aspects sent: delivered and accepted by the server, written or unchanged
- aspects written: new versions stored
- aspects unchanged: already stored, so only observed (list-runs' unchanged)
- key aspects: stored with each new entity's first aspect; never sent
- rows: aspects written + key aspects; what a rollback reverts
- failures: work units or aspects refused, each with its reason`
  static override examples = [
    {description: 'Ingest a change-event file into the server', command: '<%= config.bin %> ingest -c recipe.yml'},
    {description: 'See what a recipe would produce, writing nothing', command: '<%= config.bin %> ingest -c recipe.yml --dry-run'},
    {description: 'Try the first 5 work units only', command: '<%= config.bin %> ingest -c recipe.yml --preview --preview-workunits 5'},
    {description: 'Fail CI on warnings, report as JSON', command: '<%= config.bin %> ingest -c recipe.toml --strict-warnings --json'},
  ]

  static override flags = {
    config: Flags.string({char: 'c', summary: 'Recipe file (.yaml, .yml, .toml, .json; - for standard input).', required: true}),
    'dry-run': Flags.boolean({char: 'n', summary: 'Run the source and transformers but write nothing.', default: false}),
    preview: Flags.boolean({summary: 'Stop after the first --preview-workunits work units.', default: false}),
    'preview-workunits': Flags.integer({summary: 'Work units to process with --preview.', default: 10, min: 1}),
    'strict-warnings': Flags.boolean({summary: 'Exit 1 when the run finished with warnings.', default: false, allowNo: true}),
    progress: Flags.boolean({summary: 'Show progress while running.', default: true, allowNo: true}),
  }

  async run(): Promise<PipelineResult> {
    const {flags} = await this.parse(Ingest)
    const recipe = loadRecipe(flags.config)
    const prepared = await preparePipeline(recipe, {registry: PluginRegistry.discover()})
    const json = this.jsonEnabled()
    // With --debug, say where the settings come from, as every command that talks to a server
    // does; a bad setting is the sink's to report, if the recipe uses one.
    if (this.debugEnabled) {
      try {
        this.settings()
      } catch {}
    }
    // The console sink prints records on standard output; a live view there would tear them.
    const live = !json && flags.progress && isInteractive() && recipe.sink.type !== 'console'
    const title = `Ingesting ${recipe.source.type} → ${flags['dry-run'] ? '(dry run)' : recipe.sink.type}`
    const display = await startIngestDisplay({title, runId: prepared.runId, live, progress: !json && flags.progress, log: (t) => this.log(t)})
    // Ctrl-C stops the run between work units and still reports; a second Ctrl-C quits at once.
    const stop = new AbortController()
    const onSigint = (): void => {
      if (stop.signal.aborted) process.exit(130)
      stop.abort()
      process.stderr.write('\nStopping after the current work unit (Ctrl-C again to quit at once)…\n')
    }
    process.on('SIGINT', onSigint)
    let result: PipelineResult
    try {
      result = await runPipeline(prepared, {
        dryRun: flags['dry-run'],
        preview: flags.preview,
        previewWorkunits: flags['preview-workunits'],
        strictWarnings: flags['strict-warnings'],
        onProgress: display.onProgress,
        progressIntervalMs: live ? 200 : 250,
        signal: stop.signal,
        // Under --json standard output carries the report alone; the console sink's records go
        // to standard error, where they can still be read or redirected.
        ...(json ? {stdout: process.stderr} : {}),
        onRequest: this.requestLog(),
      })
    } catch (e) {
      await display.abort()
      throw e
    } finally {
      process.off('SIGINT', onSigint)
    }
    await display.finish(result, {json})
    process.exitCode = result.exitCode
    return result
  }
}
