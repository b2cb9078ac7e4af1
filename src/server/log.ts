/**
 * Server logging: plain lines on stderr, debug lines only when asked. Anything that looks like
 * a bearer token is masked before it is written, whatever the level.
 */
import type {Logger} from './http.js'

const TOKEN_PATTERNS = [/(Bearer\s+)[A-Za-z0-9._~+/=-]+/gi, /\bmdt_[A-Za-z0-9_-]+/g]

export function redact(s: string): string {
  let out = s
  for (const p of TOKEN_PATTERNS) out = out.replace(p, (_m, pre?: string) => `${typeof pre === 'string' ? pre : ''}***`)
  return out
}

export function createLogger(opts: {debug: boolean; write?: (line: string) => void}): Logger {
  const write = opts.write ?? ((line: string) => process.stderr.write(line + '\n'))
  const emit = (level: string, msg: string) => write(`${new Date().toISOString()} ${level} ${redact(msg)}`)
  return {
    debugEnabled: opts.debug,
    info: (m) => emit('INFO', m),
    warn: (m) => emit('WARN', m),
    error: (m) => emit('ERROR', m),
    debug: (m) => {
      if (opts.debug) emit('DEBUG', m)
    },
  }
}
