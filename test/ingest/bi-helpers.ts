/**
 * Shared by the BI-source tests (Metabase, Mode): running one of DataHub's recipes against a
 * local stand-in of the tool's API, and preparing its output for the golden comparison.
 */
import {readFileSync, readdirSync} from 'node:fs'
import {join} from 'node:path'
import yaml from 'js-yaml'
import {ingestVia, readJson, writeRecipe} from './helpers.js'

/** The recipe file with `${VAR}`s filled in and a file sink into `dir`. */
export function datahubRecipe(path: string, vars: Record<string, string>, out: string): Record<string, any> {
  let text = readFileSync(path, 'utf8')
  for (const [k, v] of Object.entries(vars)) text = text.split('${' + k + '}').join(v)
  const recipe = yaml.load(text) as Record<string, any>
  recipe.sink = {type: 'file', config: {filename: out}}
  return recipe
}

/**
 * Runs `recipe` through `mdcli ingest --json` (or, `via: 'here'`, in this process as the command
 * does, where only what the source produces and reports is checked); returns the exit code,
 * result and what the sink wrote.
 */
export async function runRecipe(dir: string, recipe: Record<string, any>, env: NodeJS.ProcessEnv, extra: string[] = [], via: 'cli' | 'here' = 'cli'): Promise<{code: number | null; result: any; stderr: string; stdout: string; records: any[]; startedAt: number; endedAt: number}> {
  const startedAt = Date.now()
  const r = await ingestVia(via, writeRecipe(dir, recipe), env, extra)
  const endedAt = Date.now()
  let records: any[] = []
  try {
    records = readJson(recipe.sink.config.filename)
  } catch {
    /* nothing written */
  }
  return {code: r.code, result: r.result, stderr: r.stderr, stdout: r.stdout, records, startedAt, endedAt}
}

/**
 * DataHub's tests freeze the clock; ours cannot. Every `time`/`timestampMillis` that fell inside
 * the run (a value the source took from "now") becomes the golden's frozen time, and nothing else.
 */
export function freezeClock(value: unknown, from: number, to: number, frozen: number): unknown {
  if (Array.isArray(value)) return value.map((v) => freezeClock(v, from, to, frozen))
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) out[k] = typeof v === 'number' && v >= from && v <= to ? frozen : freezeClock(v, from, to, frozen)
    return out
  }
  return value
}

/** The recorded JSON answers of a fixture's `setup/` folder, by file name. */
export function recordedAnswers(setupDir: string): Map<string, unknown> {
  const m = new Map<string, unknown>()
  for (const f of readdirSync(setupDir)) if (f.endsWith('.json')) m.set(f, JSON.parse(readFileSync(join(setupDir, f), 'utf8')))
  return m
}
