/**
 * `[y/N]` confirmation before a destructive command changes anything. Piped input answers it
 * with its first line (`echo y | mdcli delete …`, as DataHub's prompts take it); with no answer
 * at all (CI, /dev/null, a closed pipe) it refuses instead of guessing, and names the flag that
 * skips the question.
 */
import {createInterface} from 'node:readline'
import {createInterface as createPromptInterface} from 'node:readline/promises'
import {UsageError} from '../errors.js'

export interface ConfirmOptions {
  /** The whole prompt, when it is not `${question} [y/N]: `. */
  prompt?: string
  /** The refusal when no answer comes, when it is not the common one. */
  refusal?: string
  output?: NodeJS.WritableStream
}

/** Resolves true on y/yes; throws UsageError when no answer comes. */
export async function confirm(question: string, forceFlag: string, opts: ConfirmOptions = {}): Promise<boolean> {
  const prompt = opts.prompt ?? `${question} [y/N]: `
  const output = opts.output ?? process.stderr
  if (!process.stdin.isTTY) {
    const answer = await firstLine()
    if (answer === undefined) {
      throw new UsageError(opts.refusal ?? `${question} — this needs a yes or no, but standard input is not a terminal and gave no answer. Nothing was changed. Re-run with ${forceFlag} to proceed without asking.`)
    }
    output.write(`${prompt}${answer}\n`)
    return isYes(answer)
  }
  const rl = createPromptInterface({input: process.stdin, output})
  try {
    return isYes(await rl.question(prompt))
  } finally {
    rl.close()
  }
}

function isYes(answer: string): boolean {
  return /^y(es)?$/i.test(answer.trim())
}

/** The first line of piped input, or undefined at its end; the rest is left unread (`yes | …`). */
function firstLine(): Promise<string | undefined> {
  return new Promise((resolve) => {
    const rl = createInterface({input: process.stdin})
    let settled = false
    rl.once('line', (line) => {
      settled = true
      rl.close()
      // Stop reading a pipe that would go on for ever, so the process can exit.
      process.stdin.destroy()
      resolve(line)
    })
    rl.once('close', () => {
      if (!settled) resolve(undefined)
    })
  })
}
