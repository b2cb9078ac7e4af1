/**
 * Colour policy for everything mdcli prints: no colour when NO_COLOR is set (any non-empty
 * value, per no-color.org) or when the output is not a terminal.
 */

export function noColor(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.NO_COLOR !== undefined && env.NO_COLOR !== ''
}

/** The colour name, or undefined when colour is off (Ink then prints plain text). */
export function colorOf<C extends string>(c: C): C | undefined {
  return noColor() ? undefined : c
}

const CODES: Record<string, [number, number]> = {red: [31, 39], green: [32, 39], yellow: [33, 39], cyan: [36, 39], bold: [1, 22], dim: [2, 22]}

/** Wraps text in an ANSI style when `enabled`. */
export function paint(style: keyof typeof CODES, text: string, enabled: boolean): string {
  if (!enabled) return text
  const [open, close] = CODES[style]!
  return `\u001B[${open}m${text}\u001B[${close}m`
}
