/**
 * `[y/N]` confirmation before a destructive command changes anything. Without a terminal to ask
 * on (CI, pipes, scripts) it refuses instead of guessing, and names the flag that skips the
 * question.
 */
import {createInterface} from 'node:readline/promises'
import {UsageError} from '../errors.js'

/** Resolves true on y/yes; throws UsageError when standard input is not a terminal. */
export async function confirm(question: string, forceFlag: string): Promise<boolean> {
  if (!process.stdin.isTTY) {
    throw new UsageError(`${question} — this needs a yes or no, but standard input is not a terminal. Nothing was changed. Re-run with ${forceFlag} to proceed without asking.`)
  }
  const rl = createInterface({input: process.stdin, output: process.stderr})
  try {
    const answer = await rl.question(`${question} [y/N]: `)
    return /^y(es)?$/i.test(answer.trim())
  } finally {
    rl.close()
  }
}
