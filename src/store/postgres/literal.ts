/** PostgreSQL literals built in JavaScript, shared by the store's statements and its search index's. */

/** A list as PostgreSQL's array literal: a row's list travels as one text element of a text[] parameter. */
export function arrayLiteral(xs: readonly string[]): string {
  if (xs.length === 0) return '{}'
  return `{${xs.map((x) => `"${ARRAY_ESCAPE.test(x) ? x.replace(/[\\"]/g, '\\$&') : x}"`).join(',')}}`
}
const ARRAY_ESCAPE = /[\\"]/
