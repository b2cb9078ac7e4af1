/**
 * The operator's endpoints: `/health` (can this replica serve now?), `/ready` (has it finished
 * starting, and can it serve?) and `/metrics` (Prometheus text format).
 *
 * `/health` and `/ready` are public: a load balancer probes them without a token, and their
 * bodies name only which part fails and why (no data). `/metrics` needs a token like any other
 * route unless the server was started with `--metrics-open` (MDCLI_METRICS_OPEN=true), for a
 * scraper on a private network that holds no token.
 */
import {type Health, type HealthReport, reasonOf} from './health.js'
import type {Metrics} from './metrics.js'
import {type HttpResponse, json, type Router} from './http.js'

function unhealthy(status: string, report: HealthReport): HttpResponse {
  const reason = reasonOf(report)
  // `message`: what a client (`mdcli docker check`, any command) shows as the error's line.
  const r = json(503, {status, reason, message: `The server is ${status}: ${reason}`, checks: report.checks})
  r.headers['retry-after'] = '1'
  r.headers['cache-control'] = 'no-store'
  return r
}

function healthy(report: HealthReport): HttpResponse {
  const r = json(200, {status: 'ok', checks: report.checks})
  r.headers['cache-control'] = 'no-store'
  return r
}

export function registerOperations(router: Router, opts: {health: Health; metrics: Metrics; metricsOpen: boolean}): void {
  const {health, metrics} = opts
  router.on(
    'GET',
    '/health',
    async () => {
      const report = await health.report()
      return report.healthy ? healthy(report) : unhealthy('unhealthy', report)
    },
    {public: true},
  )

  router.on(
    'GET',
    '/ready',
    async () => {
      if (!health.ready) {
        const r = json(503, {status: 'starting', reason: 'the server has not finished starting', checks: {}})
        r.headers['retry-after'] = '1'
        r.headers['cache-control'] = 'no-store'
        return r
      }
      const report = await health.report()
      return report.healthy ? healthy(report) : unhealthy('unhealthy', report)
    },
    {public: true},
  )

  router.on(
    'GET',
    '/metrics',
    async () => {
      const {contentType, text} = await metrics.render()
      return {status: 200, headers: {'content-type': contentType, 'cache-control': 'no-store'}, body: text}
    },
    {public: opts.metricsOpen},
  )
}
