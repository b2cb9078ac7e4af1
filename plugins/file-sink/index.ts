/**
 * Sink `file`: writes proposals to a JSON file exactly as DataHub's file sink lays it out —
 * `[\n`, records pretty-printed with 4 spaces joined by `,\n`, then `\n]` — streamed, so the
 * file can be read back by the `file` source (or by DataHub).
 */
import {accessSync, constants, createWriteStream, existsSync, mkdirSync, statSync, type WriteStream} from 'node:fs'
import {dirname} from 'node:path'
import {FileError, type PluginContext, type Sink, type SinkPlugin, toFileRecord, configSchema, type ConfigOf} from '../../src/sdk/index.js'

export type FileSinkConfig = ConfigOf<typeof CONFIG>

function openStream(path: string): Promise<WriteStream> {
  return new Promise((resolve, reject) => {
    const s = createWriteStream(path)
    s.once('open', () => resolve(s))
    s.once('error', (e) => reject(new FileError(`Cannot write ${path}: ${e.message}`)))
  })
}

const CONFIG = configSchema({
  type: 'object',
  properties: {filename: {type: 'string', minLength: 1}, legacy_nested_json_string: {type: 'boolean'}},
  required: ['filename'],
  additionalProperties: false,
})

const plugin: SinkPlugin<FileSinkConfig> = {
  description: 'Writes proposals to a JSON file in DataHub file-sink layout.',
  configSchema: CONFIG,
  async create(config, ctx: PluginContext): Promise<Sink> {
    const path = ctx.resolvePath(config.filename)
    mkdirSync(dirname(path), {recursive: true})
    // Refuse an unwritable destination now, before the source runs, without touching the file.
    try {
      if (existsSync(path) && statSync(path).isDirectory()) throw new Error('it is a directory')
      accessSync(existsSync(path) ? path : dirname(path), constants.W_OK)
    } catch (e) {
      throw new FileError(`Cannot write ${path}: ${(e as Error).message}`)
    }
    // The file is opened (and an earlier one replaced) at the first record, or at the end of a
    // run that did not fail: a run that fails before writing anything leaves the file as it was.
    let out: WriteStream | undefined
    let failed: Error | undefined
    const open = async (): Promise<WriteStream> => {
      if (out) return out
      out = await openStream(path)
      out.on('error', (e) => (failed = e))
      await put(out, '[\n')
      return out
    }
    const report = ctx.report
    report.info('filename', path)
    let first = true
    let closed = false
    const put = async (s: WriteStream, text: string): Promise<void> => {
      if (failed) throw new FileError(`Cannot write ${path}: ${failed.message}`)
      if (!s.write(text)) await new Promise<void>((resolve) => s.once('drain', () => resolve()))
    }
    // DataHub's `legacy_nested_json_string`: each aspect as its JSON text under `value`.
    const record = config.legacy_nested_json_string === true ? legacyRecord : toFileRecord
    return {
      report,
      async write(wu) {
        if (wu.proposals.length === 0) return
        let text = ''
        for (const p of wu.proposals) {
          text += (first ? '' : ',\n') + JSON.stringify(record(p), null, 4)
          first = false
        }
        await put(await open(), text)
        report.count('recordsWritten', wu.proposals.length)
      },
      async flush() {},
      async close(end) {
        if (closed) return
        closed = true
        if (!out && end?.failed) return
        const s = await open()
        await new Promise<void>((resolve, reject) => {
          s.end('\n]', () => (failed ? reject(new FileError(`Cannot write ${path}: ${failed.message}`)) : resolve()))
        })
      },
    }
  },
}

function legacyRecord(p: Parameters<typeof toFileRecord>[0]): Record<string, unknown> {
  const r = toFileRecord(p)
  const a = r.aspect as {json?: unknown} | undefined
  if (a && a.json !== undefined) r.aspect = {value: JSON.stringify(a.json), contentType: 'application/json'}
  return r
}

export default plugin
