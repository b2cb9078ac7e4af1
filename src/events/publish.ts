/**
 * Publishes the change log to JetStream (`mdcli lite --changelog nats://host:port[/stream]`), in
 * commit order, one message per change: `{mcl, changeEvents}` JSON with the server's id in the
 * message id so a retried publish is stored once. Delivery is best effort beyond the retries: a
 * server that dies between commit and publish does not re-publish (see the README).
 */
import {randomUUID} from 'node:crypto'
import type {ChangeLog, LoggedChange} from './changelog.js'
import {JetStreamPublisher} from './jetstream.js'
import {parseQueueUrl} from './queue.js'

export const DEFAULT_CHANGELOG_STREAM = 'MDCLI_CHANGELOG'
export const DEFAULT_CHANGELOG_SUBJECT = 'mdcli.changelog'

const encoder = new TextEncoder()

export async function publishChangeLog(log: ChangeLog, opts: {url: string; subject?: string; log: {info(m: string): void; warn(m: string): void}}): Promise<{close(): Promise<void>}> {
  const {servers, stream} = parseQueueUrl(opts.url, DEFAULT_CHANGELOG_STREAM)
  const subject = opts.subject ?? DEFAULT_CHANGELOG_SUBJECT
  const pub = await JetStreamPublisher.open({servers, stream, subjects: [subject]}, {name: 'mdcli-lite-changelog'})
  const instance = randomUUID()
  let chain: Promise<void> = Promise.resolve()
  let failed = 0
  const publishOne = async (c: LoggedChange): Promise<void> => {
    for (let attempt = 0; ; attempt++) {
      try {
        await pub.publish(subject, encoder.encode(JSON.stringify({id: c.id, mcl: c.mcl, changeEvents: c.changeEvents})), `${instance}-${c.id}`)
        return
      } catch (error) {
        if (attempt >= 4) {
          failed++
          opts.log.warn(`Change log: change ${c.id} (${c.mcl.entityUrn}) not published: ${(error as Error).message}`)
          return
        }
        await new Promise((r) => setTimeout(r, 200 * 2 ** attempt))
      }
    }
  }
  log.addSink((batch) => {
    chain = chain.then(async () => {
      for (const c of batch) await publishOne(c)
    })
  })
  opts.log.info(`Publishing the change log to ${stream} (subject ${subject})`)
  return {
    async close() {
      await chain
      await pub.close()
      if (failed > 0) opts.log.warn(`Change log: ${failed} changes were not published`)
    },
  }
}
