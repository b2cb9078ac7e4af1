/**
 * Ink components for `mdcli ingest` on a terminal: a live progress panel while the run goes on,
 * then the report (the same sections as the plain text, with colour unless NO_COLOR is set).
 */
import {Box, Text} from 'ink'
import {createElement, type ReactElement} from 'react'
import {formatTimespan, type PipelineResult, type Progress} from '../recipes/pipeline.js'
import type {ReportEntry} from '../sdk/report.js'
import {reportSections} from './ingest-report.js'
import {colorOf} from './theme.js'

const num = (n: number): string => n.toLocaleString('en-US')
const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']

function Bar({fraction, width = 30}: {fraction: number; width?: number}) {
  const filled = Math.round(Math.max(0, Math.min(1, fraction)) * width)
  return (
    <Text>
      <Text color={colorOf('cyan')}>{'█'.repeat(filled)}</Text>
      <Text dimColor>{'░'.repeat(width - filled)}</Text>
      {` ${Math.floor(fraction * 100)}%`}
    </Text>
  )
}

export interface LiveProps {
  title: string
  runId: string
  progress?: Progress
  tick: number
}

export function IngestProgress({title, runId, progress, tick}: LiveProps) {
  const p = progress
  return (
    <Box flexDirection="column" paddingX={1}>
      <Text>
        <Text color={colorOf('cyan')}>{p?.stage === 'flushing' ? '…' : SPINNER[tick % SPINNER.length]}</Text> <Text bold>{title}</Text>
        <Text dimColor>{`  run ${runId}`}</Text>
      </Text>
      {p?.fraction !== undefined && (
        <Box>
          <Box width={12}>
            <Text dimColor>input</Text>
          </Box>
          <Bar fraction={p.fraction} />
        </Box>
      )}
      <Row label="read" value={`${num(p?.workUnits ?? 0)} work units, ${num(p?.records ?? 0)} aspects`} />
      <Row label="sent" value={`${num(p?.recordsWritten ?? 0)} aspects  (${num(Math.round(p?.rate ?? 0))}/s)`} />
      <Box>
        <Box width={12}>
          <Text dimColor>problems</Text>
        </Box>
        <Text color={(p?.warnings ?? 0) > 0 ? colorOf('yellow') : undefined}>{`${num(p?.warnings ?? 0)} warnings`}</Text>
        <Text>{'  '}</Text>
        <Text color={(p?.failures ?? 0) > 0 ? colorOf('red') : undefined}>{`${num(p?.failures ?? 0)} failures`}</Text>
      </Box>
      <Row label="elapsed" value={formatTimespan(p?.elapsedMs ?? 0) + (p?.stage === 'flushing' ? '  (flushing)' : '')} />
      {p?.etaMs !== undefined && p.stage !== 'flushing' && <Row label="left" value={`about ${formatTimespan(p.etaMs)}`} />}
    </Box>
  )
}

function Row({label, value}: {label: string; value: string}) {
  return (
    <Box>
      <Box width={12}>
        <Text dimColor>{label}</Text>
      </Box>
      <Text>{value}</Text>
    </Box>
  )
}

function Problems({kind, list, color}: {kind: string; list: ReportEntry[]; color: 'yellow' | 'red'}) {
  if (list.length === 0) return null
  const total = list.reduce((n, e) => n + e.count, 0)
  return (
    <Box flexDirection="column" marginLeft={2}>
      <Text color={colorOf(color)}>{`${kind} (${num(total)}):`}</Text>
      {list.map((e) => (
        <Box key={e.key} flexDirection="column" marginLeft={2}>
          <Text color={colorOf(color)}>{`${e.key} (${num(e.count)}):`}</Text>
          {e.examples.map((x, i) => (
            <Text key={i}>{`  - ${x}`}</Text>
          ))}
          {e.count > e.examples.length && <Text dimColor>{`  … and ${num(e.count - e.examples.length)} more`}</Text>}
        </Box>
      ))}
    </Box>
  )
}

export function IngestSummary({result}: {result: PipelineResult}) {
  const color = result.status === 'failures' ? 'red' : result.status === 'warnings' ? 'yellow' : 'green'
  return (
    <Box flexDirection="column">
      {reportSections(result).map((s) => (
        <Box key={s.title} flexDirection="column" marginTop={1}>
          <Text bold>{s.title}</Text>
          {s.rows.map((r, i) => (
            <Text key={i}>
              {'  '}
              <Text dimColor>{r.value === '' ? `${r.label}:` : `${r.label}: `}</Text>
              {r.value}
            </Text>
          ))}
          <Problems kind="warnings" list={s.warnings} color="yellow" />
          <Problems kind="failures" list={s.failures} color="red" />
        </Box>
      ))}
      <Box marginTop={1}>
        <Text bold color={colorOf(color)}>
          {result.summary}
        </Text>
      </Box>
    </Box>
  )
}

/** Elements for the render facade, so commands need not import React themselves. */
export function progressElement(props: LiveProps): ReactElement {
  return createElement(IngestProgress, props)
}

export function summaryElement(result: PipelineResult): ReactElement {
  return createElement(IngestSummary, {result})
}
