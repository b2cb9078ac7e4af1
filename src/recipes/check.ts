/**
 * `check mce-file`: validates a change-event file record by record, streamed, with the same
 * reader the `file` source uses and the same checks the server applies (`prepareProposal`:
 * urn, entity type, aspect name, value against the aspect's schema).
 */
import {prepareProposal} from '../catalog/proposal.js'
import {eventFiles, readEventRecords} from '../sdk/events-file.js'

export interface BadRecord {
  file: string
  /** Position in the file's top-level array; -1 when the file as a whole is unreadable. */
  index: number
  urn?: string
  reason: string
}

export interface FileCheckResult {
  files: string[]
  /** Records read (DataHub counts them as MCEs, whatever their kind). */
  records: number
  proposals: number
  /** Legacy usage records (UsageAggregation), skipped as ingestion skips them. */
  skipped: number
  bad: BadRecord[]
  /** Bad records beyond those listed in `bad`. */
  moreBad: number
  valid: boolean
}

const MAX_LISTED = 1000

export async function checkEventFile(path: string, opts: {fileExtension?: string} = {}): Promise<FileCheckResult> {
  const files = eventFiles(path, opts.fileExtension ?? '.json')
  const result: FileCheckResult = {files, records: 0, proposals: 0, skipped: 0, bad: [], moreBad: 0, valid: true}
  const fail = (b: BadRecord): void => {
    result.valid = false
    if (result.bad.length < MAX_LISTED) result.bad.push(b)
    else result.moreBad++
  }
  for await (const r of readEventRecords(files)) {
    if (r.index >= 0) result.records++
    if (r.error !== undefined) {
      // Messages from the reader start with "record N (line L): "; keep only the reason.
      fail({file: r.file, index: r.index, urn: r.urn, reason: r.error.replace(/^record \d+ \(line \d+\): /, '')})
      continue
    }
    if (r.skipped !== undefined) {
      result.skipped++
      continue
    }
    for (const p of r.proposals!) {
      result.proposals++
      try {
        prepareProposal(p, `aspect ${String(p.aspectName)}`)
      } catch (e) {
        fail({file: r.file, index: r.index, urn: typeof p.entityUrn === 'string' ? p.entityUrn : r.urn, reason: (e as Error).message})
        break
      }
    }
  }
  return result
}
