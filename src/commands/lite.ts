import {chmodSync, copyFileSync, existsSync, readdirSync, rmSync, statSync} from 'node:fs'
import {lookup} from 'node:dns/promises'
import {dirname, join, resolve} from 'node:path'
import {Flags} from '@oclif/core'
import {BaseCommand} from '../cli/base.js'
import {defaultStoreDir, defaultStoreHelp, eventsFromConfig, normalizeServerUrl, resolveSettings, savedAddress, storeIdentity, writeConfigFile} from '../config/settings.js'
import {MdcliClient} from '../client/client.js'
import {rowsSentence} from '../model/counts.js'
import {type ServerThread, startServerThread} from '../server/thread.js'
import {FileError, UsageError} from '../errors.js'
import {isStoreUrl, maskUrl} from '../store/postgres/url.js'
import {allowedHostsFromEnv, timeoutsFromEnv} from '../server/guard.js'

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]'])

/** Two server URLs that reach the same listener (localhost and 127.0.0.1 alike). */
function sameAddress(a: string, b: string): boolean {
  const x = new URL(a)
  const y = new URL(b)
  const host = (u: URL) => (LOOPBACK.has(u.hostname) ? 'loopback' : u.hostname)
  const port = (u: URL) => u.port || (u.protocol === 'https:' ? '443' : '80')
  return x.protocol === y.protocol && host(x) === host(y) && port(x) === port(y)
}

export default class Lite extends BaseCommand {
  static override summary = 'Run the embedded metadata server (GraphQL + REST) on a local lowdb store.'
  static override description = `Starts mdcli lite in the foreground: the catalog's REST endpoints and GraphQL API on one port,
backed by a store directory on this machine. Stop it with Ctrl-C; every acknowledged write is on disk.`
  static override enableJsonFlag = false
  static override examples = [
    {description: 'Start on 127.0.0.1:8080 with the default store', command: '<%= config.bin %> lite'},
    {description: 'Start with a few sample entities in a fresh store', command: '<%= config.bin %> lite --sample'},
    {description: 'Another port and store', command: '<%= config.bin %> lite --port 9002 --store ./catalog-store'},
    {description: 'Serve a PostgreSQL database (replicas may share it)', command: '<%= config.bin %> lite --store postgres://mdcli:secret@127.0.0.1:5432/catalog'},
    {description: 'Also write what recipes with `sink: {type: nats}` queued', command: '<%= config.bin %> lite --consume nats://127.0.0.1:4222'},
    {description: 'Write the proposals of the stream TEAM_A, whatever subjects it holds', command: '<%= config.bin %> lite --consume nats://127.0.0.1:4222/TEAM_A'},
    {description: "Serve a build of DataHub's own web app at / (sign in as datahub with the printed password)", command: 'MDCLI_ADMIN_PASSWORD=… <%= config.bin %> lite --ui ../datahub-web-react/dist'},
  ]

  static override flags = {
    port: Flags.integer({char: 'p', summary: 'Port to listen on (0 = any free port).', default: 8080, min: 0, max: 65535}),
    host: Flags.string({summary: 'Address to bind; 127.0.0.1 keeps the server private to this machine.', default: '127.0.0.1'}),
    store: Flags.string({summary: 'Store directory (created when missing), or a PostgreSQL URL postgres://user:pass@host:port/db (env METADATA_STORE_URL).', defaultHelp: defaultStoreHelp}),
    sample: Flags.boolean({summary: 'Load a few sample entities when the store is empty.', default: false}),
    auth: Flags.boolean({summary: 'Require access tokens and check access policies. --no-auth is for throwaway local use only.', default: true, allowNo: true}),
    'max-result-window': Flags.integer({
      summary: 'Largest start + count a search (GraphQL, or REST /entities?action=search) may page to; scrollAcrossEntities and the REST cursor walk past it.',
      env: 'MDCLI_SEARCH_MAX_RESULT_WINDOW',
      default: 10000,
      min: 1,
    }),
    consume: Flags.string({summary: 'Also write the proposals queued on this NATS JetStream stream, whatever its subjects (nats://host:port[/stream]).', env: 'METADATA_CONSUME_URL'}),
    'consume-subject': Flags.string({
      summary: 'Subject a stream the server creates holds (default mdcli.proposals, or <stream>.proposals for another stream); added to an existing stream that lacks it.',
    }),
    changelog: Flags.string({summary: 'Also publish every committed change (DataHub MCL JSON) to this NATS JetStream (nats://host:port[/stream]).', env: 'METADATA_CHANGELOG_URL'}),
    'changelog-subject': Flags.string({summary: 'Subject the change log is published on (default mdcli.changelog).'}),
    'metrics-open': Flags.boolean({summary: 'Serve /metrics without an access token (for a Prometheus scraper on a private network); by default it needs one.', env: 'MDCLI_METRICS_OPEN', default: false}),
    'session-ttl': Flags.integer({summary: 'How long a web-app sign-in lasts, in seconds (default one day, as DataHub).', env: 'MDCLI_SESSION_TTL_SECONDS', min: 1}),
    ui: Flags.string({summary: "Serve a build of DataHub's web app (datahub-web-react's vite output) at / in place of mdcli's pages.", env: 'MDCLI_UI_DIR'}),
    'allowed-host': Flags.string({
      summary: 'Another name this server answers to (repeatable; env MDCLI_ALLOWED_HOSTS, comma-separated; * = any). localhost, loopback addresses and --host always are.',
      multiple: true,
    }),
    'checkpoint-mb': Flags.integer({summary: 'Journal size (MiB) that triggers a snapshot checkpoint.', default: 256, min: 1, hidden: true}),
    // For `docker quickstart`, whose output goes to a log file: save the first token, never print it.
    'no-print-token': Flags.boolean({hidden: true, default: false}),
  }

  /** Shows the first-start admin token once and saves it for the next `mdcli` command. */
  private announceAdminToken(url: string, token: string, print: boolean, storeDir: string): void {
    const settings = resolveSettings()
    if (print || settings.skipConfig) {
      this.log('Created the admin user urn:li:corpuser:datahub and its access token (shown only this once):')
      this.log(`  ${token}`)
    } else this.log('Created the admin user urn:li:corpuser:datahub and its access token.')
    if (settings.skipConfig) {
      this.log('METADATA_SKIP_CONFIG is set: the token was not saved; pass it as METADATA_GMS_TOKEN.')
      return
    }
    // Another store's saved address and token would be lost (its token was shown once): kept
    // beside the file, and said so.
    const before = savedAddress(settings.configPath, storeDir)
    if (before?.token && !before.ofStore) {
      copyFileSync(settings.configPath, `${settings.configPath}.previous`)
      chmodSync(`${settings.configPath}.previous`, 0o600)
      this.log(`The address and token saved before (${before.server ? maskUrl(before.server) : 'no address'}, another store's server) are kept in ${settings.configPath}.previous.`)
    }
    writeConfigFile(settings.configPath, {server: url, token}, storeIdentity(storeDir))
    this.log(`Saved the server address and token to ${settings.configPath} (owner-only).`)
  }

  /**
   * A start of a store on another address moves the saved address along, so the next command
   * reaches this server: when lite saved the address for this store (its mark in the file), or
   * when the saved token is one this store accepts (a file written before the mark existed).
   * Another store's address is left alone, and the start says where commands will go.
   */
  private async followSavedAddress(url: string, storeDir: string, auth: boolean): Promise<void> {
    const settings = resolveSettings()
    if (settings.skipConfig) return
    const saved = savedAddress(settings.configPath, storeDir)
    if (!saved?.server) return
    let current: string
    try {
      current = normalizeServerUrl(saved.server)
    } catch {
      return
    }
    if (sameAddress(current, url)) return
    const ours = saved.ofStore || (auth && saved.token !== undefined && (await this.acceptsToken(url, saved.token)))
    if (ours) {
      writeConfigFile(settings.configPath, {server: url, token: saved.token ?? null}, storeIdentity(storeDir))
      this.log(`Saved the new address ${url} to ${settings.configPath} (it was ${current}).`)
    } else if (settings.serverSource === 'config') {
      this.log(`Note: commands go to ${current} (gms.server in ${settings.configPath}, another store's server); set METADATA_GMS_URL=${url} to reach this one.`)
    }
  }

  /** Whether this server knows `token` (a 401 says it does not; a refusal of the query still knows it). */
  private async acceptsToken(url: string, token: string): Promise<boolean> {
    const client = new MdcliClient({server: url, token, timeoutMs: 10_000})
    try {
      await client.call('POST', '/api/graphql', {query: '{ me { corpUser { urn } } }'})
      return true
    } catch (e) {
      return (e as {status?: number}).status !== 401 && (e as {code?: string}).code !== 'E_CONNECTION'
    } finally {
      await client.close()
    }
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(Lite)
    if (flags.ui) (await import('../server/web-ui.js')).checkUiDir(flags.ui)
    const storeDir = flags.store ?? defaultStoreDir()
    // Flags (and their environment variables) first, then the config file's `events:` section.
    const fromFile = eventsFromConfig()
    const consume = flags.consume ?? fromFile.consume
    const consumeSubject = flags['consume-subject'] ?? fromFile.consume_subject
    const changelog = flags.changelog ?? fromFile.changelog
    const changelogSubject = flags['changelog-subject'] ?? fromFile.changelog_subject ?? 'mdcli.changelog'
    if (consume) (await import('../events/queue.js')).parseQueueUrl(consume, 'MDCLI_PROPOSALS')
    if (changelog) {
      ;(await import('../events/queue.js')).parseQueueUrl(changelog, 'MDCLI_CHANGELOG')
      ;(await import('../events/outbox.js')).checkOutboxStore(storeDir)
    }
    // A name that does not resolve is refused here, in one line, before the warning and the store.
    await resolveHost(flags.host)
    if (flags.host !== '127.0.0.1' && flags.host !== 'localhost' && flags.host !== '::1') {
      process.stderr.write(`Warning: binding to ${flags.host} makes the catalog reachable from other machines.\n`)
    }
    // What a refused first start leaves must go with it (a busy port, an address not of this
    // machine): a new directory, or the files written into an empty one; never a store that was there.
    const madeByStart = isStoreUrl(storeDir) ? undefined : newPaths(storeDir)
    // graphql-js skips its development-only checks (a multi-realm guard on every type test)
    // when NODE_ENV is production; the server thread reads it when graphql loads there.
    process.env.NODE_ENV ??= 'production'
    // Listen for Ctrl-C and SIGTERM before anything starts: until a handler exists, the signal's
    // default action ends the process at once, without the checkpoint of a clean stop.
    let signalled: (sig: string) => void = () => {}
    const signal = new Promise<string>((resolve) => (signalled = resolve))
    process.once('SIGINT', () => signalled('SIGINT'))
    process.once('SIGTERM', () => signalled('SIGTERM'))
    let server: ServerThread
    try {
      server = await startServerThread({
        storeDir,
        host: flags.host,
        port: flags.port,
        debug: this.debugEnabled,
        checkpointBytes: flags['checkpoint-mb'] * 1024 * 1024,
        auth: flags.auth,
        maxResultWindow: flags['max-result-window'],
        sample: flags.sample,
        metricsOpen: flags['metrics-open'],
        ...(flags.ui ? {uiDir: flags.ui} : {}),
        ...(flags['session-ttl'] ? {sessionTtlMs: flags['session-ttl'] * 1000} : {}),
        ...(process.env.MDCLI_ADMIN_PASSWORD ? {adminPassword: process.env.MDCLI_ADMIN_PASSWORD} : {}),
        // A generated password must be shown; where nothing is shown, only a given one is set.
        noGeneratedPassword: flags['no-print-token'],
        timeouts: timeoutsFromEnv(),
        allowedHosts: [...(flags['allowed-host'] ?? []), ...allowedHostsFromEnv()],
        ...(consume ? {consume: {url: consume, ...(consumeSubject ? {subject: consumeSubject} : {})}} : {}),
        ...(changelog ? {changelog: {url: changelog, subject: changelogSubject}} : {}),
      })
    } catch (e) {
      madeByStart?.remove()
      const err = e as NodeJS.ErrnoException & {details?: unknown; serverDetail?: string}
      const code = err.code
      const denied = code === 'EACCES' || code === 'EPERM'
      if (code === 'EADDRINUSE') throw new UsageError(`Port ${flags.port} on ${flags.host} is already in use; pick another with --port`)
      if (code === 'EADDRNOTAVAIL') throw new UsageError(`Cannot listen on ${flags.host}:${flags.port}: --host is not an address of this machine (EADDRNOTAVAIL)`)
      if (denied && (err.syscall === 'listen' || err.syscall === 'bind')) throw new UsageError(`Not allowed to listen on ${flags.host}:${flags.port}: permission denied (${code}; ports below 1024 need privileges)`)
      // The store's directory or files, not the port: name the path.
      if (denied && err.path) {
        const what = err.syscall === 'mkdir' ? 'create the store directory' : 'open the store'
        throw new FileError(`Cannot ${what} ${maskUrl(storeDir)}: permission denied (${code}, ${err.syscall ?? 'open'} ${err.path})`)
      }
      const errno = (err.details as {errno?: string} | undefined)?.errno
      if (code === 'E_STORE_IO' && (errno === 'EACCES' || errno === 'EPERM')) {
        throw new FileError(`Cannot open the store ${maskUrl(storeDir)}: permission denied (${errno}${err.serverDetail ? `, ${err.serverDetail}` : ''}); this user must be able to write its directory and files`)
      }
      throw e
    }
    if (server.sampleAspects > 0) {
      // The words and sum of the ingest report and list-runs (src/model/counts.ts).
      const {SAMPLE_RUN_ID} = await import('../server/sample.js')
      this.log(`Loaded ${server.sampleAspects} sample aspects: ${rowsSentence(server.sampleAspects, server.sampleKeyAspects)} of run ${SAMPLE_RUN_ID} (\`ingest list-runs\`).`)
    }
    const markedOurs = !resolveSettings().skipConfig && savedAddress(resolveSettings().configPath, storeDir)?.ofStore === true
    try {
      if (server.adminToken) this.announceAdminToken(server.url, server.adminToken, !flags['no-print-token'], storeDir)
      // Before the first request is answered, when the file says the address is this store's.
      else if (markedOurs) await this.followSavedAddress(server.url, storeDir, server.auth)
      else if (server.auth && !resolveSettings().token) {
        // The admin exists but nothing here can act as it: say how to get back in.
        this.log(
          `No access token is configured (METADATA_GMS_TOKEN, ${resolveSettings().configPath}), and this store's admin token was shown on its first start only. ` +
            `If it is lost: stop this server and run \`mdcli token create --admin --store ${maskUrl(storeDir)}\`.`,
        )
      }
      if (server.adminPassword) {
        this.log('Password of the admin user datahub for signing in to the web app (shown only this once; set your own with MDCLI_ADMIN_PASSWORD on a first start):')
        this.log(`  ${server.adminPassword}`)
      }
    } finally {
      // The config file holds the new token now (or could not be written): requests may be answered.
      server.open()
    }
    // Without the mark, whether the saved token is this store's is asked of the open server.
    if (!server.adminToken && !markedOurs) await this.followSavedAddress(server.url, storeDir, server.auth)
    if (!server.auth) {
      this.log('WARNING: authentication is OFF (--no-auth): anyone who can reach this port can read and change everything. Use only for throwaway local work.')
    }
    this.log(`mdcli lite listening on ${server.url} (store: ${maskUrl(storeDir)})`)
    this.log(`Browse the catalog at ${server.url}/${flags.ui ? " (DataHub's web app)" : ''} (GraphiQL at ${server.url}/api/graphiql).`)
    // A server thread that dies on its own takes the command down with its error.
    const sig = await Promise.race([signal, server.ended.then(() => undefined)])
    if (sig === undefined) return
    this.log(`Received ${sig}, stopping…`)
    try {
      await server.stop()
      this.log('Stopped.')
    } catch (e) {
      process.stderr.write(`Error while stopping: ${(e as Error).message}\n`)
      process.exitCode = 1
    }
  }
}

/** Refuses a --host that does not resolve, in one line naming it. */
async function resolveHost(host: string): Promise<void> {
  try {
    await lookup(host)
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    const why = code === 'ENOTFOUND' ? 'no such host name' : code === 'EAI_AGAIN' ? 'the name server did not answer' : (e as Error).message
    throw new UsageError(`Cannot resolve --host ${host}: ${why}${code ? ` (${code})` : ''}; give an address of this machine (127.0.0.1, 0.0.0.0) or a name that resolves to one`)
  }
}

/**
 * What a start at `dir` would create: the first missing directory on its path, or, for an empty
 * directory, whatever appears in it. `remove()` takes it away again (after a refused start).
 */
function newPaths(dir: string): {remove(): void} | undefined {
  let first: string | undefined
  for (let d = resolve(dir); !existsSync(d); d = dirname(d)) {
    first = d
    if (dirname(d) === d) break
  }
  if (first) return {remove: () => rmSync(first, {recursive: true, force: true})}
  let empty = false
  try {
    empty = statSync(dir).isDirectory() && readdirSync(dir).length === 0
  } catch {
    /* not readable: the start says so, and nothing is removed */
  }
  if (!empty) return undefined
  return {
    remove() {
      for (const f of readdirSync(dir)) rmSync(join(dir, f), {recursive: true, force: true})
    },
  }
}
