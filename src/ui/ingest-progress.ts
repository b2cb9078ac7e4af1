/**
 * What `mdcli ingest` shows while it runs and when it ends: the live Ink view on a terminal, plain
 * progress lines on standard error otherwise (the first at the first tick, then one every 5 s),
 * and the final report. The command hands it progress snapshots and the result; it prints.
 */
import type {PipelineResult, Progress} from '../recipes/pipeline.js'
import {formatIngestReport, formatProgressLine, interruptedLines} from './ingest-report.js'
import {importView, startLive, type LiveView} from './render.js'
import {noColor, paint} from './theme.js'

/** Plain progress lines on standard error, at most one per interval. */
const PLAIN_PROGRESS_MS = 5000

export interface IngestDisplayOptions {
  title: string
  runId: string
  /** A live view on the terminal (else plain lines). */
  live: boolean
  /** Show progress at all (false for --json and --no-progress). */
  progress: boolean
  /** Where the final report goes (the command's log). */
  log: (text: string) => void
}

export interface IngestDisplay {
  onProgress: (p: Progress) => void
  /** Ends the live view with the summary, or prints the plain report. */
  finish: (result: PipelineResult, opts: {json: boolean}) => Promise<void>
  /** Ends the live view after the run threw. */
  abort: () => Promise<void>
}

export async function startIngestDisplay(o: IngestDisplayOptions): Promise<IngestDisplay> {
  // Loaded only when a terminal will show it: piped and --json runs never load React or Ink.
  const ui = o.live ? await importView(() => import('./ingest-view.js')) : undefined
  let view: LiveView | undefined
  let tick = 0
  let lastPlain = 0
  let final: Progress | undefined
  if (ui) view = await startLive(ui.progressElement({title: o.title, runId: o.runId, tick: 0}))
  // A first plain frame at once, before the source has connected or read anything.
  else if (o.progress) process.stderr.write(`${o.title} (run ${o.runId})…\n`)
  return {
    onProgress(p) {
      if (view && ui) view.update(ui.progressElement({title: o.title, runId: o.runId, progress: p, tick: tick++}))
      else if (o.progress && p.stage === 'running' && Date.now() - lastPlain >= PLAIN_PROGRESS_MS) {
        lastPlain = Date.now()
        process.stderr.write(formatProgressLine(p) + '\n')
      } else if (p.stage === 'flushing') final = p
    },
    async finish(result, {json}) {
      if (view && ui) {
        await view.finish(ui.summaryElement(result))
        if (result.interrupted) o.log(interruptedLines(result).join('\n'))
        return
      }
      // After progress lines, one with the final counts: the report must not contradict the last line shown.
      if (o.progress && lastPlain > 0 && final) process.stderr.write(formatProgressLine(final) + '\n')
      if (json) return
      const color = !noColor() && Boolean(process.stdout.isTTY)
      const text = formatIngestReport(result)
      // Colour the closing summary (after the last blank line) by the run's status.
      const head = text.slice(0, text.lastIndexOf('\n\n') + 2)
      const tail = text.slice(head.length)
      const style = result.status === 'failures' || result.interrupted ? 'red' : result.status === 'warnings' ? 'yellow' : 'green'
      o.log(head + paint(style, tail, color))
    },
    async abort() {
      if (view && ui) await view.finish(ui.progressElement({title: o.title, runId: o.runId, tick}))
    },
  }
}
