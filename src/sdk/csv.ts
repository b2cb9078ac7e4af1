/**
 * A small RFC 4180 CSV reader (quoted fields, doubled quotes, CRLF or LF) for the csv-enricher
 * source; rows come back as objects keyed by the header row, each with its 1-based line.
 */
import {ParseError} from '../errors.js'

export interface CsvRow {
  line: number
  values: Record<string, string>
}

export function parseCsv(text: string, delimiter = ',', name = 'CSV'): {header: string[]; rows: CsvRow[]} {
  if (delimiter.length !== 1) throw new ParseError(`${name}: the delimiter must be one character, got '${delimiter}'`)
  const records: Array<{line: number; fields: string[]}> = []
  let fields: string[] = []
  let field = ''
  let quoted = false
  let line = 1
  let recordLine = 1
  let fieldStarted = false
  const s = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  const endField = (): void => {
    fields.push(field)
    field = ''
    fieldStarted = false
  }
  const endRecord = (): void => {
    endField()
    if (!(fields.length === 1 && fields[0] === '')) records.push({line: recordLine, fields})
    fields = []
  }
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!
    if (quoted) {
      if (c === '"') {
        if (s[i + 1] === '"') {
          field += '"'
          i++
        } else quoted = false
      } else {
        if (c === '\n') line++
        field += c
      }
      continue
    }
    if (c === '"' && !fieldStarted) {
      quoted = true
      fieldStarted = true
    } else if (c === delimiter) endField()
    else if (c === '\n' || c === '\r') {
      if (c === '\r' && s[i + 1] === '\n') i++
      endRecord()
      line++
      recordLine = line
    } else {
      field += c
      fieldStarted = true
    }
  }
  if (quoted) throw new ParseError(`${name}: line ${recordLine}: a quoted field is not closed`)
  if (field !== '' || fields.length > 0) endRecord()
  if (records.length === 0) throw new ParseError(`${name} is empty (expected a header row)`)
  const header = records[0]!.fields.map((h) => h.trim())
  const rows = records.slice(1).map((r) => {
    const values: Record<string, string> = {}
    header.forEach((h, i) => (values[h] = (r.fields[i] ?? '').trim()))
    return {line: r.line, values}
  })
  return {header, rows}
}
