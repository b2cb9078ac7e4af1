/**
 * Connections a plugin opens: the metadata server (REST) and a NATS JetStream stream.
 *
 * Both client libraries are loaded when a plugin first connects, not when the SDK is imported,
 * so a recipe that never talks to a server or a queue does not pay for them at start-up.
 */
import {readFileSync} from 'node:fs'
import type {ClientTls, MdcliClient, RequestLog} from '../client/client.js'
import {ConfigError} from '../errors.js'
import type {QueuePublisher} from '../events/queue.js'
import {resolveSettings} from '../config/settings.js'

export type {BatchOutcome, ClientTls, MdcliClient as ServerClient} from '../client/client.js'
export type {PublishAck, QueuePublisher} from '../events/queue.js'
export {parseQueueUrl, redact as redactUrl} from '../events/queue.js'

/** The server and token the user configured (flags aside): environment, then the config file. */
export function configuredServer(env: NodeJS.ProcessEnv = process.env): {server: string; token?: string; serverFrom: string} {
  const s = resolveSettings(env)
  return {server: s.server, token: s.token ?? undefined, serverFrom: s.serverFrom}
}

/** DataHub's TLS keys of a server connection (DatahubClientConfig), as a sink or `datahub_api` takes them. */
export interface TlsConfig {
  disable_ssl_verification?: boolean
  ca_certificate_path?: string | null
  client_certificate_path?: string | null
}

/** The JSON Schema properties of TlsConfig, for config schemas. */
export const TLS_CONFIG_PROPERTIES = {
  disable_ssl_verification: {type: 'boolean'},
  ca_certificate_path: {type: ['string', 'null']},
  client_certificate_path: {type: ['string', 'null']},
} as const

/**
 * Reads the files TlsConfig names (relative paths through `resolvePath`); undefined when it sets
 * nothing. `where` prefixes the key in errors (`sink.config`).
 */
export function tlsOf(config: TlsConfig, resolvePath: (p: string) => string, where: string): ClientTls | undefined {
  const read = (key: 'ca_certificate_path' | 'client_certificate_path'): Buffer | undefined => {
    const path = config[key]
    if (!path) return undefined
    try {
      return readFileSync(resolvePath(path))
    } catch (e) {
      throw new ConfigError(`${where}.${key}: cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`)
    }
  }
  const ca = read('ca_certificate_path')
  const cert = read('client_certificate_path')
  const tls: ClientTls = {...(config.disable_ssl_verification ? {rejectUnauthorized: false} : {}), ...(ca ? {ca} : {}), ...(cert ? {cert} : {})}
  return Object.keys(tls).length > 0 ? tls : undefined
}

/** A REST client for the metadata server; close it when done. */
export async function connectServer(opts: {server: string; token?: string; timeoutMs?: number; onRequest?: RequestLog; serverFrom?: string; tls?: ClientTls}): Promise<MdcliClient> {
  const {MdcliClient} = await import('../client/client.js')
  return new MdcliClient({server: opts.server, token: opts.token, timeoutMs: opts.timeoutMs, onRequest: opts.onRequest, serverFrom: opts.serverFrom, ...(opts.tls ? {tls: opts.tls} : {})})
}

/** A publisher on a JetStream stream (created with the subject when missing); close it when done. */
export async function openJetStream(opts: {servers: string; stream: string; subjects: string[]; timeoutMs: number; name: string}): Promise<QueuePublisher> {
  const {JetStreamPublisher} = await import('../events/jetstream.js')
  return JetStreamPublisher.open({servers: opts.servers, stream: opts.stream, subjects: opts.subjects}, {timeoutMs: opts.timeoutMs, name: opts.name})
}
