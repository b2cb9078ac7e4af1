import {spawn} from 'node:child_process'
import {chmodSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {homedir} from 'node:os'
import {dirname, join, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'
import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base.js'
import {MdcliClient} from '../../client/client.js'
import {defaultStoreDir, defaultStoreHelp, storeFingerprint} from '../../config/settings.js'
import {UsageError} from '../../errors.js'
import {lockHolderAlive} from '../../store/embedded/lock.js'

/**
 * With a container engine that answers, `docker quickstart` runs `docker compose up` on
 * docker/compose.yml (mdcli on PostgreSQL), or Debian's standalone `docker-compose` where the
 * compose plugin is missing; `--stop` runs its `stop`. Without an engine, or without either
 * compose, it starts the same server `mdcli lite` runs, in the background, with its log and pid
 * beside the store.
 */
export default class DockerQuickstart extends BaseCommand {
  static override summary = 'Start a local mdcli server in the background (or stop it with --stop).'
  static override description = `DataHub's quickstart starts containers; mdcli needs none: this starts \`mdcli lite\` in the
background on the given port, waits until it answers, and leaves its log in <store>/lite.log (owner-only).
On a first start the admin token is saved to the config file, never written to the log.`
  static override examples = ['<%= config.bin %> docker quickstart', '<%= config.bin %> docker quickstart --port 9002', '<%= config.bin %> docker quickstart --stop']

  static override flags = {
    port: Flags.integer({summary: 'Port to listen on.', default: 8080, min: 1, max: 65535}),
    store: Flags.string({summary: 'Store directory.', defaultHelp: defaultStoreHelp}),
    stop: Flags.boolean({summary: 'Stop the server started by quickstart.', default: false}),
  }

  async run(): Promise<{url: string; pid?: number; state: 'started' | 'running' | 'stopped'}> {
    const {flags} = await this.parse(DockerQuickstart)
    const record = recordPath()
    // --stop without --store stops what the last quickstart started, whatever its store.
    const last = flags.stop && !flags.store ? readRecord(record) : undefined
    const store = flags.store ?? last?.store ?? defaultStoreDir()
    const pidFile = join(store, 'lite.pid')
    const url = last?.url ?? `http://127.0.0.1:${flags.port}`
    if (flags.stop) {
      if (last?.mode === 'compose') return this.stopCompose(last, record)
      if (!existsSync(pidFile)) throw new UsageError(`No server started by quickstart for store ${store}${flags.store ? '' : ' (run with the --store it was started with)'}`)
      const pid = Number(readFileSync(pidFile, 'utf8'))
      // Only the process that holds the store is signalled: after a crash the pid may be gone,
      // or reused by an unrelated process.
      let held = ''
      try {
        held = readFileSync(join(store, 'LOCK'), 'utf8')
      } catch {
        /* no lock: nothing holds the store */
      }
      if (Number.parseInt(held, 10) !== pid || !lockHolderAlive(held)) {
        rmSync(pidFile, {force: true})
        if (readRecord(record)?.store === store) rmSync(record, {force: true})
        this.log(`No mdcli server is running for store ${store} (pid ${pid} of its last start no longer holds it); removed the stale record.`)
        return {url, pid, state: 'stopped'}
      }
      try {
        process.kill(pid, 'SIGTERM')
      } catch {
        /* already gone */
      }
      for (let i = 0; i < 100 && alive(pid); i++) await sleep(100)
      rmSync(pidFile, {force: true})
      if (readRecord(record)?.store === store) rmSync(record, {force: true})
      this.log(`Stopped the mdcli server (pid ${pid}).`)
      return {url, pid, state: 'stopped'}
    }
    const client = new MdcliClient({server: url, timeoutMs: 2000})
    try {
      if (await up(client)) {
        // Another store's server on this port is not the one asked for (lite servers say which store they serve).
        const served = ((await client.config().catch(() => undefined)) as {server?: {store?: unknown}} | undefined)?.server?.store
        if (flags.store && typeof served === 'string' && served !== storeFingerprint(store)) {
          throw new UsageError(`${url} answers, but its server serves another store than ${store}: stop it (mdcli docker quickstart --stop) or choose another --port`)
        }
        this.log(`mdcli is already running at ${url}`)
        return {url, state: 'running'}
      }
      // An explicit --store asks for that directory: lite, not the containers.
      const composePath = flags.store ? undefined : composeFile()
      const engine = composePath && (await engineAnswers()) ? await composeCommand() : undefined
      if (composePath && engine) {
        const shown = [engine.cmd, ...engine.args].join(' ')
        const code = await run(engine.cmd, [...engine.args, '-p', 'mdcli', '-f', composePath, 'up', '-d'], {...process.env, MDCLI_PORT: String(flags.port)})
        if (code !== 0) throw new UsageError(`${shown} -f ${composePath} up -d failed (exit ${code})`)
        // The containers run from here on, answering or not: --stop must find them.
        mkdirSync(dirname(record), {recursive: true})
        writeFileSync(record, JSON.stringify({mode: 'compose', compose: composePath, command: [engine.cmd, ...engine.args], url, startedAt: new Date().toISOString()}, null, 2), {mode: 0o600})
        for (let i = 0; i < 600; i++) {
          if (await up(client)) {
            this.log(`✔ mdcli (PostgreSQL, ${shown}) is now running at ${url}`)
            return {url, state: 'started'}
          }
          await sleep(500)
        }
        throw new UsageError(`The containers started but ${url} does not answer; see \`${shown} -p mdcli -f ${composePath} logs\` (stop them with mdcli docker quickstart --stop)`)
      }
      if (composePath && engine === null) this.log('A container engine answered, but neither `docker compose` nor `docker-compose` is installed; starting mdcli lite in the background instead.')
      else if (composePath) this.log('No container engine answered (docker info); starting mdcli lite in the background instead.')
      // A store another server holds (on another port) cannot be served twice: its server is
      // left as it is, and so is the record --stop finds it by.
      const holder = lockPid(store)
      if (holder !== undefined) {
        throw new UsageError(`The store ${store} is already served by process ${holder} (not at ${url}): stop it first (mdcli docker quickstart --stop --store ${store}) or give another --store`)
      }
      mkdirSync(store, {recursive: true, mode: 0o700})
      // Owner-only: the log says who did what, and the store holds token hashes.
      const logPath = join(store, 'lite.log')
      const log = openSync(logPath, 'a', 0o600)
      chmodSync(logPath, 0o600)
      const logStart = statSync(logPath).size
      const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'bin', 'run.js')
      const child = spawn(process.execPath, [bin, 'lite', '--port', String(flags.port), '--store', store, '--no-print-token'], {detached: true, stdio: ['ignore', log, log], env: process.env})
      child.unref()
      // Recorded once the child answers, or, when it has not by the deadline, once it is seen to
      // hold the store (its LOCK names it). Not sooner: a child that dies at its start (a port or
      // store taken meanwhile; it takes the store's LOCK before it binds the port) must not
      // replace the record of the server that runs, or --stop would know only the dead one.
      let recorded = false
      const recordOnceHeld = (answers: boolean) => {
        if (recorded || !(answers || lockPid(store) === child.pid)) return
        writeFileSync(pidFile, String(child.pid))
        mkdirSync(dirname(record), {recursive: true})
        writeFileSync(record, JSON.stringify({mode: 'lite', pid: child.pid, store: resolve(store), url, startedAt: new Date().toISOString()}, null, 2), {mode: 0o600})
        recorded = true
      }
      // Ready once it answers AND has said so in its log: the first start saves the admin token
      // to the config file between the two, and the next command needs it.
      // logStart counts bytes: the log is read as bytes from there (a '…' earlier is three).
      const saidReady = () => readFileSync(logPath).subarray(logStart).toString('utf8').includes('mdcli lite listening on')
      for (let i = 0; i < 300; i++) {
        const answers = (await up(client)) && saidReady()
        if (answers) recordOnceHeld(true)
        if (answers) {
          this.log(`✔ mdcli is now running at ${url} (log: ${logPath})`)
          // The background server's word on the saved address (another store's kept aside) is for the person too.
          const kept = readFileSync(logPath).subarray(logStart).toString('utf8').split('\n').find((l) => l.includes('.previous.'))
          if (kept) this.log(kept)
          return {url, pid: child.pid, state: 'started'}
        }
        if (child.exitCode !== null || !alive(child.pid!)) break
        await sleep(100)
      }
      // Still starting at the deadline (a slow first start), holding the store: --stop must find it.
      if (child.exitCode === null && alive(child.pid!)) recordOnceHeld(false)
      throw new UsageError(`The server did not come up; see ${join(store, 'lite.log')}${recorded ? ' (it holds the store: stop it with mdcli docker quickstart --stop)' : ''}`)
    } finally {
      await client.close()
    }
  }

  /** Stops the containers a compose-mode quickstart started (DataHub's `quickstart --stop`: stopped, not removed). */
  private async stopCompose(last: QuickstartRecord, record: string): Promise<{url: string; state: 'stopped'}> {
    const [cmd, ...args] = last.command ?? ['docker', 'compose']
    const shown = [cmd, ...args].join(' ')
    const code = await run(cmd!, [...args, '-p', 'mdcli', '-f', last.compose!, 'stop'], process.env)
    if (code !== 0) throw new UsageError(`${shown} -p mdcli -f ${last.compose} stop failed (${code === null ? 'could not run it' : `exit ${code}`}); the containers may still run`)
    rmSync(record, {force: true})
    this.log(`Stopped the mdcli containers (${shown} -p mdcli -f ${last.compose} stop; the database volume is kept).`)
    return {url: last.url, state: 'stopped'}
  }
}

/** What `~/.mdcli/quickstart.json` holds: a lite server in the background, or the compose project. */
interface QuickstartRecord {
  /** Absent in records written before compose mode was recorded: lite. */
  mode?: 'lite' | 'compose'
  url: string
  pid?: number
  store?: string
  /** Compose mode: the compose file and the command that ran it (`docker compose` or `docker-compose`). */
  compose?: string
  command?: string[]
}

/** What the last quickstart started, so `--stop` finds it without repeating `--store`. */
function recordPath(): string {
  return join(process.env.HOME ?? homedir(), '.mdcli', 'quickstart.json')
}

function readRecord(path: string): QuickstartRecord | undefined {
  try {
    const r = JSON.parse(readFileSync(path, 'utf8')) as Partial<QuickstartRecord>
    if (typeof r.url !== 'string') return undefined
    if (r.mode === 'compose') return typeof r.compose === 'string' ? (r as QuickstartRecord) : undefined
    return typeof r.store === 'string' ? (r as QuickstartRecord) : undefined
  } catch {
    return undefined
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

/** docker/compose.yml of this installation (a git checkout; the npm package does not ship it). */
function composeFile(): string | undefined {
  const f = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'docker', 'compose.yml')
  return existsSync(f) ? f : undefined
}

/** The docker CLI (MDCLI_DOCKER_BIN stands another in, for tests). */
const dockerBin = () => process.env.MDCLI_DOCKER_BIN ?? 'docker'

/** Whether a container engine answers `docker info` within a few seconds. */
async function engineAnswers(): Promise<boolean> {
  return (await run(dockerBin(), ['info', '--format', '{{.ServerVersion}}'], process.env, 5000)) === 0
}

/**
 * How compose is run here: `docker compose` when the plugin answers, else the standalone
 * `docker-compose` (Debian's 1.x; MDCLI_DOCKER_COMPOSE_BIN stands another in), else null.
 */
async function composeCommand(): Promise<{cmd: string; args: string[]} | null> {
  if ((await run(dockerBin(), ['compose', 'version'], process.env, 10_000)) === 0) return {cmd: dockerBin(), args: ['compose']}
  const standalone = process.env.MDCLI_DOCKER_COMPOSE_BIN ?? 'docker-compose'
  if ((await run(standalone, ['version'], process.env, 10_000)) === 0) return {cmd: standalone, args: []}
  return null
}

/** The live process the store's LOCK names, if any. */
function lockPid(store: string): number | undefined {
  let held: string
  try {
    held = readFileSync(join(store, 'LOCK'), 'utf8')
  } catch {
    return undefined
  }
  return lockHolderAlive(held) ? Number.parseInt(held, 10) : undefined
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs = 10 * 60_000): Promise<number | null> {
  return new Promise((done) => {
    const p = spawn(cmd, args, {env, stdio: 'ignore', timeout: timeoutMs})
    p.once('error', () => done(null))
    p.once('exit', (code) => done(code))
  })
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
