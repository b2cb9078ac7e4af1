/**
 * `mdcli lite` runs its server on a worker thread (src/server/thread.ts): failures to start still
 * reach the user as one clear line and a non-zero exit, and a stop still checkpoints the store.
 */
import {expect} from 'chai'
import {readdirSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {heapGrowingFlag, HEAP_GROWING_PERCENT} from '../../src/server/thread.js'
import {cleanup, runCli, startLite, tempDir, useLite} from '../helpers/lite.js'

describe('mdcli lite on its server thread', function () {
  this.timeout(60_000)
  const lite = useLite()

  const env = () => ({...process.env, HOME: lite.home, NO_COLOR: '1', METADATA_TELEMETRY_ENABLED: 'false'})

  it('refuses a store another server holds, naming the holder, and exits 1', async () => {
    const r = await runCli(['lite', '--port', '0', '--store', lite.storeDir], {env: env()})
    expect(r.code).to.equal(1)
    expect(r.stderr.trim()).to.match(new RegExp(`^Error: Store .* is in use by process ${lite.proc.pid}`))
  })

  it('refuses a port in use with one line and exits 1', async () => {
    const store = tempDir('mdcli-store-')
    try {
      const r = await runCli(['lite', '--port', String(lite.port), '--store', store], {env: env()})
      expect(r.code).to.equal(1)
      expect(r.stderr.trim()).to.equal(`Error: Port ${lite.port} on 127.0.0.1 is already in use; pick another with --port`)
    } finally {
      cleanup(store)
    }
  })

  it('refuses a store with an unreadable snapshot and leaves the file as it was', async () => {
    const first = await startLite()
    expect(await first.stop(), first.output()).to.equal(0)
    const shards = join(first.storeDir, 'shards')
    // The stop's checkpoint wrote the shards holding the admin user and its token.
    const shard = readdirSync(shards).filter((f) => f.endsWith('.json')).sort((a, b) => statSync(join(shards, b)).size - statSync(join(shards, a)).size)[0]
    expect(shard, readdirSync(shards).join(', ')).to.be.a('string')
    writeFileSync(join(shards, shard!), '{not json')
    try {
      const r = await runCli(['lite', '--port', '0', '--store', first.storeDir], {env: {...env(), HOME: first.home}})
      expect(r.code).to.equal(1)
      expect(r.stderr).to.include(shard!)
      expect(r.stderr).to.not.match(/\bat \w+ \(|node:internal/)
      expect(readFileSync(join(shards, shard!), 'utf8')).to.equal('{not json')
    } finally {
      cleanup(first.storeDir, first.home)
    }
  })

  it('stops cleanly on SIGTERM and starts again on the same store without minting a second token', async () => {
    const one = await startLite()
    const res = await fetch(`${one.url}/health`)
    expect(res.status).to.equal(200)
    expect(await one.stop()).to.equal(0)
    expect(one.output()).to.match(/Received SIGTERM, stopping…\s+Stopped\./)
    const again = await startLite({storeDir: one.storeDir, home: one.home})
    try {
      expect(again.output()).to.not.match(/mdt_/)
    } finally {
      await again.stop()
      cleanup(one.storeDir, one.home)
    }
  })

  it('holds the heap to 50 % growth for the embedded store only, and never over the user\'s own flag', () => {
    expect(heapGrowingFlag('/home/me/.local/share/mdcli/lite', [])).to.equal(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`)
    // On PostgreSQL the heap is small; held to 50 % it was collected in full over and over.
    expect(heapGrowingFlag('postgres://u:p@127.0.0.1:5432/db', [])).to.equal(undefined)
    expect(heapGrowingFlag('postgresql://127.0.0.1/db', [])).to.equal(undefined)
    expect(heapGrowingFlag('/data/store', ['--heap-growing-percent=0'])).to.equal(undefined)
  })
})
