/** PostgreSQL literals built in JavaScript, shared by the store's statements and its search index's. */

/**
 * A list as PostgreSQL's array literal (null elements as NULL): a row's list travels as one text
 * element of a text[] parameter, and a column of a bulk INSERT as one text parameter. node-postgres
 * writes a JS array's literal itself, but escapes every element with two passes of a regular
 * expression; most texts hold no quote or backslash, and one test finds that.
 */
export function arrayLiteral(xs: ReadonlyArray<string | null>): string {
  if (xs.length === 0) return '{}'
  let out = '{'
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i] as string | null
    if (i > 0) out += ','
    out += x === null ? 'NULL' : `"${ARRAY_ESCAPE.test(x) ? x.replace(/[\\"]/g, '\\$&') : x}"`
  }
  return `${out}}`
}
const ARRAY_ESCAPE = /[\\"]/
