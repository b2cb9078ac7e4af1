/**
 * A TCP proxy of the test's own between a server and a service (PostgreSQL): `cut()` closes the
 * port and every connection through it, so the server's connections fail and new ones are
 * refused, as when the database host goes away; `restore()` listens on the same port again.
 */
import {createConnection, createServer, type Server, type Socket} from 'node:net'

export interface TcpProxy {
  port: number
  cut(): Promise<void>
  restore(): Promise<void>
  close(): Promise<void>
}

export async function startTcpProxy(target: {host: string; port: number}): Promise<TcpProxy> {
  const sockets = new Set<Socket>()
  let server: Server | undefined
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      const s = createServer((client) => {
        const upstream = createConnection(target)
        sockets.add(client).add(upstream)
        const drop = () => {
          client.destroy()
          upstream.destroy()
          sockets.delete(client)
          sockets.delete(upstream)
        }
        client.on('error', drop).on('close', drop)
        upstream.on('error', drop).on('close', drop)
        client.pipe(upstream)
        upstream.pipe(client)
      })
      s.once('error', reject)
      s.listen(port, '127.0.0.1', () => {
        server = s
        resolve((s.address() as {port: number}).port)
      })
    })
  const port = await listen(0)
  const cut = async () => {
    const s = server
    server = undefined
    for (const so of sockets) so.destroy()
    sockets.clear()
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()))
  }
  return {
    port,
    cut,
    async restore() {
      if (!server) await listen(port)
    },
    close: cut,
  }
}
