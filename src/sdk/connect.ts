/**
 * Connections a plugin opens: the metadata server (REST) and a NATS JetStream stream.
 *
 * Both client libraries are loaded when a plugin first connects, not when the SDK is imported,
 * so a recipe that never talks to a server or a queue does not pay for them at start-up.
 */
import type {MdcliClient, RequestLog} from '../client/client.js'
import type {QueuePublisher} from '../events/queue.js'
import {resolveSettings} from '../config/settings.js'

export type {BatchOutcome, MdcliClient as ServerClient} from '../client/client.js'
export type {PublishAck, QueuePublisher} from '../events/queue.js'
export {parseQueueUrl, redact as redactUrl} from '../events/queue.js'

/** The server and token the user configured (flags aside): environment, then the config file. */
export function configuredServer(env: NodeJS.ProcessEnv = process.env): {server: string; token?: string; serverFrom: string} {
  const s = resolveSettings(env)
  return {server: s.server, token: s.token ?? undefined, serverFrom: s.serverFrom}
}

/** A REST client for the metadata server; close it when done. */
export async function connectServer(opts: {server: string; token?: string; timeoutMs?: number; onRequest?: RequestLog; serverFrom?: string}): Promise<MdcliClient> {
  const {MdcliClient} = await import('../client/client.js')
  return new MdcliClient({server: opts.server, token: opts.token, timeoutMs: opts.timeoutMs, onRequest: opts.onRequest, serverFrom: opts.serverFrom})
}

/** A publisher on a JetStream stream (created with the subject when missing); close it when done. */
export async function openJetStream(opts: {servers: string; stream: string; subjects: string[]; timeoutMs: number; name: string}): Promise<QueuePublisher> {
  const {JetStreamPublisher} = await import('../events/jetstream.js')
  return JetStreamPublisher.open({servers: opts.servers, stream: opts.stream, subjects: opts.subjects}, {timeoutMs: opts.timeoutMs, name: opts.name})
}
