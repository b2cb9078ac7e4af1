/**
 * The message-queue contract the `nats` sink, the consuming server and the change log share, so
 * a Kafka implementation can sit beside the JetStream one.
 *
 * Glossary:
 * - stream: the broker's durable, ordered log (a JetStream stream, a Kafka topic).
 * - message id: the publisher's id for a message; the broker stores a message id once within its
 *   de-duplication window, so a retried publish is not stored twice.
 */
import {UsageError} from '../errors.js'

export interface PublishAck {
  /** Position in the stream. */
  seq: number
  /** The broker already held a message with this id. */
  duplicate: boolean
}

export interface QueuePublisher {
  /** Resolves once the broker has stored the message (or recognised it as a duplicate). */
  publish(subject: string, data: Uint8Array, msgId: string): Promise<PublishAck>
  close(): Promise<void>
}

export interface QueueTarget {
  /** Broker address, e.g. `nats://127.0.0.1:4222`; credentials never appear in messages or logs. */
  servers: string
  stream: string
  /** Subjects the stream holds (created with these when absent). */
  subjects: string[]
}

/** `nats://host:port[/stream]` → servers and stream; throws a one-line UsageError otherwise. */
export function parseQueueUrl(url: string, defaultStream: string): {servers: string; stream: string} {
  let u: URL
  try {
    u = new URL(url)
  } catch {
    throw new UsageError(`'${url}' is not a queue address (expected nats://host:port[/stream])`)
  }
  if (u.protocol !== 'nats:') throw new UsageError(`Unsupported queue '${u.protocol.replace(/:$/, '')}' in ${redact(url)} (supported: nats)`)
  const stream = decodeURIComponent(u.pathname.replace(/^\/+/, '')) || defaultStream
  if (!/^[A-Za-z0-9_-]+$/.test(stream)) throw new UsageError(`Stream name '${stream}' may hold only letters, digits, - and _`)
  const auth = u.username ? `${u.username}${u.password ? `:${u.password}` : ''}@` : ''
  return {servers: `nats://${auth}${u.host || '127.0.0.1:4222'}`, stream}
}

/** An address safe to print: the password replaced. */
export function redact(url: string): string {
  return url.replace(/(\/\/[^:/@]+:)[^@/]*@/, '$1***@')
}
