/**
 * Publishes the change log to JetStream (`mdcli lite --changelog nats://host:port[/stream]`), in
 * commit order, one message per change: `{mcl, changeEvents}` JSON with the server's id in the
 * message id so a retried publish is stored once. With `outbox` (the store's, src/events/outbox.ts)
 * delivery is at least once: commits not acknowledged before a crash, or whose publish failed
 * past the retries, are published again at the next start, before any new change.
 */
import {randomUUID} from 'node:crypto'
import type {Catalog} from '../catalog/catalog.js'
import {rebuildChanges, type ChangeOutbox} from './outbox.js'
import type {ChangeLog} from './changelog.js'
import type {LoggedChange} from '../model/changelog.js'
import {JetStreamPublisher} from './jetstream.js'
import {parseQueueUrl} from './queue.js'

export const DEFAULT_CHANGELOG_STREAM = 'MDCLI_CHANGELOG'
export const DEFAULT_CHANGELOG_SUBJECT = 'mdcli.changelog'

const encoder = new TextEncoder()

export async function publishChangeLog(
  log: ChangeLog,
  opts: {url: string; subject?: string; log: {info(m: string): void; warn(m: string): void}; outbox?: ChangeOutbox; catalog?: Catalog},
): Promise<{close(): Promise<void>}> {
  const {servers, stream} = parseQueueUrl(opts.url, DEFAULT_CHANGELOG_STREAM)
  const subject = opts.subject ?? DEFAULT_CHANGELOG_SUBJECT
  const pub = await JetStreamPublisher.open({servers, stream, subjects: [subject]}, {name: 'mdcli-lite-changelog'})
  const instance = opts.outbox?.id ?? randomUUID()
  let failed = 0
  // Outbox commits identify a change across restarts; without one the server's id does for this run.
  const msgIdOf = (c: Pick<LoggedChange, 'id' | 'commit'>) => (c.commit ? `${instance}-${c.commit.seq}-${c.commit.index}` : `${instance}-${c.id}`)
  const publishOne = async (c: Omit<LoggedChange, 'id'> & {id?: number}): Promise<boolean> => {
    for (let attempt = 0; ; attempt++) {
      try {
        await pub.publish(subject, encoder.encode(JSON.stringify({id: c.id, mcl: c.mcl, changeEvents: c.changeEvents})), msgIdOf({id: c.id ?? 0, commit: c.commit}))
        return true
      } catch (error) {
        if (attempt >= 4) {
          failed++
          opts.log.warn(`Change log: change ${c.id ?? `of commit ${c.commit?.seq}`} (${c.mcl.entityUrn}) not published: ${(error as Error).message}`)
          return false
        }
        await new Promise((r) => setTimeout(r, 200 * 2 ** attempt))
      }
    }
  }
  const publishCommit = async (batch: Array<Omit<LoggedChange, 'id'> & {id?: number}>): Promise<void> => {
    let ok = true
    for (const c of batch) ok = (await publishOne(c)) && ok
    const seq = batch[0]?.commit?.seq
    // A commit is marked only when all of it was acknowledged; otherwise the next start re-sends it.
    if (ok && seq !== undefined) opts.outbox?.published(seq)
  }
  let chain: Promise<void> = Promise.resolve()
  const outbox = opts.outbox
  if (outbox && outbox.pending.length > 0) {
    const pending = outbox.pending
    opts.log.info(`Change log: publishing ${pending.length} commits left unpublished by the last run`)
    chain = chain.then(async () => {
      for (const p of pending) {
        const changes = p.changes ?? (opts.catalog ? rebuildChanges(p, await opts.catalog.entitiesAsStored(p.urns), Date.now()) : [])
        if (changes.length === 0) outbox.published(p.commit)
        else await publishCommit(changes.map((c, index) => ({...c, commit: {seq: p.commit, index}})))
      }
    })
  }
  log.addSink((batch) => {
    // One appended batch is one commit (Catalog.writeOps appends once per write).
    chain = chain.then(() => publishCommit(batch))
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
