import {expect} from 'chai'
import {spawnSync} from 'node:child_process'
import {chmodSync, existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {createServer} from 'node:net'
import yaml from 'js-yaml'
import {cleanup, ROOT, runCli, tempDir} from '../helpers/lite.js'

const COMPOSE = join(ROOT, 'docker', 'compose.yml')

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer()
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as {port: number}).port
      s.close(() => resolve(port))
    })
  })
}

describe('docker: compose file and quickstart without an engine', function () {
  this.timeout(60000)

  it('describes mdcli on PostgreSQL, published on 127.0.0.1 only, and parses with docker-compose when present', () => {
    const doc = yaml.load(readFileSync(COMPOSE, 'utf8')) as any
    expect(Object.keys(doc.services)).to.have.members(['postgres', 'mdcli'])
    expect(doc.services.mdcli.environment.METADATA_STORE_URL).to.match(/^postgres:\/\/mdcli:.*@postgres:5432\/mdcli$/)
    expect(doc.services.mdcli.depends_on.postgres.condition).to.equal('service_healthy')
    for (const p of doc.services.mdcli.ports) expect(p).to.match(/^"?127\.0\.0\.1:/)
    expect(readFileSync(join(ROOT, 'docker', 'Dockerfile'), 'utf8')).to.match(/--no-print-token/)
    // The token recovery it documents reads METADATA_STORE_URL inside the container: the host's
    // shell would expand it to nothing.
    expect(readFileSync(join(ROOT, 'docker', 'Dockerfile'), 'utf8')).to.match(/exec mdcli sh -c '[^'\n]*token create --admin --store "\$METADATA_STORE_URL"[^'\n]*'/)
    expect(doc.services.mdcli.image).to.equal('mdcli:${METADATA_VERSION:-head}')
    for (const [cmd, args] of [['docker-compose', ['-f', COMPOSE, 'config', '-q']], ['docker', ['compose', '-f', COMPOSE, 'config', '-q']]] as const) {
      const r = spawnSync(cmd, args, {encoding: 'utf8', timeout: 20000})
      if (r.error || /unknown command|unknown shorthand flag/.test(r.stderr ?? '')) continue
      expect(r.status, `${cmd}: ${r.stderr}`).to.equal(0)
      // METADATA_VERSION picks the mdcli image, `head` (this checkout's build) by default.
      const image = (env: NodeJS.ProcessEnv) => spawnSync(cmd, args.filter((a) => a !== '-q'), {encoding: 'utf8', timeout: 20000, env}).stdout.match(/image: (mdcli:\S+)/)?.[1]
      const {METADATA_VERSION: _, ...without} = process.env
      expect(image(without)).to.equal('mdcli:head')
      expect(image({...without, METADATA_VERSION: 'v0.2.0'})).to.equal('mdcli:v0.2.0')
      return
    }
    // .ci/run installs Debian's docker-compose, so in CI the file is always checked by a compose implementation.
    if (process.env.CI === 'true') expect.fail('docker-compose is not installed, and CI must check the compose file with it')
    console.log('      (docker-compose is not installed: parsed with js-yaml only)')
  })

  /**
   * A stand-in for a container engine: `docker info` answers; `docker compose` is a plugin that is
   * installed or not (Debian's docker.io without it answers "unknown command", exit 125); the
   * standalone `docker-compose` is a second script. Their `up -d` starts a small HTTP server on
   * MDCLI_PORT in place of the containers, `stop` stops it; every call is logged.
   */
  function fakeEngine(dir: string, opts: {plugin: boolean; standalone: boolean}): NodeJS.ProcessEnv {
    const calls = join(dir, 'calls.log')
    const pidFile = join(dir, 'container.pid')
    const container = `require('node:http').createServer((q, s) => { s.setHeader('content-type', 'application/json'); s.end('{"status":"ok"}') }).listen(Number(process.env.MDCLI_PORT), '127.0.0.1')`
    const compose = (name: string) => `  *" up -d") echo "${name} $*" >> '${calls}'; nohup '${process.execPath}' -e "${container.replaceAll('"', '\\"')}" >/dev/null 2>&1 & echo $! > '${pidFile}'; exit 0;;
  *" stop") echo "${name} $*" >> '${calls}'; kill "$(cat '${pidFile}')"; exit 0;;`
    writeFileSync(
      join(dir, 'docker'),
      `#!/bin/sh
case "$*" in
  "info --format {{.ServerVersion}}") echo 28.2.2; exit 0;;
${opts.plugin ? `  "compose version") echo "Docker Compose version v2.29.0"; exit 0;;
${compose('docker')}` : ''}
esac
echo "docker: unknown command: docker $1" >&2
exit 125
`,
    )
    writeFileSync(
      join(dir, 'docker-compose'),
      `#!/bin/sh
case "$*" in
  version) echo "docker-compose version 1.29.2"; exit 0;;
${compose('docker-compose')}
esac
exit 1
`,
    )
    chmodSync(join(dir, 'docker'), 0o755)
    chmodSync(join(dir, 'docker-compose'), 0o755)
    return {MDCLI_DOCKER_BIN: join(dir, 'docker'), MDCLI_DOCKER_COMPOSE_BIN: opts.standalone ? join(dir, 'docker-compose') : join(dir, 'not-installed')}
  }

  for (const [name, plugin, shown] of [
    ['the `docker compose` plugin', true, 'docker compose'],
    ["Debian's standalone docker-compose 1.x where the plugin is not installed", false, 'docker-compose'],
  ] as const) {
    it(`starts the containers with ${name}, and --stop stops them`, async () => {
      const home = tempDir()
      const port = await freePort()
      const env = {...process.env, HOME: home, XDG_DATA_HOME: join(home, 'data'), METADATA_GMS_URL: `http://127.0.0.1:${port}`, ...fakeEngine(home, {plugin, standalone: true})}
      try {
        const up = await runCli(['docker', 'quickstart', '--port', String(port)], {env})
        expect(up.code, up.stdout + up.stderr).to.equal(0)
        expect(up.stdout).to.include(`mdcli (PostgreSQL, ${join(home, shown.split(' ')[0]!)}${plugin ? ' compose' : ''}) is now running at http://127.0.0.1:${port}`)
        expect(readFileSync(join(home, 'calls.log'), 'utf8')).to.equal(`${shown} -p mdcli -f ${COMPOSE} up -d\n`)
        expect(JSON.parse(readFileSync(join(home, '.mdcli', 'quickstart.json'), 'utf8'))).to.include({mode: 'compose', compose: COMPOSE})
        const stop = await runCli(['docker', 'quickstart', '--stop'], {env})
        expect(stop.code, stop.stdout + stop.stderr).to.equal(0)
        expect(stop.stdout).to.match(/Stopped the mdcli containers/)
        expect(readFileSync(join(home, 'calls.log'), 'utf8').split('\n')[1]).to.equal(`${shown} -p mdcli -f ${COMPOSE} stop`)
        expect(existsSync(join(home, '.mdcli', 'quickstart.json'))).to.equal(false)
        const down = await runCli(['docker', 'check'], {env})
        expect(down.code).to.equal(1)
      } finally {
        if (existsSync(join(home, 'container.pid'))) {
          try {
            process.kill(Number(readFileSync(join(home, 'container.pid'), 'utf8')))
          } catch {
            /* stopped */
          }
        }
        cleanup(home)
      }
    })
  }

  it('falls back to lite, saying why, when an engine answers but no compose is installed', async () => {
    const home = tempDir()
    const port = await freePort()
    const env = {...process.env, HOME: home, XDG_DATA_HOME: join(home, 'data'), METADATA_GMS_URL: `http://127.0.0.1:${port}`, ...fakeEngine(home, {plugin: false, standalone: false})}
    try {
      const up = await runCli(['docker', 'quickstart', '--port', String(port)], {env})
      expect(up.code, up.stdout + up.stderr).to.equal(0)
      expect(up.stdout.split('\n')[0]).to.equal('A container engine answered, but neither `docker compose` nor `docker-compose` is installed; starting mdcli lite in the background instead.')
      expect(up.stdout).to.match(/mdcli is now running at http:\/\/127\.0\.0\.1:\d+/)
      expect(existsSync(join(home, 'calls.log'))).to.equal(false)
    } finally {
      const stop = await runCli(['docker', 'quickstart', '--stop'], {env})
      expect(stop.code, stop.stderr).to.equal(0)
      cleanup(home)
    }
  })

  it('falls back to lite in the background with a one-line message when no engine answers', async () => {
    const home = tempDir()
    const port = await freePort()
    const env = {...process.env, HOME: home, XDG_DATA_HOME: join(home, 'data'), METADATA_GMS_URL: `http://127.0.0.1:${port}`, MDCLI_DOCKER_BIN: join(home, 'no-docker-here')}
    try {
      const up = await runCli(['docker', 'quickstart', '--port', String(port)], {env})
      expect(up.code, up.stderr).to.equal(0)
      const lines = up.stdout.trim().split('\n')
      expect(lines[0]).to.equal('No container engine answered (docker info); starting mdcli lite in the background instead.')
      expect(up.stdout).to.match(/mdcli is now running at http:\/\/127\.0\.0\.1:\d+/)
    } finally {
      const stop = await runCli(['docker', 'quickstart', '--stop'], {env})
      expect(stop.code, stop.stderr).to.equal(0)
      cleanup(home)
    }
  })
})
