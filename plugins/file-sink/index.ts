/**
 * Sink `file`: writes proposals to a JSON file exactly as DataHub's file sink lays it out —
 * `[\n`, records pretty-printed with 4 spaces joined by `,\n`, then `\n]` — streamed, so the
 * file can be read back by the `file` source (or by DataHub).
 */
import {createWriteStream, mkdirSync, type WriteStream} from 'node:fs'
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
    const out = await openStream(path)
    let failed: Error | undefined
    out.on('error', (e) => (failed = e))
    const report = ctx.report
    report.info('filename', path)
    let first = true
    let closed = false
    const put = async (text: string): Promise<void> => {
      if (failed) throw new FileError(`Cannot write ${path}: ${failed.message}`)
      if (!out.write(text)) await new Promise<void>((resolve) => out.once('drain', () => resolve()))
    }
    await put('[\n')
    return {
      report,
      async write(wu) {
        let text = ''
        for (const p of wu.proposals) {
          text += (first ? '' : ',\n') + JSON.stringify(toFileRecord(p), null, 4)
          first = false
        }
        await put(text)
        report.count('recordsWritten', wu.proposals.length)
      },
      async flush() {},
      async close() {
        if (closed) return
        closed = true
        await new Promise<void>((resolve, reject) => {
          out.end('\n]', () => (failed ? reject(new FileError(`Cannot write ${path}: ${failed.message}`)) : resolve()))
        })
      },
    }
  },
}

export default plugin
