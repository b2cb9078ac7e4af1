/**
 * `GET /events`: the change log as Server-Sent Events. Token required like every non-public
 * route; filters `entityType`, `urnPrefix`, `aspect`; resumable with `Last-Event-ID` (header or
 * `?lastEventId=`) while the missed entries are still in the server's ring — otherwise the stream
 * starts with an `event: gap` so the client knows to re-read.
 */
import type {IncomingHttpHeaders, ServerResponse} from 'node:http'
import type {ChangeLog} from '../events/changelog.js'
import {type ChangeFilter, type LoggedChange, matches} from '../model/changelog.js'
import {type Router, STREAMED} from './http.js'
import {BugError} from '../errors.js'

/**
 * A subscriber this far behind is cut off: characters of live changes not yet handed to its
 * socket, beside the largest of them (see `send`). A replay holds nothing of its own: it is read
 * from the ring as the socket drains (see `replay`).
 */
const MAX_BUFFERED = 8 * 1024 * 1024
const HEARTBEAT_MS = 15_000
const RECHECK_MS = 1_000

/** Each change's SSE frame, serialized once however many subscribers it goes to. */
const frames = new WeakMap<LoggedChange, string>()
function frameOf(c: LoggedChange): string {
  let f = frames.get(c)
  if (f === undefined) {
    f = `id: ${c.id}\nevent: change\ndata: ${JSON.stringify({mcl: c.mcl, changeEvents: c.changeEvents})}\n\n`
    frames.set(c, f)
  }
  return f
}

/**
 * `reauthenticate` checks an open stream's credentials again (the token or session it opened
 * with, which may since be revoked, expired or its user suspended) every second, through the
 * same caches as any request: a stream is cut within a second of when a new request with those
 * credentials would be refused (ACCESS_CACHE_MAX_AGE_MS at most).
 */
export function registerEvents(
  router: Router,
  log: ChangeLog,
  reauthenticate?: (headers: IncomingHttpHeaders) => Promise<unknown>,
): {closeAll(): void; subscribers(): number; bufferedBytes(): number} {
  const open = new Set<ServerResponse>()
  router.on('GET', '/events', async (ctx) => {
    const q = ctx.query
    const filter: ChangeFilter = {
      ...(q.get('entityType') ? {entityType: q.get('entityType')!} : {}),
      ...(q.get('urnPrefix') ? {urnPrefix: q.get('urnPrefix')!} : {}),
      ...(q.get('aspect') ? {aspect: q.get('aspect')!} : {}),
    }
    const lastRaw = (ctx.request.headers['last-event-id'] as string | undefined) ?? q.get('lastEventId') ?? undefined
    const lastId = lastRaw !== undefined && /^\d+$/.test(lastRaw) ? Number(lastRaw) : undefined
    // The one handler that writes to the socket itself: an SSE stream stays open and is written
    // as changes commit, long after any response value could have been returned.
    const res = ctx.stream
    if (!res) throw new BugError('/events is a stream: only the node listener can serve it')
    res.writeHead(200, {'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no'})
    res.write(': mdcli change log\n\n')
    let corked = false
    const send = (c: LoggedChange): void => {
      if (!matches(filter, c)) return
      // A commit's changes arrive in one turn: one socket write for them, not one each.
      if (!corked) {
        corked = true
        res.cork()
        process.nextTick(() => {
          corked = false
          res.uncork()
        })
      }
      const frame = frameOf(c)
      // Behind by more than the bound, not counting the largest change still in flight: the
      // subscriber is not keeping up. One change over the bound (an aspect may be 15 MiB) still
      // goes to a subscriber that is, and so do the changes after it.
      // (The largest is looked for only past the bound: a subscriber keeping up costs nothing here.)
      if (inFlightBytes > MAX_BUFFERED) {
        let largest = 0
        for (const n of inFlight) if (n > largest) largest = n
        if (inFlightBytes - largest > MAX_BUFFERED) {
          res.destroy()
          return
        }
      }
      inFlight.push(frame.length)
      inFlightBytes += frame.length
      res.write(frame, () => {
        inFlightBytes -= inFlight.shift() ?? 0
      })
    }
    // Sizes (in characters) of the live changes written and not yet handed to the socket, in order.
    const inFlight: number[] = []
    let inFlightBytes = 0
    let unsubscribe: () => void = () => {}
    // The next ring id to replay, until the replay has caught up with the ring's end.
    let cursor: number | undefined
    /**
     * Writes held changes from `cursor` while the socket takes them, and goes on at its 'drain':
     * a subscriber that does not read holds one frame and the socket's buffer, not the ring's
     * worth (a replay of 10,000 large changes is ~16 MiB per connection). Caught up, it turns
     * to live changes, in the same turn, so none is missed or sent twice. One whose next change
     * the ring has already dropped is cut, as a live subscriber that falls behind is: it resumes
     * with Last-Event-ID and is told of the gap.
     */
    const replay = (): void => {
      while (cursor !== undefined && !res.destroyed && !res.writableEnded) {
        if (cursor < log.oldest) {
          res.destroy()
          return
        }
        if (cursor >= log.end) {
          cursor = undefined
          unsubscribe()
          unsubscribe = log.subscribe(send)
          return
        }
        const c = log.entry(cursor++)!
        if (matches(filter, c) && !res.write(frameOf(c))) {
          res.once('drain', replay)
          return
        }
      }
    }
    if (lastId !== undefined) {
      const {from, gap} = log.resume(lastId)
      if (gap) res.write(`event: gap\ndata: {"message":"some changes after ${lastId} are no longer held; re-read what you track"}\n\n`)
      cursor = from
      // While the replay waits on the socket, a change that pushes its next one out of the ring
      // cuts it (looked at once the change is in the ring, once a turn however many come).
      let looking = false
      unsubscribe = log.subscribe(() => {
        if (looking) return
        looking = true
        setImmediate(() => {
          looking = false
          if (cursor !== undefined && cursor < log.oldest) res.destroy()
        })
      })
      replay()
    } else unsubscribe = log.subscribe(send)
    const beat = setInterval(() => res.write(': ping\n\n'), HEARTBEAT_MS)
    beat.unref()
    const headers = ctx.request.headers
    const recheck = reauthenticate
      ? setInterval(() => {
          reauthenticate(headers).catch((e: unknown) => {
            if (res.destroyed || res.writableEnded) return
            const message = e instanceof Error ? e.message : String(e)
            res.end(`event: error\ndata: ${JSON.stringify({message: `Stream closed: ${message}`})}\n\n`)
          })
        }, RECHECK_MS)
      : undefined
    recheck?.unref()
    open.add(res)
    res.on('close', () => {
      cursor = undefined
      unsubscribe()
      clearInterval(beat)
      if (recheck) clearInterval(recheck)
      open.delete(res)
    })
    return STREAMED
  })
  return {
    closeAll() {
      for (const res of open) res.end()
    },
    subscribers: () => open.size,
    // What the open streams have written and their sockets not yet sent (node's buffers, not the kernel's).
    bufferedBytes() {
      let n = 0
      for (const res of open) n += res.writableLength
      return n
    },
  }
}
