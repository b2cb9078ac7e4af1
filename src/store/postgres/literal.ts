/** PostgreSQL literals built in JavaScript, shared by the store's statements and its search index's. */

const ARRAY_ESCAPE = /[\\"]/

/**
 * A list as PostgreSQL's text[] literal (null elements as NULL): a row's list travels as one text
 * element of a text[] parameter, and a bulk statement's column as one parameter. node-postgres
 * builds the same literal from a JavaScript array, but runs two replacements over every element;
 * here an element without a quote or backslash (urns, names, search vectors) is copied as it is.
 * That was about 6 % of the server thread's time in an ingest into PostgreSQL.
 */
export function arrayLiteral(xs: ReadonlyArray<string | null>): string {
  let out = '{'
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i]
    if (i > 0) out += ','
    out += x === null || x === undefined ? 'NULL' : `"${ARRAY_ESCAPE.test(x) ? x.replace(/[\\"]/g, '\\$&') : x}"`
  }
  return `${out}}`
}

/** A column of booleans as one bool[] literal. */
export const boolArray = (xs: readonly boolean[]): string => `{${xs.map((x) => (x ? 't' : 'f')).join(',')}}`
