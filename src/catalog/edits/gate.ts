/**
 * At most `limit` holders at once; the rest wait in arrival order. A released slot goes straight
 * to the next waiter, so a stream of arrivals cannot overtake those already waiting.
 */
export class Gate {
  private active = 0
  private readonly waiting: Array<() => void> = []

  constructor(readonly limit: number) {
    if (!(limit >= 1)) throw new RangeError(`a gate needs a limit of 1 or more, not ${limit}`)
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active < this.limit) this.active++
    else await new Promise<void>((r) => this.waiting.push(r))
    try {
      return await fn()
    } finally {
      const next = this.waiting.shift()
      if (next) next()
      else this.active--
    }
  }
}
