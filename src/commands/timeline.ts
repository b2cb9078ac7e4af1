import {Flags} from '@oclif/core'
import {BaseCommand} from '../cli/base.js'
import {calendarDate} from '../cli/delete.js'
import {prettyJson} from '../cli/json.js'
import {CHANGE_CATEGORIES, fieldPathV1, parseCategories, type ChangeTransaction} from '../model/change-events.js'
import {MdcliError, UsageError} from '../errors.js'
import {parseUrn} from '../model/urn.js'

const UNITS: Record<string, number> = {minute: 60_000, hour: 3_600_000, day: 86_400_000, week: 7 * 86_400_000}

/**
 * `now`, `<N>daysago` (also hours, minutes, weeks), epoch milliseconds, or an ISO date/time
 * (`2024-05-01`, `2024-05-01T12:00:00Z`) → epoch ms.
 */
export function parseTime(expr: string, now: number, flag: string): number {
  const e = expr.trim().toLowerCase()
  if (e === 'now') return now
  const rel = /^(\d+)\s*(minute|min|hour|day|week)s?\s*ago$/.exec(e)
  if (rel) return now - Number(rel[1]) * UNITS[rel[2] === 'min' ? 'minute' : rel[2]!]!
  if (/^\d+$/.test(e)) return Number(e)
  if (/^\d{4}-\d{2}-\d{2}/.test(e)) {
    const t = Date.parse(expr.trim())
    if (!Number.isNaN(t) && calendarDate(expr)) return t
  }
  throw new UsageError(
    `Cannot read ${flag} '${expr}': use now, <N>daysago, <N>hoursago, <N>minutesago, epoch milliseconds, or an ISO date such as 2024-05-01 or 2024-05-01T12:00:00Z`,
  )
}

/** DataHub's CLI shorthand: dataset urns as `dataset:<platform>:<name>`, schema fields as `field:<path>`. */
export function prettyId(id: string): string {
  if (id.startsWith('urn:li:schemaField:') || id.startsWith('urn:li:datasetField:')) {
    try {
      const u = parseUrn(id)
      return `field:${fieldPathV1(u.parts[u.parts.length - 1]!)}`
    } catch {
      return id
    }
  }
  if (id.startsWith('urn:li:dataset:')) {
    try {
      const u = parseUrn(id)
      const platform = u.parts[0]!.replace(/^urn:li:dataPlatform:/, '')
      return `dataset:${platform}:${u.parts[1]}`
    } catch {
      return id
    }
  }
  if (id.startsWith('[version=')) return `field:${fieldPathV1(id)}`
  return id
}

function localTime(ms: number): string {
  const d = new Date(ms)
  const p = (n: number) => String(n).padStart(2, '0')
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`
}

export default class Timeline extends BaseCommand {
  static override summary = 'Show the history of a dataset as change events with computed semantic versions.'
  static override description = `Lists what changed on a dataset between --start and --end (default: the last 7 days): one line per change transaction (local time and the computed semantic version), then one tab-indented line per change — kind (ADD, REMOVE, MODIFY), category, target, the tag, term, owner or column it concerns, and a description. Schema changes decide the version: a removed column or a changed native type is a major change, an added column a minor one. Only datasets have a timeline.

Categories: ${CHANGE_CATEGORIES.join(', ')} (case-insensitive; all when none is given).

Times: now, 7daysago, 24hoursago, 30minutesago, epoch milliseconds, or an ISO date or date-time (a date alone is midnight UTC).`
  static override examples = [
    '<%= config.bin %> timeline --urn "urn:li:dataset:(urn:li:dataPlatform:hive,logs,PROD)"',
    '<%= config.bin %> timeline --urn "urn:li:dataset:(urn:li:dataPlatform:hive,logs,PROD)" -c TAG -c technical_schema --start 30daysago',
    '<%= config.bin %> timeline --urn "urn:li:dataset:(urn:li:dataPlatform:hive,logs,PROD)" --start 2024-05-01 --end now --raw',
    '<%= config.bin %> timeline --urn "urn:li:dataset:(urn:li:dataPlatform:hive,logs,PROD)" --verbose',
  ]

  static override flags = {
    urn: Flags.string({summary: 'Dataset urn.', required: true}),
    category: Flags.string({char: 'c', summary: `Change category to show (repeatable): ${CHANGE_CATEGORIES.join(', ')}.`, multiple: true}),
    start: Flags.string({summary: 'Start of the window (default: 7 days before --end).', helpValue: '7daysago'}),
    end: Flags.string({summary: 'End of the window (default: now).', helpValue: 'now'}),
    verbose: Flags.boolean({char: 'v', summary: 'Print the full API answer as JSON.', default: false}),
    raw: Flags.boolean({summary: 'Include the raw JSON difference (RFC 6902 patch) of each change.', default: false}),
  }

  async run(): Promise<ChangeTransaction[]> {
    const {flags} = await this.parse(Timeline)
    let categories
    try {
      categories = parseCategories(flags.category ?? [])
    } catch (e) {
      throw e instanceof MdcliError ? new UsageError(e.message) : e
    }
    const now = Date.now()
    const endTime = flags.end === undefined ? undefined : parseTime(flags.end, now, '--end')
    const startTime = flags.start === undefined ? undefined : parseTime(flags.start, now, '--start')
    if (startTime !== undefined && endTime !== undefined && startTime > endTime) throw new UsageError(`--start (${flags.start}) is after --end (${flags.end})`)
    // Without --end the window ends now: a start in the future is the same mistake.
    if (startTime !== undefined && endTime === undefined && startTime > now) throw new UsageError(`--start (${flags.start}) is in the future; the window ends now unless --end says otherwise`)
    const urn = parseUrn(flags.urn)
    if (urn.entityType !== 'dataset') throw new UsageError(`The timeline covers datasets only; ${flags.urn} is a ${urn.entityType}`)
    const client = this.client()
    const transactions = await client.timeline(flags.urn, {categories, startTime, endTime, raw: flags.raw})
    // No change could also mean no dataset (a typo in the urn): that is an error, not an empty window.
    if (transactions.length === 0) await client.getEntity(flags.urn)
    if (this.jsonEnabled()) return transactions
    if (flags.verbose) {
      this.log(prettyJson(transactions))
      return transactions
    }
    const color = process.stdout.isTTY === true && !process.env.NO_COLOR
    const paint = (code: number, s: string) => (color ? `\u001B[${code}m${s}\u001B[0m` : s)
    for (const tx of transactions) {
      const good = tx.semVerChange === 'MINOR' || tx.semVerChange === 'PATCH'
      this.log(`${paint(36, localTime(tx.timestamp))} - ${paint(good ? 32 : 31, tx.semVer)}`)
      for (const ev of tx.changeEvents) {
        const modifier = ev.modifier ? ` (${prettyId(ev.modifier)})` : ''
        this.log(`\t${paint(ev.semVerChange === 'MINOR' ? 32 : 31, ev.operation)} ${ev.category} ${prettyId(ev.entityUrn)}${modifier}: ${ev.description}`)
      }
      if (tx.rawDiff) this.log(`\traw: ${JSON.stringify(tx.rawDiff)}`)
    }
    if (transactions.length === 0) process.stderr.write('No changes in this window.\n')
    return transactions
  }
}
