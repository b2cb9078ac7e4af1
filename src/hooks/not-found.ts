/**
 * A mistyped command: one line naming it as the user typed it (words, not oclif's `a:b` ids)
 * and the closest real command, then exit 127 — on a terminal and in a script alike.
 */
import type {Hook} from '@oclif/core'

function distance(a: string, b: string): number {
  const d = Array.from({length: b.length + 1}, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    let prev = d[0]!
    d[0] = i
    for (let j = 1; j <= b.length; j++) {
      const cur = d[j]!
      d[j] = Math.min(d[j]! + 1, d[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1))
      prev = cur
    }
  }
  return d[b.length]!
}

const hook: Hook<'command_not_found'> = async function (opts) {
  const words = opts.id.split(':')
  const ids = opts.config.commands.filter((c) => !c.hidden).map((c) => c.id)
  // Compare as many leading words as a command has, and prefer the command that explains more of
  // what was typed: `lite expotr x` → `lite export`, not `lite`.
  let best: {id: string; d: number; n: number} | undefined
  for (const id of ids) {
    const n = id.split(':').length
    if (n > words.length) continue
    const dist = distance(words.slice(0, n).join(':'), id)
    if (dist > Math.max(2, Math.floor(id.length / 3))) continue
    if (!best || n > best.n || (n === best.n && dist < best.d)) best = {id, d: dist, n}
  }
  const shown = words.join(' ')
  const hint = best ? ` Did you mean '${opts.config.bin} ${best.id.split(':').join(' ')}'?` : ''
  process.stderr.write(`Error: '${shown}' is not a ${opts.config.bin} command.${hint} Run '${opts.config.bin} --help' for the list.\n`)
  process.exit(127)
}

export default hook
