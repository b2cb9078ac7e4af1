/**
 * PostgreSQL's text (and jsonb) cannot hold a NUL character, which a JSON string may (`\u0000`).
 * Keys holding one are refused before they reach a store; derived text (search documents,
 * facets, reference targets, a search's words) drops it.
 */
export const hasNul = (s: string): boolean => s.includes('\u0000')

export const noNul = (s: string): string => (hasNul(s) ? s.replaceAll('\u0000', '') : s)
