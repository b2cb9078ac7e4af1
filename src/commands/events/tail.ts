import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base.js'
import {resolveEntityType} from '../../catalog/delete.js'
import {changeStreamQuery} from '../../client/client.js'
import {ConnectionError, UnauthenticatedError, UsageError} from '../../errors.js'
import {aspectSpec} from '../../model/registry.js'
import {changeLines} from '../../ui/change-log.js'

export default class EventsTail extends BaseCommand {
  static override summary = 'Follow the change log: every committed change, as it happens.'
  static override description = `Subscribes to the server's change log (GET /events, Server-Sent Events) and prints each change —
upserts, deletes, soft deletes, rollbacks — with the entity change events it implies (tag added,
owner removed, …). With --json, one line per change: {id, mcl, changeEvents}, mcl in DataHub's
MetadataChangeLog shape. Stops on Ctrl-C, or after --limit changes.`
  static override examples = [
    '<%= config.bin %> events tail',
    '<%= config.bin %> events tail --entity-type dataset --aspect globalTags',
    '<%= config.bin %> events tail --urn-prefix "urn:li:dataset:(urn:li:dataPlatform:postgres" --json | jq .mcl.entityUrn',
    '<%= config.bin %> events tail --since 1754380800000042    # resume after the change with this id (--json shows ids)',
  ]

  static override enableJsonFlag = false
  static override flags = {
    'entity-type': Flags.string({char: 't', summary: 'Only changes of this entity type.'}),
    aspect: Flags.string({char: 'a', summary: 'Only changes of this aspect (and hard deletes of whole entities, which remove it too).'}),
    'urn-prefix': Flags.string({summary: 'Only entities whose urn starts with this.'}),
    since: Flags.integer({summary: 'Resume after this change id (the server holds the last 10,000; an id from before the server restarted, or too old, is warned of as a gap). 0: everything held.', min: 0}),
    limit: Flags.integer({summary: 'Stop after this many changes.', min: 1}),
    json: Flags.boolean({summary: 'One JSON object per line.', default: false}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(EventsTail)
    // A misspelt type would wait forever for changes that cannot come.
    // A mistyped aspect would wait forever for changes that never come, as a mistyped type would.
    if (flags.aspect !== undefined && !aspectSpec(flags.aspect)) throw new UsageError(`Unknown aspect '${flags.aspect}' (-a/--aspect); aspect names are as DataHub's, e.g. datasetProperties, globalTags, ownership`)
    const filters = {entityType: flags['entity-type'] === undefined ? undefined : resolveEntityType(flags['entity-type']), aspect: flags.aspect, urnPrefix: flags['urn-prefix']}
    const ac = new AbortController()
    const stop = () => ac.abort()
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
    const client = this.client()
    let seen = 0
    let lastId: number | undefined
    let opened = false
    let ended = false
    const closed = () => {
      const resume = lastId === undefined ? '' : `; resume with \`mdcli events tail --since ${lastId}\``
      return new ConnectionError(`The server at ${client.server} closed the change stream after ${seen} change(s)${resume}`)
    }
    try {
      for await (const m of client.followChanges({...filters, since: flags.since, signal: ac.signal})) {
        if (m.kind === 'open') {
          opened = true
          const q = changeStreamQuery(filters)
          if (!flags.json) this.log(`Following changes on ${client.server}${q.size > 0 ? ` (${q})` : ''}; Ctrl-C to stop.`)
          continue
        }
        if (m.kind === 'refused') throw new UnauthenticatedError(m.message)
        if (m.kind === 'gap') {
          process.stderr.write(`Warning: ${m.message}\n`)
          continue
        }
        this.log(flags.json ? JSON.stringify(m.change) : changeLines(m.change))
        lastId = m.change.id
        if (++seen === flags.limit) return
      }
      ended = !ac.signal.aborted
    } catch (e) {
      // A connection lost after the stream opened is the same ending as a closed stream.
      if (!opened || !(e instanceof ConnectionError) || ac.signal.aborted) throw e
      ended = true
    } finally {
      ac.abort()
      process.off('SIGINT', stop)
      process.off('SIGTERM', stop)
      await client.close()
    }
    // The stream ended though nobody asked it to: the server stopped or cut the connection.
    if (ended) throw closed()
  }
}
