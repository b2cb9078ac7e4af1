/**
 * Passes one HTTP request on to `target` (a server's base URL) and its answer back: the body of
 * test proxies that put something in front of \`mdcli lite\` (TLS, scripted failures).
 */
import {type IncomingMessage, request as httpRequest, type ServerResponse} from 'node:http'

export function forwardTo(target: URL, req: IncomingMessage, res: ServerResponse): void {
  const up = httpRequest({host: target.hostname, port: target.port, path: req.url, method: req.method, headers: {...req.headers, host: target.host}}, (r) => {
    res.writeHead(r.statusCode ?? 502, r.headers)
    r.pipe(res)
  })
  up.on('error', () => res.destroy())
  req.pipe(up)
}
