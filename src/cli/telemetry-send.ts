/**
 * The detached sender of one telemetry event: `node telemetry-send.js <endpoint> <timeoutSec> <json>`.
 * Exits quietly whatever happens; gives up after the timeout.
 */
const [endpoint, timeoutSec, body] = process.argv.slice(2)
try {
  await fetch(endpoint!, {
    method: 'POST',
    headers: {'content-type': 'application/json'},
    body,
    signal: AbortSignal.timeout(Math.max(0, Number(timeoutSec) || 10) * 1000),
  })
} catch {
  // Silent by design.
}
process.exit(0)
