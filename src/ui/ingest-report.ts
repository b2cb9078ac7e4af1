/**
 * The ingest run's report as sections of labelled lines — one model, rendered as plain text
 * (pipes, CI logs) by `formatIngestReport` and with colour by the Ink view on a terminal.
 *
 * Glossary:
 * - section: a titled block (`Source (file) report:`), its rows `label: value`, and its problems.
 * - problem: a warning or failure key with its count and first examples.
 */
import {readFileSync} from 'node:fs'
import {arch, freemem, platform, release, totalmem} from 'node:os'
import {fileURLToPath} from 'node:url'
import {formatTimespan, type PipelineResult, type Progress} from '../recipes/pipeline.js'
import type {ReportData, ReportEntry} from '../sdk/report.js'
import {rowsSentence} from '../model/counts.js'

export interface ReportRow {
  label: string
  value: string
}

export interface ReportSection {
  title: string
  rows: ReportRow[]
  warnings: ReportEntry[]
  failures: ReportEntry[]
}

const num = (n: number): string => n.toLocaleString('en-US')

function humanKey(k: string): string {
  return k.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase()
}

function infoRows(data: ReportData, skip: string[] = []): ReportRow[] {
  const rows: ReportRow[] = []
  for (const [k, v] of Object.entries(data.counts)) if (!skip.includes(k)) rows.push({label: humanKey(k), value: num(v)})
  for (const [k, v] of Object.entries(data.info)) {
    if (v === undefined || skip.includes(k)) continue
    rows.push({label: humanKey(k), value: typeof v === 'number' ? num(v) : typeof v === 'string' ? v : JSON.stringify(v)})
  }
  return rows
}

/** mdcli's version, from its package.json (dist/src/ui → the package root). */
function cliVersion(): string {
  try {
    return (JSON.parse(readFileSync(fileURLToPath(new URL('../../../package.json', import.meta.url)), 'utf8')) as {version?: string}).version ?? 'unknown'
  } catch {
    return 'unknown'
  }
}

/** DataHub's `Cli report` block: what ran the pipeline, on what. */
function cliSection(): ReportSection {
  const mb = (b: number): string => `${num(Math.round(b / 1024 / 1024))} MB`
  return {
    title: 'Cli report:',
    rows: [
      {label: 'cli version', value: cliVersion()},
      {label: 'node version', value: process.version},
      {label: 'os', value: `${platform()} ${release()} (${arch()})`},
      {label: 'memory', value: `${mb(totalmem() - freemem())} used of ${mb(totalmem())}`},
      {label: 'peak memory of this run', value: mb(process.resourceUsage().maxRSS * 1024)},
    ],
    warnings: [],
    failures: [],
  }
}

/**
 * What the server did with the aspects sent, in the words of src/model/counts.ts: the same
 * numbers `ingest list-runs` (rows, unchanged) and a rollback of the run show.
 */
function sentRows(r: PipelineResult): ReportRow[] {
  const c = r.counts
  // Sinks that write elsewhere than a server (a file, the console, a queue) only know what they sent.
  const known = 'aspectsWritten' in r.sink.report.counts || 'aspectsUnchanged' in r.sink.report.counts
  if (!known) return [{label: 'aspects sent', value: num(r.sink.recordsWritten)}]
  return [
    {label: 'aspects sent', value: `${num(c.aspectsSent)} (${num(c.aspectsWritten)} written + ${num(c.aspectsUnchanged)} unchanged)`},
    {label: 'aspects written', value: `${num(c.aspectsWritten)} (new versions)`},
    {label: 'aspects unchanged', value: `${num(c.aspectsUnchanged)} (already stored: observed, not written)`},
    {label: 'key aspects', value: `${num(c.keyAspects)} (stored with the first aspect of each new entity; not sent)`},
    {label: 'rows', value: `${rowsSentence(c.aspectsWritten, c.keyAspects)} (what \`ingest list-runs\` lists and a rollback reverts)`},
  ]
}

export function reportSections(r: PipelineResult): ReportSection[] {
  const secs = Math.max(r.durationMs, 1) / 1000
  const aspectLines = Object.entries(r.source.aspects)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([type, byAspect]) => ({
      label: `  ${type}`,
      value: Object.entries(byAspect)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([a, n]) => `${a} ${num(n)}`)
        .join(', '),
    }))
  const sections: ReportSection[] = [
    cliSection(),
    {
      title: `Source (${r.source.type}) report:`,
      rows: [
        {label: 'work units', value: num(r.source.workUnits)},
        {label: 'work units per sec', value: num(Math.round(r.source.workUnits / secs))},
        {label: 'aspects produced', value: num(r.source.records)},
        ...(aspectLines.length > 0 ? [{label: 'aspects', value: ''}, ...aspectLines] : []),
        ...infoRows(r.source.report),
      ],
      warnings: r.source.report.warnings,
      failures: r.source.report.failures,
    },
  ]
  for (const t of r.transformers) {
    if (t.report.warnings.length + t.report.failures.length + Object.keys(t.report.counts).length === 0) continue
    sections.push({title: `Transformer (${t.type}) report:`, rows: infoRows(t.report), warnings: t.report.warnings, failures: t.report.failures})
  }
  sections.push({
    title: `Sink (${r.sink.type}) report:`,
    rows: r.dryRun
      ? [{label: 'aspects sent', value: '0 (dry run: the sink was not called)'}]
      : [
          ...sentRows(r),
          {label: 'aspects sent per sec', value: num(Math.round(r.sink.recordsWritten / secs))},
          ...infoRows(r.sink.report, ['recordsWritten', 'aspectsWritten', 'aspectsUnchanged', 'keyAspectsWritten']),
        ],
    warnings: r.sink.report.warnings,
    failures: r.sink.report.failures,
  })
  sections.push({
    title: 'Run:',
    rows: [
      {label: 'run id', value: r.runId},
      ...(r.pipelineName ? [{label: 'pipeline name', value: r.pipelineName}] : []),
      {label: 'recipe', value: r.recipe},
      {label: 'duration', value: formatTimespan(r.durationMs)},
      ...(r.preview ? [{label: 'preview', value: 'yes (stopped after the first work units)'}] : []),
      ...(r.dryRun ? [{label: 'dry run', value: 'yes (nothing written)'}] : []),
    ],
    warnings: [],
    failures: [],
  })
  return sections
}

function problemLines(kind: string, list: ReportEntry[]): string[] {
  if (list.length === 0) return []
  const total = list.reduce((n, e) => n + e.count, 0)
  const out = [`  ${kind} (${num(total)}):`]
  for (const e of list) {
    out.push(`    ${e.key} (${num(e.count)}):`)
    for (const x of e.examples) out.push(`      - ${x}`)
    if (e.count > e.examples.length) out.push(`      … and ${num(e.count - e.examples.length)} more`)
  }
  return out
}

/** The whole report as plain text, ending with the `Pipeline finished …` line. */
export function formatIngestReport(r: PipelineResult): string {
  const lines: string[] = ['']
  for (const s of reportSections(r)) {
    lines.push(s.title)
    for (const row of s.rows) lines.push(row.value === '' ? `  ${row.label}:` : `  ${row.label}: ${row.value}`)
    lines.push(...problemLines('warnings', s.warnings), ...problemLines('failures', s.failures))
  }
  lines.push('', r.summary)
  if (r.interrupted) lines.push(...interruptedLines(r))
  return lines.join('\n')
}

/** One plain progress line (non-interactive output). */
export function formatProgressLine(p: Progress): string {
  const pct = p.fraction === undefined ? '' : `, ${Math.floor(p.fraction * 100)}% read`
  const eta = p.etaMs === undefined ? '' : `, about ${formatTimespan(p.etaMs)} left`
  const sent = p.dryRun ? `${num(p.records)} aspects produced (dry run: none sent; ${num(Math.round(p.rate))}/s)` : `${num(p.recordsWritten)} aspects sent (${num(Math.round(p.rate))}/s)`
  const head = p.stage === 'flushing' ? 'Pipeline done reading' : 'Pipeline running'
  return `${head}: ${num(p.workUnits)} work units read${pct}, ${sent}, ${num(p.warnings)} warnings, ${num(p.failures)} failures, ${formatTimespan(p.elapsedMs)} elapsed${eta}`
}

/** What to do after Ctrl-C: the run wrote part of its input, and how to take that back. */
export function interruptedLines(r: PipelineResult): string[] {
  if (r.dryRun || r.sink.recordsWritten === 0) return ['Stopped by Ctrl-C before anything was written.']
  return [`Stopped by Ctrl-C: ${num(r.sink.recordsWritten)} aspects of this run were sent (written or unchanged).`, `To roll them back: mdcli ingest rollback --run-id ${r.runId}`]
}
