/**
 * The server's Prometheus metrics (prom-client), served at `/metrics` in the text exposition
 * format: one registry per server, so two servers in one process (tests) never share counts.
 *
 * Any part of the server reports into it through `counter`, `gauge` and `histogram`, which
 * create a metric on first call and hand back the same one afterwards (prom-client refuses a
 * second registration of a name). A value that is read rather than pushed (a queue's depth, a
 * consumer's lag) is a gauge with `collect`, asked at each scrape.
 *
 * Names follow Prometheus' habits: `mdcli_` prefix, `_total` for counters, `_seconds` for times.
 */
import {collectDefaultMetrics, Counter, Gauge, Histogram, Registry} from 'prom-client'

/** Request latency buckets (seconds): sub-millisecond reads to slow bulk writes. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

export class Metrics {
  readonly registry = new Registry()

  constructor(opts: {processMetrics?: boolean} = {}) {
    // Heap, event-loop lag, CPU, open handles: what an operator looks at first.
    if (opts.processMetrics !== false) collectDefaultMetrics({register: this.registry, prefix: 'mdcli_'})
  }

  /** A counter (only goes up); `inc()` it, or give `collect` to report a running total kept elsewhere. */
  counter<L extends string = string>(name: string, help: string, opts: {labelNames?: readonly L[]; collect?: () => number | Promise<number>} = {}): Counter<L> {
    const had = this.registry.getSingleMetric(name)
    if (had) return had as Counter<L>
    const read = opts.collect
    return new Counter<L>({
      name,
      help,
      labelNames: opts.labelNames ?? [],
      registers: [this.registry],
      ...(read
        ? {
            async collect(this: Counter<L>) {
              this.reset()
              this.inc(await read())
            },
          }
        : {}),
    })
  }

  /** A gauge (goes up and down); `set()` it, or give `collect` to have it read at each scrape. */
  gauge<L extends string = string>(name: string, help: string, opts: {labelNames?: readonly L[]; collect?: (gauge: Gauge<L>) => number | void | Promise<number | void>} = {}): Gauge<L> {
    const had = this.registry.getSingleMetric(name)
    if (had) return had as Gauge<L>
    const read = opts.collect
    return new Gauge<L>({
      name,
      help,
      labelNames: opts.labelNames ?? [],
      registers: [this.registry],
      ...(read
        ? {
            async collect(this: Gauge<L>) {
              // A collector that sets labelled values itself returns nothing.
              const v = await read(this)
              if (typeof v === 'number') this.set(v)
            },
          }
        : {}),
    })
  }

  /** A histogram of durations in seconds (or of other sizes, with `buckets`). */
  histogram<L extends string = string>(name: string, help: string, opts: {labelNames?: readonly L[]; buckets?: number[]} = {}): Histogram<L> {
    const had = this.registry.getSingleMetric(name)
    if (had) return had as Histogram<L>
    return new Histogram<L>({name, help, labelNames: opts.labelNames ?? [], buckets: opts.buckets ?? LATENCY_BUCKETS, registers: [this.registry]})
  }

  /** The exposition text and its content type. */
  async render(): Promise<{contentType: string; text: string}> {
    return {contentType: this.registry.contentType, text: await this.registry.metrics()}
  }
}
