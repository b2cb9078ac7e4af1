import {Flags} from '@oclif/core'
import {request} from 'undici'
import {BaseCommand} from '../../cli/base.js'
import {ConnectionError, MdcliError, UnauthorizedError} from '../../errors.js'

interface Change {
  id: number
  mcl: {entityType: string; entityUrn: string; changeType: string; aspectName?: string; created: {time: number; actor: string}}
  changeEvents: Array<{category: string; operation: string; description: string}>
}

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
    '<%= config.bin %> events tail --since 1200    # resume after the change with id 1200',
  ]

  static override enableJsonFlag = false
  static override flags = {
    'entity-type': Flags.string({char: 't', summary: 'Only changes of this entity type.'}),
    aspect: Flags.string({char: 'a', summary: 'Only changes of this aspect.'}),
    'urn-prefix': Flags.string({summary: 'Only entities whose urn starts with this.'}),
    since: Flags.integer({summary: 'Resume after this change id (the server holds the last 10,000).', min: 0}),
    limit: Flags.integer({summary: 'Stop after this many changes.', min: 1}),
    json: Flags.boolean({summary: 'One JSON object per line.', default: false}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(EventsTail)
    const s = this.settings()
    const q = new URLSearchParams()
    if (flags['entity-type']) q.set('entityType', flags['entity-type'])
    if (flags.aspect) q.set('aspect', flags.aspect)
    if (flags['urn-prefix']) q.set('urnPrefix', flags['urn-prefix'])
    const url = `${s.server.replace(/\/+$/, '')}/events${q.size > 0 ? `?${q}` : ''}`
    const headers: Record<string, string> = {accept: 'text/event-stream'}
    if (s.token) headers.authorization = `Bearer ${s.token}`
    if (flags.since !== undefined) headers['last-event-id'] = String(flags.since)
    const ac = new AbortController()
    const stop = () => ac.abort()
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
    let res
    try {
      res = await request(url, {headers, signal: ac.signal, bodyTimeout: 0, headersTimeout: 10_000})
    } catch (error) {
      throw new ConnectionError(`Could not reach the mdcli server at ${s.server} (${(error as Error).message}; the address is from ${s.serverFrom}). Is \`mdcli lite\` running?`)
    }
    if (res.statusCode === 401) throw new UnauthorizedError(`The server refused the change log: ${((await res.body.json().catch(() => ({}))) as {message?: string}).message ?? 'unauthorized'}`)
    if (res.statusCode !== 200) throw new MdcliError('E_SERVER', res.statusCode, `The server answered ${res.statusCode} to GET /events`)
    if (!flags.json) this.log(`Following changes on ${s.server}${q.size > 0 ? ` (${q})` : ''}; Ctrl-C to stop.`)
    let seen = 0
    let buf = ''
    try {
      for await (const chunk of res.body) {
        buf += chunk.toString()
        let end: number
        while ((end = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, end)
          buf = buf.slice(end + 2)
          const data = block.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n')
          const event = block.split('\n').find((l) => l.startsWith('event: '))?.slice(7)
          if (!data) continue
          if (event === 'gap') {
            process.stderr.write(`Warning: ${JSON.parse(data).message}\n`)
            continue
          }
          const id = Number(block.split('\n').find((l) => l.startsWith('id: '))?.slice(4))
          const c = {id, ...JSON.parse(data)} as Change
          if (flags.json) this.log(JSON.stringify(c))
          else this.log(render(c))
          if (flags.limit && ++seen >= flags.limit) {
            ac.abort()
            return
          }
        }
      }
    } catch (error) {
      if (ac.signal.aborted) return
      throw error
    } finally {
      process.off('SIGINT', stop)
      process.off('SIGTERM', stop)
    }
  }
}

function render(c: Change): string {
  const when = new Date(c.mcl.created.time).toISOString().replace('T', ' ').slice(0, 19)
  const head = `${String(c.id).padStart(6)}  ${when}  ${c.mcl.changeType.padEnd(6)}  ${c.mcl.entityUrn}${c.mcl.aspectName ? `  ${c.mcl.aspectName}` : ''}  by ${c.mcl.created.actor}`
  return [head, ...c.changeEvents.map((e) => `          ${e.category} ${e.operation}: ${e.description}`)].join('\n')
}
