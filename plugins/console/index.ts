/**
 * Sink `console`: prints each proposal as one JSON line on standard output, for looking at
 * what a recipe produces or piping it elsewhere.
 */
import {type PluginContext, type Sink, type SinkPlugin, toFileRecord} from '../../src/sdk/index.js'

const plugin: SinkPlugin<Record<string, never>> = {
  description: 'Prints every proposal as a JSON line on standard output.',
  configSchema: {type: 'object', properties: {}, additionalProperties: false},
  create(_config, ctx: PluginContext): Sink {
    const out = ctx.stdout
    const report = ctx.report
    return {
      report,
      async write(wu) {
        let text = ''
        for (const p of wu.proposals) text += JSON.stringify(toFileRecord(p)) + '\n'
        if (!out.write(text)) await new Promise<void>((resolve) => out.once('drain', () => resolve()))
        report.count('recordsWritten', wu.proposals.length)
      },
      async flush() {},
      async close() {},
    }
  },
}

export default plugin
