/**
 * Draining the listener's connections at a clean stop.
 *
 * Glossary: a connection is *busy* while a request on it is being answered, *idle* between
 * requests. A kept-alive client sends its next request as soon as it has the last answer, so an
 * idle connection may already carry a request the server has not read yet: closing it then resets
 * that request (ECONNRESET, undici's UND_ERR_SOCKET) instead of answering it. So a stop closes
 * only connections that have stayed idle for a while (LINGER_MS); a request that comes on one
 * before that is answered by the server (503 with `Connection: close` once stopping), and node
 * closes the connection after that answer.
 */
import type {Server} from 'node:http'
import {Server as NetServer, type Socket} from 'node:net'

const netClose = NetServer.prototype.close

/** How long a connection must have been idle before a stop closes it. */
const LINGER_MS = 250
/** How often a stop looks for connections to close. */
const SWEEP_MS = 25

interface ConnectionState {
  busy: number
  /** When the connection was opened or last finished answering a request. */
  idleSince: number
}

/**
 * Follows the server's connections from now on; `drain(graceMs)` stops accepting new ones,
 * closes each as it has lingered idle, cuts whatever is left at `graceMs`, and resolves once the
 * server has closed.
 */
export function trackConnections(server: Server): {drain(graceMs: number): Promise<void>} {
  const connections = new Map<Socket, ConnectionState>()
  server.on('connection', (socket: Socket) => {
    connections.set(socket, {busy: 0, idleSince: Date.now()})
    socket.once('close', () => connections.delete(socket))
  })
  server.on('request', (req, res) => {
    const state = connections.get(req.socket)
    if (!state) return
    state.busy++
    res.once('close', () => {
      state.busy--
      state.idleSince = Date.now()
    })
  })
  return {
    drain(graceMs) {
      return new Promise<void>((resolve) => {
        const sweep = () => {
          const now = Date.now()
          for (const [socket, state] of connections) if (state.busy === 0 && now - state.idleSince >= LINGER_MS) socket.destroy()
        }
        const timer = setInterval(sweep, SWEEP_MS)
        // One still busy at the deadline (a stalled upload) is cut: its request was never acknowledged.
        const deadline = setTimeout(() => server.closeAllConnections(), graceMs)
        // node:http's close() would close every idle connection at once (the race above): the
        // listener is closed as a net.Server, which calls back once the last connection is gone.
        netClose.call(server, () => {
          clearInterval(timer)
          clearTimeout(deadline)
          stopTimeoutChecks(server)
          resolve()
        })
        sweep()
      })
    },
  }
}

/**
 * What node:http's close() does besides closing idle connections: stop the timer that checks
 * the connections' header and request timeouts (unref'd; nothing is left for it to check).
 */
function stopTimeoutChecks(server: Server): void {
  const key = Object.getOwnPropertySymbols(server).find((k) => k.description === 'http.server.connectionsCheckingInterval')
  if (key) clearInterval((server as unknown as Record<symbol, NodeJS.Timeout | undefined>)[key])
}
