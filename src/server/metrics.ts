/**
 * The server's Prometheus metrics (prom-client), served at `/metrics` in the text exposition
 * format: one registry per server, so two servers in one process (tests) never share counts.
 *
 * Any part of the server reports into it through `counter`, `gauge` and `histogram`, which
 * define a metric on first call and hand back the same one afterwards (prom-client refuses a
 * second registration of a name). A value that is read rather than pushed (a queue's depth, a
 * consumer's lag) is a gauge or counter with `collect`, asked at each scrape.
 *
 * prom-client itself loads after the server has started (`load`, or the first scrape): with the
 * `@opentelemetry/api` its CPU counter requires, it was about a tenth of `mdcli lite`'s start to
 * first answer on a slow host. A histogram observed before then keeps its observations (up to
 * PENDING_LIMIT) and hands them over when prom-client is there.
 *
 * Names follow Prometheus' habits: `mdcli_` prefix, `_total` for counters, `_seconds` for times.
 */
import type {Gauge, Histogram, LabelValues, Registry} from 'prom-client'

type PromClient = typeof import('prom-client')

/** Request latency buckets (seconds): sub-millisecond reads to slow bulk writes. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

/** Observations a histogram keeps while prom-client loads (a start's first requests); past it they are dropped. */
export const PENDING_LIMIT = 10_000

/** A histogram as its users see it: observed now, recorded once prom-client has loaded. */
export interface Observer<L extends string> {
  observe(labels: LabelValues<L>, value: number): void
}

class DeferredHistogram<L extends string> implements Observer<L> {
  private real: Histogram<L> | undefined
  private pending: Array<[LabelValues<L>, number]> = []

  observe(labels: LabelValues<L>, value: number): void {
    if (this.real) this.real.observe(labels, value)
    else if (this.pending.length < PENDING_LIMIT) this.pending.push([labels, value])
  }

  attach(real: Histogram<L>): void {
    for (const [labels, value] of this.pending) real.observe(labels, value)
    this.pending = []
    this.real = real
  }
}

export class Metrics {
  private readonly processMetrics: boolean
  private loading: Promise<Registry> | undefined
  private prom: PromClient | undefined
  private registry: Registry | undefined
  /** Every metric asked for, by name: how to make it, and its histogram's stand-in. */
  private readonly defined = new Map<string, {make: (p: PromClient, r: Registry) => unknown; histogram?: DeferredHistogram<string>}>()

  constructor(opts: {processMetrics?: boolean} = {}) {
    // Heap, event-loop lag, CPU, open handles: what an operator looks at first.
    this.processMetrics = opts.processMetrics !== false
  }

  /** Loads prom-client and makes every metric defined so far (once; later ones are made at once). */
  load(): Promise<Registry> {
    this.loading ??= import('prom-client').then((p) => {
      const registry = new p.Registry()
      if (this.processMetrics) p.collectDefaultMetrics({register: registry, prefix: 'mdcli_'})
      this.prom = p
      this.registry = registry
      for (const d of this.defined.values()) this.make(d)
      return registry
    })
    return this.loading
  }

  private make(d: {make: (p: PromClient, r: Registry) => unknown; histogram?: DeferredHistogram<string>}): void {
    const made = d.make(this.prom!, this.registry!)
    d.histogram?.attach(made as Histogram<string>)
  }

  private define(name: string, make: (p: PromClient, r: Registry) => unknown, histogram?: DeferredHistogram<string>): void {
    if (this.defined.has(name)) return
    const d = {make, histogram}
    this.defined.set(name, d)
    if (this.registry) this.make(d)
  }

  /** A counter reporting a running total kept elsewhere (`collect`, read at each scrape). */
  counter(name: string, help: string, opts: {collect: () => number | Promise<number>}): void {
    const read = opts.collect
    this.define(
      name,
      (p, r) =>
        new p.Counter({
          name,
          help,
          registers: [r],
          async collect() {
            this.reset()
            this.inc(await read())
          },
        }),
    )
  }

  /** A gauge read at each scrape: `collect` returns its value, or sets labelled values itself. */
  gauge<L extends string = string>(name: string, help: string, opts: {labelNames?: readonly L[]; collect: (gauge: Gauge<L>) => number | void | Promise<number | void>}): void {
    const read = opts.collect
    this.define(
      name,
      (p, r) =>
        new p.Gauge<L>({
          name,
          help,
          labelNames: opts.labelNames ?? [],
          registers: [r],
          async collect(this: Gauge<L>) {
            // A collector that sets labelled values itself returns nothing.
            const v = await read(this)
            if (typeof v === 'number') this.set(v)
          },
        }),
    )
  }

  /** A histogram of durations in seconds (or of other sizes, with `buckets`). */
  histogram<L extends string = string>(name: string, help: string, opts: {labelNames?: readonly L[]; buckets?: number[]} = {}): Observer<L> {
    const had = this.defined.get(name)?.histogram
    if (had) return had as unknown as Observer<L>
    const stand = new DeferredHistogram<L>()
    this.define(name, (p, r) => new p.Histogram<L>({name, help, labelNames: opts.labelNames ?? [], buckets: opts.buckets ?? LATENCY_BUCKETS, registers: [r]}), stand as unknown as DeferredHistogram<string>)
    return stand
  }

  /** The exposition text and its content type. */
  async render(): Promise<{contentType: string; text: string}> {
    const registry = await this.load()
    return {contentType: registry.contentType, text: await registry.metrics()}
  }
}
