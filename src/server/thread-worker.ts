/**
 * The server thread of `mdcli lite` (see thread.ts): starts the server, reports ready or the
 * failure, and stops cleanly when asked.
 */
import {parentPort} from 'node:worker_threads'
import {startServer} from './app.js'
import {loadSampleData} from './sample.js'
import {type ServerThreadOptions, type ToHost, toWire} from './thread.js'

const port = parentPort!
const tell = (m: ToHost) => port.postMessage(m)
// The options come by message: the thread may have started (and loaded the modules above) before
// the command had parsed its flags (see prestartServerThread).
const opts = await new Promise<ServerThreadOptions>((resolve) => port.once('message', (m: {type: 'start'; opts: ServerThreadOptions}) => resolve(m.opts)))

try {
  const server = await startServer({
    storeDir: opts.storeDir,
    host: opts.host,
    port: opts.port,
    debug: opts.debug,
    auth: opts.auth,
    checkpointBytes: opts.checkpointBytes,
    maxResultWindow: opts.maxResultWindow,
    consume: opts.consume,
    changelog: opts.changelog,
    metricsOpen: opts.metricsOpen,
    uiDir: opts.uiDir,
    sessionTtlMs: opts.sessionTtlMs,
    adminPassword: opts.adminPassword,
    noGeneratedPassword: opts.noGeneratedPassword,
    timeouts: opts.timeouts,
    allowedHosts: opts.allowedHosts,
    held: true,
  })
  let sample = {aspects: 0, keyAspects: 0}
  try {
    if (opts.sample) sample = await loadSampleData(server.catalog)
  } catch (e) {
    await server.close()
    throw e
  }
  port.on('message', (m: {type: string}) => {
    if (m.type === 'open') server.open()
    if (m.type !== 'stop') return
    server.close().then(
      () => {
        tell({type: 'stopped'})
        port.close()
      },
      (e) => tell({type: 'failed', error: toWire(e)}),
    )
  })
  tell({type: 'ready', url: server.url, auth: server.auth, adminToken: server.adminToken, adminPassword: server.adminPassword, sampleAspects: sample.aspects, sampleKeyAspects: sample.keyAspects})
} catch (e) {
  tell({type: 'failed', error: toWire(e)})
  port.close()
}
