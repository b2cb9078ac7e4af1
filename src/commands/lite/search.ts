import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base.js'
import {withLocalCatalog} from '../../cli/local-store.js'
import {defaultStoreDir, defaultStoreHelp} from '../../config/settings.js'
import type {SearchHit} from '../../store/types.js'
import {resolveEntityType} from '../../catalog/delete.js'

export default class LiteSearch extends BaseCommand {
  static override summary = 'Full-text search of a stopped lite store (DataHub Lite\'s search).'
  static override description = `The same search the server runs (names, descriptions, urn parts, tags, terms, owners), on the
store directory directly; stop \`mdcli lite\` first, or use \`mdcli search\` against the running server.`
  static override examples = [
    '<%= config.bin %> lite search customers',
    '<%= config.bin %> lite search orders --entity-type dataset --count 50 --json',
  ]

  static override args = {query: Args.string({description: 'What to look for; * lists everything.', default: '*'})}
  static override flags = {
    'entity-type': Flags.string({char: 't', summary: 'Only this entity type.', multiple: true}),
    start: Flags.integer({summary: 'Offset of the first result.', default: 0, min: 0}),
    count: Flags.integer({summary: 'Number of results.', default: 20, min: 0, max: 10_000}),
    store: Flags.string({summary: 'Store directory.', defaultHelp: defaultStoreHelp}),
  }

  async run(): Promise<{total: number; hits: SearchHit[]}> {
    const {args, flags} = await this.parse(LiteSearch)
    return withLocalCatalog(flags.store, `search '${args.query}'`, (m) => this.warn(m), async (catalog) => {
      const r = await catalog.search({query: args.query, ...(flags['entity-type'] ? {types: flags['entity-type'].map(resolveEntityType)} : {}), start: flags.start, count: flags.count})
      if (!this.jsonEnabled()) {
        if (r.hits.length === 0) this.log('No entities found.')
        for (const h of r.hits) this.log(`${h.entityType.padEnd(14)}  ${h.urn}`)
        if (r.hits.length > 0) this.log(`\n${flags.start + 1}–${flags.start + r.hits.length} of ${r.total}`)
      }
      return {total: r.total, hits: r.hits}
    })
  }
}
