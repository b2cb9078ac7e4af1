/**
 * A local HTTP stand-in for a tool's REST API (Metabase, Mode…) that answers as recorded
 * responses do: node:http on 127.0.0.1, a random port, a route function deciding each answer.
 * Every request is kept so a test can check what the source asked (and that it asked nothing the
 * recording does not know: DataHub's mocks fail on an unknown URL, ours answer 404 and list it).
 */
import {createServer, type IncomingHttpHeaders, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'

export interface ReplayRequest {
  method: string
  /** Path without the query string. */
  path: string
  /** The raw query string, without `?` ('' when none). */
  search: string
  query: URLSearchParams
  headers: IncomingHttpHeaders
  body: string
}

export interface ReplayAnswer {
  status?: number
  /** Sent as JSON unless it is a string (then as is). */
  body?: unknown
  headers?: Record<string, string>
  /** Milliseconds to wait before answering (timeouts). */
  delayMs?: number
}

export interface Replay {
  url: string
  port: number
  requests: ReplayRequest[]
  /** Requests the route function had no answer for. */
  unmatched: ReplayRequest[]
  close(): Promise<void>
}

export async function startReplay(route: (req: ReplayRequest) => ReplayAnswer | undefined | Promise<ReplayAnswer | undefined>): Promise<Replay> {
  const requests: ReplayRequest[] = []
  const unmatched: ReplayRequest[] = []
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', async () => {
      const u = new URL(req.url ?? '/', 'http://127.0.0.1')
      const r: ReplayRequest = {method: req.method ?? 'GET', path: u.pathname, search: u.search.replace(/^\?/, ''), query: u.searchParams, headers: req.headers, body: Buffer.concat(chunks).toString('utf8')}
      requests.push(r)
      let answer: ReplayAnswer | undefined
      try {
        answer = await route(r)
      } catch (e) {
        answer = {status: 500, body: {error: (e as Error).message}}
      }
      if (!answer) {
        unmatched.push(r)
        answer = {status: 404, body: {error: `no recorded answer for ${r.method} ${req.url}`}}
      }
      if (answer.delayMs) await new Promise((ok) => setTimeout(ok, answer!.delayMs))
      if (res.destroyed) return
      const text = typeof answer.body === 'string' ? answer.body : answer.body === undefined ? '' : JSON.stringify(answer.body)
      res.writeHead(answer.status ?? 200, {'content-type': 'application/json', ...(answer.headers ?? {})})
      res.end(text)
    })
  })
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok))
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    unmatched,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections()
        server.close(() => ok())
      }),
  }
}
