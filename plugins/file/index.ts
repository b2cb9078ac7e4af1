/**
 * Source `file`: change-event files (MCEs and MCPs, as DataHub's file sink writes them and as
 * its examples ship), streamed record by record so the file may be larger than memory.
 *
 * Config (DataHub's names): `path` (a file or a directory; `filename` is accepted too),
 * `file_extension` (directory filter, default `.json`, `*` = all), `aspect` (only proposals of
 * this aspect), `read_mode` and `count_all_before_starting` (accepted; mdcli always streams).
 * Each bad record is a failure naming its index and line; the rest of the file goes on.
 */
import {FileError, eventFiles, readEventRecords, totalBytes, type PluginContext, type Source, type SourcePlugin, type WorkUnit, configSchema, type ConfigOf} from '../../src/sdk/index.js'

const CONFIG = configSchema({
  type: 'object',
  properties: {
    path: {type: 'string', minLength: 1},
    filename: {type: 'string', minLength: 1},
    file_extension: {type: 'string', default: '.json'},
    aspect: {type: 'string'},
    read_mode: {enum: ['AUTO', 'STREAM', 'BATCH']},
    count_all_before_starting: {type: 'boolean'},
  },
  anyOf: [{required: ['path']}, {required: ['filename']}],
  additionalProperties: false,
})
export type FileSourceConfig = ConfigOf<typeof CONFIG>

const plugin: SourcePlugin<FileSourceConfig> = {
  description: 'Reads MCE/MCP change-event files (JSON), streamed.',
  configSchema: CONFIG,
  create(config, ctx: PluginContext): Source {
    const path = ctx.resolvePath((config.path ?? config.filename)!)
    const files = eventFiles(path, config.file_extension)
    if (files.length === 0) throw new FileError(`No ${config.file_extension} files in ${path}`)
    const total = totalBytes(files)
    let done = 0
    const report = ctx.report
    report.info('files', files.length === 1 ? files[0] : `${files.length} files in ${path}`)
    report.info('totalBytes', total)
    return {
      report,
      progress: () => (total > 0 ? Math.min(1, done / total) : undefined),
      async *workunits(): AsyncGenerator<WorkUnit> {
        for await (const r of readEventRecords(files, {aspect: config.aspect, onBytes: (n) => (done = n)})) {
          if (r.error !== undefined) {
            report.failure(r.index < 0 ? 'unreadable file' : 'invalid record', files.length > 1 && r.index >= 0 ? `${r.file} ${r.error}` : r.error)
            continue
          }
          if (r.skipped !== undefined) {
            report.warning('skipped record', r.skipped)
            continue
          }
          report.count(r.kind === 'mce' ? 'mces' : 'mcps')
          if (r.proposals!.length === 0) continue
          yield {id: r.id, kind: r.kind!, proposals: r.proposals!}
        }
        report.info('bytesRead', done)
      },
    }
  },
}

export default plugin
