/**
 * `mdcli lite --ui`: a DataHub web-app build served at `/` (a small stand-in build made here, so
 * this suite needs nothing outside the repository), and the frontend server's part — sign-in with
 * a native password, the session and actor cookies, same-origin writes, sign-out, session expiry,
 * invite sign-up, password reset — on the real server over HTTP. Without `--ui` our own pages
 * stay at `/`.
 */
import {expect} from 'chai'
import yaml from 'js-yaml'
import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {http, type LiteProcess, startLite, tempDir} from '../helpers/lite.js'

const ADMIN_PASSWORD = 'correct horse battery'
const SAME = {'sec-fetch-site': 'same-origin'}

/** A request as a browser makes it: no bearer token, cookies as given, redirects not followed. */
async function browser(url: string, init: {method?: string; body?: unknown; cookie?: string; headers?: Record<string, string>} = {}) {
  const res = await fetch(url, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    redirect: 'manual',
    headers: {'content-type': 'application/json', ...(init.cookie ? {cookie: init.cookie} : {}), ...init.headers},
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  })
  const text = await res.text()
  let body: any = text
  try {
    body = text ? JSON.parse(text) : undefined
  } catch {
    /* not JSON */
  }
  return {status: res.status, body, headers: res.headers, cookies: res.headers.getSetCookie()}
}

/** The Cookie header a browser would send back after these Set-Cookie headers. */
const jar = (setCookies: string[]) => setCookies.map((c) => c.split(';')[0]).filter((c) => !c.endsWith('=')).join('; ')

function fakeBuild(): string {
  const dir = tempDir('mdcli-ui-')
  mkdirSync(join(dir, 'assets'))
  mkdirSync(join(dir, 'node_modules', 'monaco-editor', 'min'), {recursive: true})
  writeFileSync(join(dir, 'index.html'), '<!doctype html><html><head><base href="@basePath" /><script type="module" src="assets/index-Ab12Cd34.js"></script></head><body><div id="root"></div></body></html>')
  writeFileSync(join(dir, 'assets', 'index-Ab12Cd34.js'), 'console.log("app")')
  writeFileSync(join(dir, 'manifest.json'), '{"name":"DataHub"}')
  writeFileSync(join(dir, 'node_modules', 'monaco-editor', 'min', 'loader.js'), '/* monaco */')
  return dir
}

describe('lite --ui: DataHub’s web app and its frontend server’s part', function () {
  this.timeout(120_000)
  let lite: LiteProcess
  const gql = (query: string, cookie: string, headers: Record<string, string> = SAME, variables: Record<string, unknown> = {}) =>
    browser(`${lite.url}/api/v2/graphql`, {body: {query, variables}, cookie, headers})
  const signIn = async (username: string, password: string) => {
    const r = await browser(`${lite.url}/logIn`, {body: {username, password}, headers: SAME})
    expect(r.status, JSON.stringify(r.body)).to.equal(200)
    return jar(r.cookies)
  }

  before(async () => {
    lite = await startLite({args: ['--ui', fakeBuild(), '--session-ttl', '3'], env: {MDCLI_ADMIN_PASSWORD: ADMIN_PASSWORD}})
  })
  after(async () => {
    await lite?.stop()
  })

  describe('the build', () => {
    it('serves index.html with @basePath filled in at / and at any route of the app', async () => {
      for (const path of ['/', '/search?query=x', '/dataset/urn:li:dataset:(urn:li:dataPlatform:hive,a,PROD)/Schema', '/login']) {
        const r = await browser(`${lite.url}${path}`)
        expect(r.status, path).to.equal(200)
        expect(r.headers.get('content-type')).to.match(/^text\/html/)
        expect(r.body).to.include('<base href="/" />').and.not.include('@basePath')
        expect(r.headers.get('cache-control')).to.equal('no-cache')
        expect(r.headers.get('content-security-policy')).to.include("default-src 'self'")
        // A dashboard's embedded preview (embed.renderUrl, another site) is framed by the app.
        expect(r.headers.get('content-security-policy')).to.include("frame-src 'self' https: http:")
      }
    })

    it('serves hashed assets cached for good, other files revalidated, missing assets as 404', async () => {
      const js = await browser(`${lite.url}/assets/index-Ab12Cd34.js`)
      expect(js.status).to.equal(200)
      expect(js.headers.get('content-type')).to.match(/^text\/javascript/)
      expect(js.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable')
      const again = await browser(`${lite.url}/assets/index-Ab12Cd34.js`, {headers: {'if-none-match': js.headers.get('etag')!}})
      expect(again.status).to.equal(304)
      const manifest = await browser(`${lite.url}/manifest.json`)
      expect(manifest.body).to.deep.equal({name: 'DataHub'})
      expect(manifest.headers.get('cache-control')).to.equal('no-cache')
      expect((await browser(`${lite.url}/node_modules/monaco-editor/min/loader.js`)).status).to.equal(200)
      expect((await browser(`${lite.url}/assets/missing-Zz99Yy88.js`)).status).to.equal(404)
    })

    it('never serves a file outside the build', async () => {
      for (const path of ['/assets/..%2f..%2f..%2fetc%2fpasswd', '/assets/..%5c..%5c..%5cetc%5cpasswd', '/node_modules/..%2F..%2Fetc%2Fhostname']) {
        const r = await browser(`${lite.url}${path}`)
        expect(r.status, path).to.be.oneOf([400, 404])
        expect(String(r.body)).to.not.include('root:')
      }
    })

    it('keeps the API where it was: REST and /api/graphql with a bearer token', async () => {
      expect((await http(`${lite.url}/health`)).status).to.equal(200)
      const r = await http(`${lite.url}/api/graphql`, {body: {query: '{ me { corpUser { urn } } }'}})
      expect(r.body.data.me.corpUser.urn).to.equal('urn:li:corpuser:datahub')
      expect((await browser(`${lite.url}/api/graphiql`)).status).to.equal(200)
    })

    it('accepts and drops the app’s usage-tracking events', async () => {
      const t = await browser(`${lite.url}/openapi/v1/tracking/track`, {body: {type: 'PageViewEvent'}, headers: SAME})
      expect(t.status).to.equal(200)
    })

    it('answers the app’s micro-frontends config with valid YAML that lists none', async () => {
      const r = await fetch(`${lite.url}/mfe/config`)
      expect(r.status).to.equal(200)
      expect(r.headers.get('content-type')).to.match(/^text\/yaml/)
      expect(yaml.load(await r.text())).to.deep.equal({microFrontends: []})
    })
  })

  describe('signing in', () => {
    it('a wrong password or unknown user is a 401 with a message and no cookie', async () => {
      for (const [username, password] of [['datahub', 'not the password'], ['nobody', ADMIN_PASSWORD]]) {
        const r = await browser(`${lite.url}/logIn`, {body: {username, password}, headers: SAME})
        expect(r.status).to.equal(401)
        expect(r.body.message).to.be.a('string')
        expect(r.cookies).to.deep.equal([])
      }
    })

    it('the password from MDCLI_ADMIN_PASSWORD signs the admin in: an HttpOnly session cookie and a readable actor cookie', async () => {
      const r = await browser(`${lite.url}/logIn`, {body: {username: 'datahub', password: ADMIN_PASSWORD}, headers: SAME})
      expect(r.status).to.equal(200)
      const session = r.cookies.find((c) => c.startsWith('mdcli_session='))!
      const actor = r.cookies.find((c) => c.startsWith('actor='))!
      expect(session).to.include('HttpOnly').and.include('SameSite=Lax').and.include('Path=/')
      expect(actor).to.not.include('HttpOnly')
      expect(decodeURIComponent(actor.split(';')[0]!.slice('actor='.length))).to.equal('urn:li:corpuser:datahub')
      expect(lite.output()).to.not.include(ADMIN_PASSWORD)
    })

    it('the session cookie carries the user to /api/v2/graphql; no cookie is a 401', async () => {
      const cookie = await signIn('datahub', ADMIN_PASSWORD)
      expect((await gql('{ me { corpUser { urn } } }', cookie)).body.data.me.corpUser.urn).to.equal('urn:li:corpuser:datahub')
      expect((await gql('{ me { corpUser { urn } } }', '')).status).to.equal(401)
      expect((await gql('{ me { corpUser { urn } } }', 'mdcli_session=mds_forged0000000000000000000000000000000000000')).status).to.equal(401)
    })

    it('a write signed in by cookie is refused unless it comes from this server’s pages; a bearer token needs no such proof', async () => {
      const cookie = await signIn('datahub', ADMIN_PASSWORD)
      const m = 'mutation { createTag(input: {id: "csrf", name: "csrf"}) }'
      const attempts: Array<Record<string, string>> = [{'sec-fetch-site': 'cross-site'}, {'sec-fetch-site': 'same-site'}, {origin: 'https://evil.example'}, {}]
      for (const headers of attempts) {
        const r = await gql(m, cookie, headers)
        expect(r.status, JSON.stringify(headers)).to.equal(403)
      }
      expect((await http(`${lite.url}/entitiesV2/${encodeURIComponent('urn:li:tag:csrf')}?alwaysIncludeKeyAspect=false`)).status).to.equal(404)
      const origin = await gql('mutation { createTag(input: {id: "same", name: "same"}) }', cookie, {origin: lite.url})
      expect(origin.body.errors, JSON.stringify(origin.body)).to.equal(undefined)
      const bearer = await http(`${lite.url}/api/v2/graphql`, {body: {query: 'mutation { createTag(input: {id: "bearer", name: "bearer"}) }'}})
      expect(bearer.body.errors, JSON.stringify(bearer.body)).to.equal(undefined)
    })

    it('/authenticate sends a signed-in browser back where it was, anyone else to the login page', async () => {
      const cookie = await signIn('datahub', ADMIN_PASSWORD)
      const back = await browser(`${lite.url}/authenticate?redirect_uri=${encodeURIComponent('/search?query=x')}`, {cookie})
      expect(back.status).to.equal(302)
      expect(back.headers.get('location')).to.equal('/search?query=x')
      const anon = await browser(`${lite.url}/authenticate?redirect_uri=${encodeURIComponent('/search')}`)
      expect(anon.headers.get('location')).to.equal('/login?redirect_uri=%2Fsearch')
      const away = await browser(`${lite.url}/authenticate?redirect_uri=${encodeURIComponent('//evil.example/x')}`, {cookie})
      expect(away.headers.get('location')).to.equal('/')
    })

    it('signing out ends the session on the server and clears both cookies', async () => {
      const cookie = await signIn('datahub', ADMIN_PASSWORD)
      const out = await browser(`${lite.url}/logOut`, {cookie})
      expect(out.status).to.equal(302)
      expect(out.cookies.some((c) => c.startsWith('mdcli_session=;') && c.includes('Max-Age=0'))).to.equal(true)
      expect(out.cookies.some((c) => c.startsWith('actor=;') && c.includes('Max-Age=0'))).to.equal(true)
      expect((await gql('{ me { corpUser { urn } } }', cookie)).status).to.equal(401)
    })

    it('a session expires (here after 3 s, --session-ttl)', async () => {
      const cookie = await signIn('datahub', ADMIN_PASSWORD)
      expect((await gql('{ me { corpUser { urn } } }', cookie)).status).to.equal(200)
      await new Promise((r) => setTimeout(r, 3500))
      const r = await gql('{ me { corpUser { urn } } }', cookie)
      expect(r.status).to.equal(401)
    })

    it('sessions are not listed among access tokens', async () => {
      await signIn('datahub', ADMIN_PASSWORD)
      const r = await http(`${lite.url}/api/graphql`, {body: {query: '{ listAccessTokens(input: {start: 0, count: 100}) { tokens { name } } }'}})
      expect(r.body.data.listAccessTokens.tokens.map((t: {name: string}) => t.name)).to.not.include('sign-in session')
    })
  })

  describe('invites, sign-up and password reset', () => {
    it('an invite with the Reader role signs a new user up, who is a Reader: reads work, edits are refused', async () => {
      const invite = await http(`${lite.url}/api/graphql`, {body: {query: 'mutation { createInviteToken(input: {roleUrn: "urn:li:dataHubRole:Reader"}) { inviteToken } }'}})
      const inviteToken = invite.body.data.createInviteToken.inviteToken as string
      const same = await http(`${lite.url}/api/graphql`, {body: {query: '{ getInviteToken(input: {roleUrn: "urn:li:dataHubRole:Reader"}) { inviteToken } }'}})
      expect(same.body.data.getInviteToken.inviteToken).to.equal(inviteToken)

      const bad = await browser(`${lite.url}/signUp`, {body: {fullName: 'Rita', email: 'rita@example.com', password: 'rita-password', inviteToken: 'nope'}, headers: SAME})
      expect(bad.status).to.equal(401)
      const short = await browser(`${lite.url}/signUp`, {body: {fullName: 'Rita', email: 'rita@example.com', password: 'short', inviteToken}, headers: SAME})
      expect(short.status).to.equal(400)
      const r = await browser(`${lite.url}/signUp`, {body: {fullName: 'Rita Reader', email: 'rita@example.com', password: 'rita-password', inviteToken}, headers: SAME})
      expect(r.status, JSON.stringify(r.body)).to.equal(200)
      const cookie = jar(r.cookies)
      const me = await gql('{ me { corpUser { urn isNativeUser properties { displayName email } } } }', cookie)
      expect(me.body.data.me.corpUser).to.deep.equal({urn: 'urn:li:corpuser:rita@example.com', isNativeUser: true, properties: {displayName: 'Rita Reader', email: 'rita@example.com'}})
      const edit = await gql('mutation { createTag(input: {id: "rita", name: "rita"}) }', cookie)
      expect(edit.body.errors?.[0]?.extensions?.code, JSON.stringify(edit.body)).to.equal(403)
      const again = await browser(`${lite.url}/signUp`, {body: {fullName: 'Rita', email: 'rita@example.com', password: 'other-password', inviteToken}, headers: SAME})
      expect(again.status).to.equal(409)
      // Rita may not invite anyone.
      expect((await gql('mutation { createInviteToken(input: {}) { inviteToken } }', cookie)).body.errors[0].extensions.code).to.equal(403)
    })

    it('an admin’s reset token lets a native user set a new password, once, and signs out whoever had signed in before', async () => {
      const before = await signIn('rita@example.com', 'rita-password')
      expect((await gql('{ me { corpUser { urn } } }', before)).status).to.equal(200)
      const reset = await http(`${lite.url}/api/graphql`, {body: {query: 'mutation { createNativeUserResetToken(input: {userUrn: "urn:li:corpuser:rita@example.com"}) { resetToken } }'}})
      const resetToken = reset.body.data.createNativeUserResetToken.resetToken as string
      const wrong = await browser(`${lite.url}/resetNativeUserCredentials`, {body: {email: 'rita@example.com', password: 'new-rita-password', resetToken: 'x'}, headers: SAME})
      expect(wrong.status).to.equal(401)
      const r = await browser(`${lite.url}/resetNativeUserCredentials`, {body: {email: 'rita@example.com', password: 'new-rita-password', resetToken}, headers: SAME})
      expect(r.status, JSON.stringify(r.body)).to.equal(200)
      expect((await browser(`${lite.url}/logIn`, {body: {username: 'rita@example.com', password: 'rita-password'}, headers: SAME})).status).to.equal(401)
      // The session signed in with the old password has ended.
      const old = await gql('{ me { corpUser { urn } } }', before)
      expect(old.status, JSON.stringify(old.body)).to.equal(401)
      await signIn('rita@example.com', 'new-rita-password')
      const twice = await browser(`${lite.url}/resetNativeUserCredentials`, {body: {email: 'rita@example.com', password: 'third-rita-password', resetToken}, headers: SAME})
      expect(twice.status).to.equal(401)
      // A user without a password has none to reset.
      const none = await http(`${lite.url}/api/graphql`, {body: {query: 'mutation { createNativeUserResetToken(input: {userUrn: "urn:li:corpuser:nobody"}) { resetToken } }'}})
      expect(none.body.errors[0].extensions.code).to.equal(400)
    })

    it('no API returns a password hash, a reset token or an invite token', async () => {
      const rita = encodeURIComponent('urn:li:corpuser:rita@example.com')
      const entity = JSON.stringify((await http(`${lite.url}/entitiesV2/${rita}?alwaysIncludeKeyAspect=false`)).body)
      expect(entity).to.not.include('hashedPassword').and.not.include('corpUserCredentials').and.not.include('salt')
      expect((await http(`${lite.url}/aspects/${rita}?aspect=corpUserCredentials&version=0`)).status).to.equal(404)
      const g = await http(`${lite.url}/api/graphql`, {body: {query: `{ entity(urn: "urn:li:corpuser:rita@example.com") { urn } }`}})
      expect(g.status).to.equal(200)
      const events = await fetch(`${lite.url}/events?from=0`, {headers: {authorization: `Bearer ${lite.token}`, accept: 'text/event-stream'}, signal: AbortSignal.timeout(1500)}).then((r) => r.text()).catch(() => '')
      expect(events).to.not.include('hashedPassword').and.not.include('"inviteToken"')
      const invites = await http(`${lite.url}/entitiesV2?ids=List(${encodeURIComponent(encodeURIComponent('urn:li:corpuser:datahub'))})`)
      expect(JSON.stringify(invites.body)).to.not.include('hashedPassword')
      // A run's rows list what it wrote, to anyone who may read: never a secret's value. Invites
      // and credentials are written outside any named run.
      const invite = (await http(`${lite.url}/api/graphql`, {body: {query: 'mutation { createInviteToken(input: {roleUrn: "urn:li:dataHubRole:Admin"}) { inviteToken } }'}})).body.data.createInviteToken.inviteToken as string
      const rows = await http(`${lite.url}/runs?action=describe`, {body: {runId: 'no-run-id-provided', start: 0, count: 10_000, includeAspect: true}})
      expect(rows.status).to.equal(200)
      const secretRows = rows.body.value.filter((r: {aspectName: string}) => r.aspectName === 'inviteToken' || r.aspectName === 'corpUserCredentials')
      expect(secretRows.length).to.be.at.least(2)
      for (const r of secretRows) expect(r.aspect, JSON.stringify(r)).to.equal(undefined)
      expect(JSON.stringify(rows.body)).to.not.include(invite).and.not.include('hashedPassword')
      expect(rows.body.value.some((r: {aspect?: unknown}) => r.aspect !== undefined), 'other rows still carry their values').to.equal(true)
    })

    it('an invite never takes over a user who exists already, with or without a password', async () => {
      const alice = 'urn:li:corpuser:alice@corp.example'
      const seed = await http(`${lite.url}/aspects?action=ingestProposalBatch`, {body: {proposals: [
        {entityUrn: alice, aspectName: 'corpUserInfo', changeType: 'UPSERT', aspect: {json: {active: true, displayName: 'Alice (SSO)'}}},
        {entityUrn: alice, aspectName: 'roleMembership', changeType: 'UPSERT', aspect: {json: {roles: ['urn:li:dataHubRole:Admin']}}},
      ]}})
      expect(seed.status, JSON.stringify(seed.body)).to.equal(200)
      const inviteToken = (await http(`${lite.url}/api/graphql`, {body: {query: 'mutation { createInviteToken(input: {}) { inviteToken } }'}})).body.data.createInviteToken.inviteToken as string
      const r = await browser(`${lite.url}/signUp`, {body: {fullName: 'Mallory', email: 'alice@corp.example', password: 'mallory-password', inviteToken}, headers: SAME})
      expect(r.status, JSON.stringify(r.body)).to.equal(409)
      expect(r.body.message).to.include('exists already')
      expect(jar(r.cookies)).to.not.include('mdcli_session')
      const info = await http(`${lite.url}/aspects/${encodeURIComponent(alice)}?aspect=corpUserInfo`)
      expect(info.body.aspect['com.linkedin.identity.CorpUserInfo'].displayName).to.equal('Alice (SSO)')
      expect((await browser(`${lite.url}/logIn`, {body: {username: 'alice@corp.example', password: 'mallory-password'}, headers: SAME})).status).to.equal(401)
    })

    it('a session works only as the cookie: sent as a bearer token it is refused', async () => {
      const cookie = await signIn('rita@example.com', 'new-rita-password')
      const session = /mdcli_session=([^;]+)/.exec(cookie)![1]!
      expect((await gql('{ me { corpUser { urn } } }', cookie)).body.data.me.corpUser.urn).to.equal('urn:li:corpuser:rita@example.com')
      const bearer = await http(`${lite.url}/api/graphql`, {body: {query: '{ me { corpUser { urn } } }'}, token: decodeURIComponent(session)})
      expect(bearer.status).to.equal(401)
      expect(bearer.body.message).to.include('session cookie')
    })

    it('a soft-deleted user is refused at once (session, access token, password) and let in again when restored', async () => {
      const rita = 'urn:li:corpuser:rita@example.com'
      const cookie = await signIn('rita@example.com', 'new-rita-password')
      const token = (await gql('mutation { createAccessToken(input: {type: PERSONAL, actorUrn: "urn:li:corpuser:rita@example.com", duration: ONE_DAY, name: "rita"}) { accessToken } }', cookie)).body.data.createAccessToken.accessToken as string
      expect((await http(`${lite.url}/api/graphql`, {token, body: {query: '{ me { corpUser { urn } } }'}})).status).to.equal(200)
      const removed = (value: boolean) => http(`${lite.url}/aspects?action=ingestProposal`, {body: {proposal: {entityUrn: rita, aspectName: 'status', changeType: 'UPSERT', aspect: {json: {removed: value}}}}})
      expect((await removed(true)).status).to.equal(200)
      expect((await gql('{ me { corpUser { urn } } }', cookie)).status).to.equal(401)
      const viaToken = await http(`${lite.url}/api/graphql`, {token, body: {query: '{ me { corpUser { urn } } }'}})
      expect(viaToken.status).to.equal(401)
      expect(viaToken.body.message).to.include('deleted')
      expect((await browser(`${lite.url}/logIn`, {body: {username: 'rita@example.com', password: 'new-rita-password'}, headers: SAME})).status).to.equal(401)
      expect((await removed(false)).status).to.equal(200)
      expect((await http(`${lite.url}/api/graphql`, {token, body: {query: '{ me { corpUser { urn } } }'}})).status).to.equal(200)
      await signIn('rita@example.com', 'new-rita-password')
    })
  })
})

describe('lite without --ui: our own pages; the admin password is generated and shown once', function () {
  this.timeout(120_000)
  it('serves mdcli’s pages at /, prints a generated password on the first start only, and it signs in', async () => {
    const lite = await startLite()
    try {
      const page = await browser(`${lite.url}/`)
      expect(page.body).to.include('/app/app.js')
      const password = /datahub for signing in[^\n]*\n\s+(\S+)/.exec(lite.output())?.[1]
      expect(password, lite.output()).to.be.a('string')
      const r = await browser(`${lite.url}/logIn`, {body: {username: 'datahub', password}, headers: SAME})
      expect(r.status).to.equal(200)
      await lite.stop()
      const again = await startLite({storeDir: lite.storeDir, home: lite.home})
      try {
        expect(again.output()).to.not.include('for signing in')
        expect(again.output()).to.not.include(password!)
      } finally {
        await again.stop()
      }
    } finally {
      await lite.stop()
    }
  })

  it('refuses --ui with a folder that holds no DataHub build, naming it', async () => {
    const dir = tempDir('mdcli-not-ui-')
    const {runCli} = await import('../helpers/lite.js')
    const r = await runCli(['lite', '--port', '0', '--store', tempDir(), '--ui', dir])
    expect(r.code).to.not.equal(0)
    expect(r.stderr).to.include('not a DataHub web-app build')
  })
})
