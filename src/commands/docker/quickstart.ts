import {spawn} from 'node:child_process'
import {chmodSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base.js'
import {MdcliClient} from '../../client/client.js'
import {defaultStoreDir} from '../../config/settings.js'
import {UsageError} from '../../errors.js'
import {clearQuickstartRecord, readQuickstartRecord, writeQuickstartRecord} from '../../config/quickstart.js'

/**
 * There is no container engine to count on, so `docker quickstart` starts the same server
 * `mdcli lite` runs, in the background, with its log and pid beside the store.
 */
export default class DockerQuickstart extends BaseCommand {
  static override summary = 'Start a local mdcli server in the background (or stop it with --stop).'
  static override description = `DataHub's quickstart starts containers; mdcli needs none: this starts \`mdcli lite\` in the
background on the given port, waits until it answers, and leaves its log in <store>/lite.log (owner-only).
On a first start the admin token is saved to the config file, never written to the log.`
  static override examples = ['<%= config.bin %> docker quickstart', '<%= config.bin %> docker quickstart --port 9002', '<%= config.bin %> docker quickstart --stop']

  static override flags = {
    port: Flags.integer({summary: 'Port to listen on.', default: 8080, min: 1, max: 65535}),
    store: Flags.string({summary: 'Store directory.', defaultHelp: async () => defaultStoreDir()}),
    stop: Flags.boolean({summary: 'Stop the server quickstart started (its store is remembered; --store picks another).', default: false}),
  }

  async run(): Promise<{url: string; pid?: number; state: 'started' | 'running' | 'stopped'}> {
    const {flags} = await this.parse(DockerQuickstart)
    // --stop without --store: the store of the server quickstart last started (~/.mdcli/quickstart.json).
    const store = flags.store ?? (flags.stop ? readQuickstartRecord()?.store : undefined) ?? defaultStoreDir()
    const pidFile = join(store, 'lite.pid')
    const url = `http://127.0.0.1:${flags.port}`
    if (flags.stop) {
      if (!existsSync(pidFile)) {
        clearQuickstartRecord(store)
        throw new UsageError(`No server started by quickstart for store ${store}`)
      }
      const pid = Number(readFileSync(pidFile, 'utf8'))
      try {
        process.kill(pid, 'SIGTERM')
      } catch {
        /* already gone */
      }
      for (let i = 0; i < 100 && alive(pid); i++) await sleep(100)
      rmSync(pidFile, {force: true})
      clearQuickstartRecord(store)
      this.log(`Stopped the mdcli server (pid ${pid}).`)
      return {url, pid, state: 'stopped'}
    }
    const client = new MdcliClient({server: url, timeoutMs: 2000})
    try {
      if (await up(client)) {
        this.log(`mdcli is already running at ${url}`)
        return {url, state: 'running'}
      }
      mkdirSync(store, {recursive: true, mode: 0o700})
      // Owner-only: the log says who did what, and the store holds token hashes.
      const log = openSync(join(store, 'lite.log'), 'a', 0o600)
      chmodSync(join(store, 'lite.log'), 0o600)
      const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'bin', 'run.js')
      const child = spawn(process.execPath, [bin, 'lite', '--port', String(flags.port), '--store', store, '--no-print-token'], {detached: true, stdio: ['ignore', log, log], env: process.env})
      child.unref()
      writeFileSync(pidFile, String(child.pid))
      writeQuickstartRecord({pid: child.pid!, store, url, startedAt: new Date().toISOString()})
      for (let i = 0; i < 200; i++) {
        if (await up(client)) {
          this.log(`✔ mdcli is now running at ${url} (log: ${join(store, 'lite.log')})`)
          return {url, pid: child.pid, state: 'started'}
        }
        if (child.exitCode !== null || !alive(child.pid!)) break
        await sleep(100)
      }
      throw new UsageError(`The server did not come up; see ${join(store, 'lite.log')}`)
    } finally {
      await client.close()
    }
  }
}

async function up(client: MdcliClient): Promise<boolean> {
  try {
    await client.health()
    return true
  } catch {
    return false
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
