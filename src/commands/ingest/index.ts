import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base.js'
import {preparePipeline, runPipeline, type PipelineResult, type Progress} from '../../recipes/pipeline.js'
import {loadRecipe} from '../../recipes/recipe.js'
import {PluginRegistry} from '../../recipes/registry.js'
import {formatIngestReport, formatProgressLine, interruptedLines} from '../../ui/ingest-report.js'
import {importView, isInteractive, startLive, type LiveView} from '../../ui/render.js'
import {noColor, paint} from '../../ui/theme.js'

/** Plain progress lines on standard error, at most one per interval. */
const PLAIN_PROGRESS_MS = 5000

export default class Ingest extends BaseCommand {
  static override summary = 'Run a recipe: read metadata from a source and write it to a sink.'
  static override description = `Loads the recipe (.yaml, .yml, .toml or .json), checks it and every plugin's config before anything runs, then streams work units from the source through the transformers to the sink.

Every proposal is stamped with the run id, so the run can be listed (\`ingest list-runs\`) and rolled back (\`ingest rollback\`). Exits 1 when any record failed (or, with --strict-warnings, when there were warnings).`
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
    // The console sink prints records on standard output; a live view there would tear them.
    const live = !json && flags.progress && isInteractive() && recipe.sink.type !== 'console'
    const title = `Ingesting ${recipe.source.type} → ${flags['dry-run'] ? '(dry run)' : recipe.sink.type}`
    let view: LiveView | undefined
    // Loaded only when a terminal will show it: piped and --json runs never load React or Ink.
    const ui = live ? await importView(() => import('../../ui/ingest-view.js')) : undefined
    let tick = 0
    // The first plain line comes at the first tick, then one every PLAIN_PROGRESS_MS.
    let lastPlain = 0
    const onProgress = (p: Progress): void => {
      if (view && ui) {
        view.update(ui.progressElement({title, runId: prepared.runId, progress: p, tick: tick++}))
      } else if (!json && flags.progress && p.stage === 'running' && Date.now() - lastPlain >= PLAIN_PROGRESS_MS) {
        lastPlain = Date.now()
        process.stderr.write(formatProgressLine(p) + '\n')
      }
    }
    if (ui) view = await startLive(ui.progressElement({title, runId: prepared.runId, tick: 0}))
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
        onProgress,
        progressIntervalMs: live ? 200 : 250,
        signal: stop.signal,
      })
    } catch (e) {
      if (view && ui) await view.finish(ui.progressElement({title, runId: prepared.runId, tick}))
      throw e
    } finally {
      process.off('SIGINT', onSigint)
    }
    if (view && ui) {
      await view.finish(ui.summaryElement(result))
      if (result.interrupted) this.log(interruptedLines(result).join('\n'))
    }
    else if (!json) {
      const color = !noColor() && Boolean(process.stdout.isTTY)
      const text = formatIngestReport(result)
      const cut = text.lastIndexOf('\n')
      const style = result.status === 'failures' ? 'red' : result.status === 'warnings' ? 'yellow' : 'green'
      this.log(text.slice(0, cut + 1) + paint(style, text.slice(cut + 1), color))
    }
    process.exitCode = result.exitCode
    return result
  }
}
