/**
 * Slow and stalled clients on real sockets against a real `mdcli lite`, whose limits are made
 * short through their environment variables: headers that never finish, authenticated bodies
 * trickled below the rate floor, a body above the floor that takes longer than the whole-request
 * limit, and an idle kept-alive connection are all closed by the server, while ordinary requests
 * keep being answered. A handful of sockets, all to 127.0.0.1, each bounded.
 */
import {expect} from 'chai'
import {connect, type Socket} from 'node:net'
import {http, useLite} from '../helpers/lite.js'

const DS = 'urn:li:dataset:(urn:li:dataPlatform:hive,slow.orders,PROD)'

interface Watched {
  socket: Socket
  /** What the server sent. */
  received(): string
  /** Resolves once the server closed the connection; rejects if it is still open after `ms`. */
  closed(ms: number): Promise<void>
  stop(): void
}

/** Opens a raw connection to the server, writing `head`, then `chunk` every `everyMs` (if given). */
function open(url: string, head: string, trickle?: {chunk: string; everyMs: number}): Promise<Watched> {
  const u = new URL(url)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(u.port), u.hostname)
    let got = ''
    let timer: NodeJS.Timeout | undefined
    let ended = false
    const ends: Array<() => void> = []
    socket.on('data', (d) => (got += d.toString()))
    socket.on('error', () => {})
    socket.on('close', () => {
      ended = true
      clearInterval(timer)
      for (const e of ends) e()
    })
    socket.once('connect', () => {
      socket.write(head)
      if (trickle) timer = setInterval(() => !socket.destroyed && socket.write(trickle.chunk), trickle.everyMs)
      resolve({
        socket,
        received: () => got,
        closed: (ms) =>
          new Promise<void>((res, rej) => {
            if (ended) return res()
            const t = setTimeout(() => rej(new Error(`connection still open after ${ms} ms; received: ${got.slice(0, 200)}`)), ms)
            ends.push(() => {
              clearTimeout(t)
              res()
            })
          }),
        stop() {
          clearInterval(timer)
          socket.destroy()
        },
      })
    })
    socket.once('error', reject)
  })
}

describe('every connection has time limits: headers, body rate, whole request, idle', function () {
  this.timeout(120_000)
  // Short limits, so that the test waits seconds: headers 2 s, body 1,000 bytes/s after 2 s,
  // the whole request 8 s, idle 2 s.
  const lite = useLite({
    env: {MDCLI_HTTP_HEADERS_TIMEOUT: '2', MDCLI_HTTP_BODY_MIN_RATE: '1000', MDCLI_HTTP_BODY_GRACE: '2', MDCLI_HTTP_REQUEST_TIMEOUT: '8', MDCLI_HTTP_IDLE_TIMEOUT: '2'},
  })
  const opened: Watched[] = []
  afterEach(() => {
    for (const w of opened.splice(0)) w.stop()
  })

  const post = (length: number) =>
    `POST /aspects?action=ingestProposal HTTP/1.1\r\nHost: ${new URL(lite.url).host}\r\nAuthorization: Bearer ${lite.token}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`

  it('closes authenticated connections that trickle a 30 MB body (408), and keeps serving others meanwhile', async () => {
    for (let i = 0; i < 5; i++) opened.push(await open(lite.url, post(30_000_000), {chunk: ' '.repeat(10), everyMs: 250}))
    // Served while the slow ones hold their connections.
    expect((await http(`${lite.url}/health`)).status).to.equal(200)
    await Promise.all(opened.map((w) => w.closed(30_000)))
    for (const w of opened) {
      expect(w.received()).to.match(/^HTTP\/1\.1 408 /)
      expect(w.received()).to.match(/too slowly/)
    }
    // Nothing of them was written; an ordinary write goes through.
    const body = JSON.stringify({proposal: {entityUrn: DS, aspectName: 'status', changeType: 'UPSERT', aspect: {value: '{"removed":false}', contentType: 'application/json'}}})
    expect((await http(`${lite.url}/aspects?action=ingestProposal`, {body})).status).to.equal(200)
  })

  it('closes a connection whose headers never finish', async () => {
    const w = await open(lite.url, `GET /health HTTP/1.1\r\nHost: ${new URL(lite.url).host}\r\nX-Slow: `, {chunk: 'a', everyMs: 500})
    opened.push(w)
    await w.closed(30_000)
    expect(w.received()).to.not.match(/ 200 /)
  })

  it('closes a body that keeps above the rate floor but outlasts the whole-request limit', async () => {
    // 2,500 bytes a second against a floor of 1,000: it would take 20 s, the limit is 8.
    const w = await open(lite.url, post(50_000), {chunk: ' '.repeat(500), everyMs: 200})
    opened.push(w)
    await w.closed(40_000)
    expect(w.received()).to.not.match(/ 200 /)
  })

  it('closes a kept-alive connection that stays idle', async () => {
    const w = await open(lite.url, `GET /health HTTP/1.1\r\nHost: ${new URL(lite.url).host}\r\n\r\n`)
    opened.push(w)
    await w.closed(30_000)
    expect(w.received()).to.match(/^HTTP\/1\.1 200 /)
  })
})
