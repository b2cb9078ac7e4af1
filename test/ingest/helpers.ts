/**
 * Helpers shared by the ingestion tests: recipe files in temp dirs, running `mdcli ingest`, and
 * reading back what a file sink wrote.
 */
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import yaml from 'js-yaml'
import {FIXTURES, ROOT, runCli, type CliResult} from '../helpers/lite.js'

export const DATAHUB = join(FIXTURES, 'datahub')
export const DBT = join(FIXTURES, 'dbt')
export const BOOTSTRAP = join(DATAHUB, 'bootstrap_mce.json')
/** Fixtures written for mdcli's own tests (in the repository). */
export const OWN = join(ROOT, 'test', 'fixtures', 'files')

/** Writes `recipe` as YAML into `dir` and returns its path. */
export function writeRecipe(dir: string, recipe: Record<string, unknown>, name = 'recipe.yml'): string {
  const path = join(dir, name)
  writeFileSync(path, yaml.dump(recipe))
  return path
}

export function writeJson(dir: string, name: string, value: unknown): string {
  const path = join(dir, name)
  writeFileSync(path, JSON.stringify(value, null, 2))
  return path
}

export function readJson<T = any>(path: string): T {
  return JSON.parse(readFileSync(path, 'utf8')) as T
}

/** `mdcli ingest -c <recipe> --json …`; the parsed result when it printed one. */
export async function ingestJson(recipe: string, env: NodeJS.ProcessEnv, extra: string[] = [], cwd?: string): Promise<CliResult & {result?: any}> {
  const r = await runCli(['ingest', '-c', recipe, '--json', ...extra], {env, cwd})
  let result: any
  try {
    result = JSON.parse(r.stdout)
  } catch {
    /* not JSON: an error line went to stderr */
  }
  return {...r, result}
}

/**
 * Runs the recipe file in this process as `mdcli ingest` does (loaded with `env`, every plugin
 * resolved and its config checked, then the pipeline), for tests whose point is what a source
 * produces rather than the command: each spawned `mdcli ingest` pays again for loading the CLI,
 * the plugins and the aspect schemas, most of a small run's CPU. The command itself (its exit
 * codes, one-line errors, --json and progress output) keeps its tests through the real binary.
 * A setup error throws, where the command would print it and exit 1.
 */
export async function ingestHere(recipe: string, env: NodeJS.ProcessEnv): Promise<CliResult & {code: number; result: any}> {
  const [{loadRecipe}, {preparePipeline, runPipeline}, {PluginRegistry}] = await Promise.all([import('../../src/recipes/recipe.js'), import('../../src/recipes/pipeline.js'), import('../../src/recipes/registry.js')])
  const prepared = await preparePipeline(loadRecipe(recipe, env), {registry: PluginRegistry.discover()})
  const result = await runPipeline(prepared, {env})
  // As --json prints it: the plain data, no class instances. `stderr` holds what an assertion's
  // message needs when the run went wrong: the summary line and the source's report.
  const plain = JSON.parse(JSON.stringify(result))
  return {code: result.exitCode, result: plain, stdout: '', stderr: `${result.summary}\n${JSON.stringify(plain.source.report)}`}
}

/**
 * Runs the recipe file in this process (`here`, see ingestHere) or through the real `mdcli ingest
 * --json` (`cli`: where the command's own output is what a test checks).
 */
export function ingestVia(via: 'here' | 'cli', recipe: string, env: NodeJS.ProcessEnv, extra: string[] = []): Promise<CliResult & {result?: any}> {
  if (via === 'here' && extra.length > 0) throw new Error('ingestVia: command-line flags need the command (via cli)')
  return via === 'cli' ? ingestJson(recipe, env, extra) : ingestHere(recipe, env)
}

/** Env for CLI runs that must not find any server (no config file, no env). */
export function offlineEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {...process.env, HOME: home, NO_COLOR: '1', METADATA_TELEMETRY_ENABLED: 'false'}
  delete env.METADATA_GMS_URL
  delete env.METADATA_GMS_HOST
  delete env.METADATA_GMS_PORT
  delete env.METADATA_GMS_TOKEN
  delete env.MDCLI_CONFIG_FILE
  return env
}

export function mcpRecord(urn: string, aspectName: string, value: unknown): Record<string, unknown> {
  return {entityType: urn.split(':')[2], entityUrn: urn, changeType: 'UPSERT', aspectName, aspect: {json: value}}
}

export function datasetUrn(name: string, platform = 'hive'): string {
  return `urn:li:dataset:(urn:li:dataPlatform:${platform},${name},PROD)`
}
