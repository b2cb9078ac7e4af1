/**
 * Recipes: the file that says where metadata comes from and where it goes.
 *
 * ```yaml
 * source: {type: file, config: {path: ./mce.json}}
 * sink: {type: datahub-rest, config: {server: http://localhost:8080}}   # datahub-rest to the configured server when omitted
 * transformers: [{type: simple_add_dataset_tags, config: {tag_urns: [urn:li:tag:pii]}}]
 * pipeline_name: nightly-glossary     # optional, stamped into systemMetadata.pipelineName
 * run_id: my-run                      # optional, default <source type>-YYYY_MM_DD-HH_MM_SS
 * ```
 *
 * Loading = read (.yaml/.yml/.toml/.json, `-` for stdin) → parse → expand `${VAR}` in string
 * values → validate the recipe's shape. Plugin configs are validated by the pipeline once the
 * plugins are resolved, still before anything runs.
 */
import {existsSync, statSync} from 'node:fs'
import {dirname, extname, resolve} from 'node:path'
import {ConfigError, FileError, ParseError} from '../errors.js'
import {formatOf, parseData, readText} from '../sdk/files.js'
import {expandEnv} from './env.js'
import type {JsonSchema} from '../sdk/plugin.js'
import {validateConfig} from '../sdk/validate.js'

export interface PluginRef {
  type: string
  config: Record<string, unknown>
}

export interface Recipe {
  source: PluginRef
  sink: PluginRef
  transformers: PluginRef[]
  pipeline_name?: string
  run_id?: string
  /** Server for reads (PATCH semantics, preserve_upstream) when the sink is not datahub-rest. */
  datahub_api?: {server?: string; token?: string; disable_ssl_verification?: boolean; ca_certificate_path?: string | null; client_certificate_path?: string | null}
  /** DataHub's failure log: records the sink refused, written as a `file` sink writes (its `log_config`). */
  failure_log?: {enabled?: boolean; log_config?: Record<string, unknown> | null}
  /** Absolute path of the recipe, or `standard input`. */
  file: string
  /** Directory that relative paths in the recipe are resolved against. */
  baseDir: string
}

const pluginRef = (): JsonSchema => ({
  type: 'object',
  properties: {
    type: {type: 'string', minLength: 1},
    config: {type: ['object', 'null']},
  },
  required: ['type'],
  additionalProperties: false,
})

/** The recipe's own shape (plugin configs are checked against each plugin's schema later). */
export const RECIPE_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    source: {
      ...pluginRef(),
      properties: {
        type: {type: 'string', minLength: 1},
        config: {type: ['object', 'null']},
        // Accepted for DataHub recipes; mdcli has one extractor.
        extractor: {type: 'string'},
        extractor_config: {type: 'object'},
      },
    },
    sink: pluginRef(),
    transformers: {type: ['array', 'null'], items: pluginRef()},
    pipeline_name: {type: 'string', minLength: 1},
    run_id: {type: 'string', minLength: 1},
    datahub_api: {
      type: 'object',
      properties: {server: {type: 'string'}, token: {type: ['string', 'null']}, timeout_sec: {type: 'number'}, disable_ssl_verification: {type: 'boolean'}, ca_certificate_path: {type: ['string', 'null']}, client_certificate_path: {type: ['string', 'null']}},
      additionalProperties: true,
    },
    failure_log: {
      type: 'object',
      properties: {enabled: {type: 'boolean'}, log_config: {type: ['object', 'null']}},
      additionalProperties: false,
    },
    // DataHub keys that mdcli accepts and ignores, so existing recipes load unchanged: reporting
    // hooks post DataHub's own run reports, and flags are DataHub's experimental switches.
    reporting: {type: 'array'},
    flags: {type: 'object'},
  },
  required: ['source'],
  additionalProperties: false,
}

const EXTENSIONS = ['.yaml', '.yml', '.toml', '.json']

/** Parses recipe text that was already read; `file` names it in errors. */
/**
 * Offset of the first JSON syntax error in `text` (a small recursive-descent checker), because
 * V8's JSON errors name a position only for some mistakes.
 */
export function jsonErrorOffset(text: string): number | undefined {
  let i = 0
  const ws = (): void => {
    while (i < text.length && ' \t\r\n'.includes(text[i]!)) i++
  }
  const fail = (): never => {
    throw i
  }
  const lit = (w: string): void => {
    if (text.startsWith(w, i)) i += w.length
    else fail()
  }
  const str = (): void => {
    if (text[i] !== '"') fail()
    i++
    while (i < text.length && text[i] !== '"') {
      if (text[i] === '\\') i++
      else if (text.charCodeAt(i) < 0x20) fail()
      i++
    }
    if (i >= text.length) fail()
    i++
  }
  const value = (): void => {
    ws()
    const c = text[i]
    if (c === '{') {
      i++
      ws()
      if (text[i] === '}') return void i++
      for (;;) {
        ws()
        str()
        ws()
        lit(':')
        value()
        ws()
        if (text[i] === ',') i++
        else if (text[i] === '}') return void i++
        else fail()
      }
    }
    if (c === '[') {
      i++
      ws()
      if (text[i] === ']') return void i++
      for (;;) {
        value()
        ws()
        if (text[i] === ',') i++
        else if (text[i] === ']') return void i++
        else fail()
      }
    }
    if (c === '"') return str()
    if (c === 't') return lit('true')
    if (c === 'f') return lit('false')
    if (c === 'n') return lit('null')
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 64))
    if (!m) fail()
    i += m![0].length
  }
  try {
    value()
    ws()
    return i < text.length ? i : undefined
  } catch (at) {
    return at as number
  }
}

function parseJsonWithLine(text: string, file: string): unknown {
  try {
    return parseData(text, 'json', file)
  } catch (e) {
    if (!(e instanceof ParseError) || /\(line \d+\)/.test(e.message)) throw e
    const at = jsonErrorOffset(text)
    if (at === undefined) throw e
    const line = text.slice(0, at).split('\n').length
    throw new ParseError(e.message.replace(' is not valid JSON', ` is not valid JSON (line ${line})`))
  }
}

export function parseRecipe(text: string, file: string, format: 'yaml' | 'toml' | 'json', env: NodeJS.ProcessEnv, baseDir: string): Recipe {
  const doc = format === 'json' ? parseJsonWithLine(text, file) : parseData(text, format, file)
  if (doc === null || doc === undefined) throw new ConfigError(`${file} is empty; a recipe needs at least a 'source'`)
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new ConfigError(`${file} must hold a mapping with 'source' (and optionally 'sink', 'transformers')`)
  const expanded = expandEnv(doc, env, file) as Record<string, any>
  validateConfig(RECIPE_SCHEMA, expanded, {file, base: '', what: 'recipe'})
  const ref = (r: {type: string; config?: Record<string, unknown> | null}): PluginRef => ({type: r.type, config: r.config ?? {}})
  return {
    source: ref(expanded.source),
    // DataHub's default: the REST sink to the configured server (a console sink writes nothing anywhere).
    sink: expanded.sink ? ref(expanded.sink) : {type: 'datahub-rest', config: {}},
    transformers: (expanded.transformers ?? []).map(ref),
    pipeline_name: expanded.pipeline_name,
    run_id: expanded.run_id,
    datahub_api: expanded.datahub_api,
    ...(expanded.failure_log ? {failure_log: expanded.failure_log} : {}),
    file,
    baseDir,
  }
}

/** Reads, parses, expands and validates a recipe file (`-` = standard input, YAML). */
export function loadRecipe(path: string, env: NodeJS.ProcessEnv = process.env): Recipe {
  if (path === '-') return parseRecipe(readText('-'), 'standard input', 'yaml', env, process.cwd())
  const abs = resolve(path)
  const ext = extname(abs).toLowerCase()
  if (!EXTENSIONS.includes(ext)) {
    throw new ConfigError(`Only .toml, .yml, .yaml and .json recipes are supported. Cannot process file type ${ext || '(none)'} (${abs})`)
  }
  if (!existsSync(abs)) throw new FileError(`Cannot open config file ${abs}`)
  if (statSync(abs).isDirectory()) throw new FileError(`Cannot open config file ${abs}: it is a directory`)
  return parseRecipe(readText(abs), abs, formatOf(abs), env, dirname(abs))
}

function pad(n: number): string {
  return String(n).padStart(2, '0')
}

/** DataHub's default run id: `<source type>-YYYY_MM_DD-HH_MM_SS` in local time. */
export function defaultRunId(sourceType: string, at: Date): string {
  return `${sourceType}-${at.getFullYear()}_${pad(at.getMonth() + 1)}_${pad(at.getDate())}-${pad(at.getHours())}_${pad(at.getMinutes())}_${pad(at.getSeconds())}`
}
