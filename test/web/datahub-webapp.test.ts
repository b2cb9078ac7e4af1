/**
 * DataHub's own web app, built unchanged (../shared/clients/datahub-web-react-build), in real
 * headless Chromium against `mdcli lite --ui` with every one of DataHub's golden files loaded:
 * sign in, home, search with a filter, the entity pages, lineage, glossary, domains, settings,
 * edits that survive a reload, and a Reader refused an edit.
 *
 * Every /api/v2/graphql response the page receives is recorded; a test fails on any operation
 * that answered an error (an `errors` array, or HTTP ≠ 200), named with its message. Where an
 * operation did not validate against mdcli's schema — a gap another piece of issue 30 is closing
 * (isSchemaGap below) — the test is skipped with the operation and its first message beside it,
 * never a silent pass.
 *
 * One lite and one browser serve the whole file (Chromium is slow on a busy 2-core machine);
 * each test opens its own browser context, signed in with the admin's saved session.
 */
import {expect} from 'chai'
import {existsSync} from 'node:fs'
import {join} from 'node:path'
import {type Browser, type BrowserContext, chromium, type Locator, type Page} from 'playwright-core'
import {cleanup, FIXTURES, http, type LiteProcess, ROOT, startLite, tempDir} from '../helpers/lite.js'
import {IN_CI, skipWithReason} from '../helpers/requires.js'
import {KNOWN_PLATFORMS} from '../../src/model/platforms.js'
import {ingestJson, writeRecipe} from '../ingest/helpers.js'

const BUILD = join(ROOT, '..', 'shared', 'clients', 'datahub-web-react-build')
const GOLDEN = join(FIXTURES, 'datahub-golden')
const PASSWORD = 'web app admin password'
const READER = {email: 'rita@example.com', password: 'rita reader password'}
const SIGNUP = {email: 'sam@example.com', password: 'sam signup password'}
const STARTUP = ['appConfig', 'getMe', 'getGlobalViewsSettings', 'getHomePageSettings', 'listMyViews', 'listGlobalViews', 'getLatestProductUpdate']

const DATASET = 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)'
/** Edits go to another dataset, so the dataset page's checks never depend on test order. */
const EDITED = 'urn:li:dataset:(urn:li:dataPlatform:hive,fct_users_created,PROD)'
const UPSTREAM = 'urn:li:dataset:(urn:li:dataPlatform:hive,fct_users_deleted,PROD)'

/**
 * An answer whose errors are all GraphQL validation errors names types or fields the schema does
 * not have yet: the gaps the other parts of issue 30 are closing (schema-apps: applications,
 * structured properties, audit stamps, attribution, deprecation, health, incidents, forms,
 * switched-off features; schema-lineage: the lineage graph, search flags and filters,
 * privileges, links, views). Such an operation skips its test, named with its first message.
 * Any other error (a resolver failing, a refusal, HTTP ≠ 200) fails the test.
 */
function isSchemaGap(e: GqlError): boolean {
  return e.extensions?.classification === 'ValidationError'
}

interface GqlError {
  message: string
  extensions?: {classification?: string; code?: number}
}

interface Answer {
  op: string
  status: number
  errors: string[]
  /** The errors are all schema gaps (see isSchemaGap). */
  gap: boolean
}

/** Records every GraphQL answer the page gets; `answers` is emptied by `reset()`. */
class Recorder {
  answers: Answer[] = []
  private pending = new Set<Promise<void>>()
  constructor(page: Page) {
    page.on('response', (r) => {
      if (!r.url().endsWith('/api/v2/graphql')) return
      const done = (async () => {
        let op = '?'
        try {
          op = (JSON.parse(r.request().postData() ?? '{}') as {operationName?: string}).operationName ?? '?'
        } catch {
          /* not JSON */
        }
        let errors: string[] = []
        let gap = false
        let body: string | undefined
        try {
          body = (await r.body()).toString('utf8')
        } catch {
          // The page moved on before the body was read (Chromium drops it): only the status is known.
        }
        if (body !== undefined) {
          try {
            const list = (JSON.parse(body) as {errors?: GqlError[]}).errors ?? []
            errors = list.map((e) => e.message)
            gap = list.length > 0 && list.every(isSchemaGap)
          } catch {
            errors = [`not JSON: ${body.slice(0, 80)}`]
          }
        }
        // DataHub answers a document that does not validate with HTTP 200 and its errors; mdcli too.
        const ok = r.status() === 200 || (gap && r.status() === 400)
        this.answers.push({op, status: r.status(), errors: ok ? errors : [`HTTP ${r.status()}`, ...errors], gap: gap && ok})
      })()
      this.pending.add(done)
      void done.finally(() => this.pending.delete(done))
    })
  }

  reset(): void {
    this.answers = []
  }

  async settled(): Promise<void> {
    await Promise.allSettled([...this.pending])
  }

  has(op: string): boolean {
    return this.answers.some((a) => a.op === op)
  }

  /**
   * Presses `button` until the page sends `op`: a click that meets a dialog mid-render is lost
   * (seen under load: no mutation went out, the dialog stayed open), so it is pressed again while
   * the button is still there.
   */
  async pressUntilSent(page: Page, button: Locator, op: string): Promise<void> {
    for (let i = 0; i < 3 && !this.has(op); i++) {
      if (i > 0 && !(await button.isVisible())) break
      await button.click()
      for (let t = 0; t < 40 && !this.has(op); t++) await page.waitForTimeout(250)
    }
    await this.waitFor(page, [op])
  }

  /** Waits until each named operation has answered at least once. */
  async waitFor(page: Page, ops: string[], timeoutMs = 90_000): Promise<void> {
    const deadline = Date.now() + timeoutMs
    while (ops.some((o) => !this.has(o)) && Date.now() < deadline) await page.waitForTimeout(250)
    expect(ops.filter((o) => !this.has(o)), 'operations the page never sent').to.deep.equal([])
  }
}

/**
 * Runs `checks` on a page, then judges its GraphQL answers: an error that is not a schema gap
 * fails the test (even when the checks passed); schema gaps skip it, each operation named.
 */
async function judged(ctx: Mocha.Context, rec: Recorder, page: Page, checks: () => Promise<void>, expectedToFail: string[] = []): Promise<void> {
  let failure: unknown
  await rec.settled()
  // A page whose own queries do not validate yet is skipped below whatever its checks would
  // show; on a busy machine its checks would only wait out their timeouts first.
  const gapAlready = rec.answers.some((a) => a.gap && !expectedToFail.includes(a.op))
  if (!gapAlready) {
    try {
      await checks()
    } catch (e) {
      failure = e
    }
  }
  // Let late answers of the page land before judging them.
  await page.waitForLoadState('networkidle', {timeout: 15_000}).catch(() => undefined)
  await rec.settled()
  const failed = rec.answers.filter((a) => a.errors.length > 0 && !expectedToFail.includes(a.op))
  expect(
    failed.filter((a) => !a.gap).map((a) => `${a.op}: ${a.errors.slice(0, 3).join(' | ')}`),
    'GraphQL operations that answered an error',
  ).to.deep.equal([])
  const blocked = [...new Map(failed.map((a) => [a.op, `${a.op} (${a.errors[0]!.slice(0, 120)})`])).values()]
  if (blocked.length > 0) {
    const why = failure instanceof Error ? `; page check: ${failure.message.split('\n')[0]!.slice(0, 160)}` : ''
    skipWithReason(ctx, `schema gaps still open in issue 30: ${blocked.join(', ')}${why}`)
  }
  if (failure) throw failure
}

/** The app's own path of an entity's page (it escapes only what would break the path). */
function entityPath(kind: string, urn: string, tab = ''): string {
  return `/${kind}/${urn.replace(/%/g, '%25').replace(/\//g, '%2F').replace(/\?/g, '%3F').replace(/#/g, '%23')}${tab ? `/${tab}` : ''}`
}

describe('DataHub’s web app in Chromium on lite --ui, with DataHub’s golden files', function () {
  this.timeout(300_000)
  let lite: LiteProcess
  let browser: Browser
  let dir: string
  /** The admin's signed-in cookies, for the contexts of the tests after sign-in. */
  let adminState: Awaited<ReturnType<BrowserContext['storageState']>>
  const contexts: BrowserContext[] = []
  /** This test's pages, with what their browser console reported, for the diagnosis of a failure. */
  const opened: Array<{page: Page; rec: Recorder; console: string[]}> = []

  async function gql(query: string, variables: Record<string, unknown> = {}, token = lite.token): Promise<any> {
    const r = await http(`${lite.url}/api/graphql`, {body: {query, variables}, token})
    expect(r.status, JSON.stringify(r.body)).to.equal(200)
    expect(r.body.errors, JSON.stringify(r.body.errors)).to.equal(undefined)
    return r.body.data
  }

  async function launch(): Promise<Browser> {
    return chromium.launch({executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking']})
  }

  async function newPage(state?: typeof adminState): Promise<{page: Page; rec: Recorder; context: BrowserContext}> {
    // A browser that went away under a loaded machine is started again, so one crash fails one test.
    if (!browser.isConnected()) browser = await launch()
    const context = await browser.newContext({viewport: {width: 1400, height: 1000}, storageState: state})
    contexts.push(context)
    // The app's first-visit welcome dialog and guided tours would cover the page: a person
    // dismisses them once, which the app remembers in the browser's local storage.
    await context.addInitScript({content: "localStorage.setItem('skipWelcomeModal', 'true'); localStorage.setItem('skipOnboardingTour', 'true')"})
    const page = await context.newPage()
    page.setDefaultTimeout(90_000)
    page.setDefaultNavigationTimeout(120_000)
    const rec = new Recorder(page)
    const console: string[] = []
    page.on('console', (m) => {
      if (m.type() === 'error') console.push(m.text().slice(0, 300))
    })
    page.on('pageerror', (e) => console.push(`uncaught: ${e.message.slice(0, 300)}`))
    opened.push({page, rec, console})
    return {page, rec, context}
  }

  /** Signs in through the app's login form. */
  async function signIn(page: Page, username: string, password: string): Promise<void> {
    await page.goto(`${lite.url}/login`, {waitUntil: 'domcontentloaded'})
    await page.fill('input#username', username)
    await page.fill('input#password', password)
    await page.keyboard.press('Enter')
    await page.waitForURL((u) => !u.pathname.startsWith('/login'), {timeout: 90_000})
  }

  /** Opens `path` as the admin and waits for the operations named. */
  async function open(path: string, ops: string[] = []): Promise<{page: Page; rec: Recorder}> {
    const {page, rec} = await newPage(adminState)
    await page.goto(`${lite.url}${path}`, {waitUntil: 'domcontentloaded'})
    await rec.waitFor(page, ['appConfig', 'getMe', ...ops])
    return {page, rec}
  }

  before(async function () {
    if (!existsSync(join(BUILD, 'index.html')) || !existsSync(GOLDEN)) {
      const reason = `DataHub's web-app build (${BUILD}) or golden files (${GOLDEN}) not found`
      if (IN_CI) throw new Error(`${reason} (CI=true: required)`)
      skipWithReason(this, reason)
    }
    lite = await startLite({args: ['--ui', BUILD], env: {MDCLI_ADMIN_PASSWORD: PASSWORD}})
    dir = tempDir('mdcli-webapp-')
    // The file source reads every golden file of the folder in one run.
    const r = await ingestJson(writeRecipe(dir, {source: {type: 'file', config: {path: GOLDEN}}, sink: {type: 'datahub-rest'}}, 'golden.yml'), lite.env(), [])
    expect(r.result?.failures, r.stderr).to.equal(0)
    browser = await launch()
    const {page, context} = await newPage()
    await signIn(page, 'datahub', PASSWORD)
    adminState = await context.storageState()
  })
  afterEach(async function () {
    // A failed test prints its pages' URL, GraphQL errors and console errors; with
    // MDCLI_WEB_SHOTS=<dir> it also saves a screenshot of each page.
    if (this.currentTest?.state === 'failed') {
      for (const [i, o] of opened.entries()) {
        const errors = o.rec.answers.filter((a) => a.errors.length > 0).map((a) => `${a.op}: ${a.errors.slice(0, 2).join(' | ')}`)
        process.stderr.write(`  page ${i} at ${o.page.url()}\n    GraphQL errors: ${JSON.stringify(errors)}\n    console errors: ${JSON.stringify(o.console.slice(0, 8))}\n`)
        const shots = process.env.MDCLI_WEB_SHOTS
        if (shots) {
          const file = join(shots, `${this.currentTest.title.replace(/[^a-z0-9]+/gi, '-').slice(0, 60)}-${i}.png`)
          await o.page.screenshot({path: file}).catch(() => undefined)
          process.stderr.write(`    screenshot: ${file}\n`)
        }
      }
    }
    opened.splice(0)
    for (const c of contexts.splice(0)) await c.close().catch(() => undefined)
  })
  after(async () => {
    await browser?.close()
    await lite?.stop()
    if (lite) cleanup(lite.storeDir, lite.home)
    if (dir) cleanup(dir)
  })

  describe('signing in', () => {
    it('signs in through the login form, boots with every startup query answered, and signs out', async function () {
      const {page, rec, context} = await newPage()
      const mfe: number[] = []
      const paths: string[] = []
      page.on('response', (r) => {
        const path = new URL(r.url()).pathname
        paths.push(path)
        if (path === '/mfe/config') mfe.push(r.status())
      })
      await page.goto(`${lite.url}/`, {waitUntil: 'commit'})
      // Not signed in: the app goes to the login page.
      await page.waitForURL(/\/login/, {timeout: 90_000})
      await signIn(page, 'datahub', PASSWORD)
      const cookies = await context.cookies()
      expect(cookies.find((c) => c.name === 'mdcli_session')?.httpOnly).to.equal(true)
      expect(decodeURIComponent(cookies.find((c) => c.name === 'actor')?.value ?? '')).to.equal('urn:li:corpuser:datahub')
      // The views queries are asked only when views are on; the others always.
      await rec.waitFor(page, STARTUP.filter((o) => !/Views$/.test(o)))
      await rec.settled()
      expect(rec.answers.filter((a) => STARTUP.includes(a.op) && a.errors.length > 0)).to.deep.equal([])
      // The app read its micro-frontends config as it booted, and took it without an error.
      expect(mfe, 'the statuses of the app’s /mfe/config requests').to.include(200)
      const logged = opened.find((o) => o.page === page)!.console
      expect(logged.filter((m) => m.includes('[MFE Loader]')), 'the app’s micro-frontend loader errors').to.deep.equal([])
      // appConfig's favicon is a file of the build: the app sets it as the page's icon.
      expect(paths.filter((p) => p === '/null'), 'requests for a null address').to.deep.equal([])
      const icon = await page.locator("link[rel~='icon']").first().getAttribute('href')
      expect(icon).to.equal('/assets/icons/favicon.ico')
      expect((await fetch(`${lite.url}${icon}`)).status).to.equal(200)

      // /logOut redirects to the login page, and the app (its session gone) may navigate there
      // itself first, which aborts the goto: where the browser ends up is what is checked.
      await page.goto(`${lite.url}/logOut`, {waitUntil: 'domcontentloaded'}).catch((e: unknown) => {
        if (!String(e).includes('ERR_ABORTED')) throw e
      })
      await page.waitForURL(/\/login/, {timeout: 90_000})
      expect((await context.cookies()).filter((c) => c.name === 'mdcli_session' || c.name === 'actor')).to.deep.equal([])
    })

    it('signs up through the app’s invite form: signed in with the invite’s role, and the app’s acceptRole answers true', async function () {
      const invite = (await gql('mutation { createInviteToken(input: {roleUrn: "urn:li:dataHubRole:Editor"}) { inviteToken } }')).createInviteToken.inviteToken as string
      const {page, rec, context} = await newPage()
      await page.goto(`${lite.url}/signup?invite_token=${encodeURIComponent(invite)}`, {waitUntil: 'domcontentloaded'})
      await judged(this, rec, page, async () => {
        await page.getByTestId('email').fill(SIGNUP.email)
        await page.getByTestId('name').fill('Sam Signup')
        await page.getByTestId('password').fill(SIGNUP.password)
        await page.getByTestId('confirmPassword').fill(SIGNUP.password)
        const signUp = page.waitForResponse((r) => r.url().endsWith('/signUp'))
        await page.getByTestId('sign-up').click()
        expect((await signUp).status()).to.equal(200)
        // Signed in, the app accepts the invite's role (it showed "Failed to accept invite" when
        // acceptRole was switched off) and goes home.
        await rec.waitFor(page, ['acceptRole'])
        await rec.settled()
        expect(rec.answers.filter((a) => a.op === 'acceptRole').map((a) => a.errors)).to.deep.equal([[]])
        expect(decodeURIComponent((await context.cookies()).find((c) => c.name === 'actor')?.value ?? '')).to.equal(`urn:li:corpuser:${SIGNUP.email}`)
      })
      const user = await gql(`{ corpUser(urn: "urn:li:corpuser:${SIGNUP.email}") { roles: relationships(input: {types: ["IsMemberOfRole"], direction: OUTGOING}) { relationships { entity { urn } } } } }`)
      expect(user.corpUser.roles.relationships.map((r: any) => r.entity.urn)).to.deep.equal(['urn:li:dataHubRole:Editor'])
    })

    it('a wrong password keeps the person on the login page, with no session', async () => {
      const {page, context} = await newPage()
      await page.goto(`${lite.url}/login`, {waitUntil: 'domcontentloaded'})
      await page.fill('input#username', 'datahub')
      await page.fill('input#password', 'not the password')
      const answer = page.waitForResponse((r) => r.url().endsWith('/logIn'))
      await page.keyboard.press('Enter')
      expect((await answer).status()).to.equal(401)
      expect(new URL(page.url()).pathname).to.equal('/login')
      expect((await context.cookies()).map((c) => c.name)).to.not.include('mdcli_session')
    })
  })

  describe('pages', () => {
    it('home: the greeting and its modules', async function () {
      const {page, rec} = await open('/')
      await judged(this, rec, page, async () => {
        await page.getByText(/Good (morning|afternoon|evening)/).first().waitFor()
        await rec.waitFor(page, ['getSearchResultsForMultiple'])
      })
    })

    it('search: results for a query, facets, and a platform filter that narrows them', async function () {
      const {page, rec} = await open('/search?query=SampleHiveDataset', ['getSearchResultsForMultiple'])
      await judged(this, rec, page, async () => {
        await page.getByText('SampleHiveDataset').first().waitFor()
        // Filter by a platform through the app's own URL form of a facet filter.
        rec.reset()
        await page.goto(`${lite.url}/search?query=*&filter_platform___false___EQUAL___0=urn%3Ali%3AdataPlatform%3Akafka`, {waitUntil: 'domcontentloaded'})
        await rec.waitFor(page, ['getSearchResultsForMultiple'])
        await page.getByText('SampleKafkaDataset').first().waitFor()
        expect(await page.getByText('SampleHiveDataset', {exact: true}).count()).to.equal(0)
      })
    })

    it('platform logos: each platform mdcli knows names one of the app’s logos, and a search result shows it', async function () {
      for (const p of KNOWN_PLATFORMS) {
        if (!p.logoUrl) continue
        const r = await fetch(`${lite.url}${p.logoUrl}`)
        expect(r.status, `${p.name}: ${p.logoUrl}`).to.equal(200)
        expect(r.headers.get('content-type'), p.logoUrl).to.match(/^image\//)
        await r.arrayBuffer()
      }
      // DataHub's bootstrap file describes many platforms (its logos on GitHub), not `mariadb`:
      // its logo comes from the list mdcli knows.
      const probe = `urn:li:dataset:(urn:li:dataPlatform:mariadb,logo_probe.t,PROD)`
      const w = await http(`${lite.url}/aspects?action=ingestProposal`, {body: {proposal: {entityType: 'dataset', entityUrn: probe, changeType: 'UPSERT', aspectName: 'datasetProperties', aspect: {contentType: 'application/json', value: JSON.stringify({name: 'logo_probe_table'})}}}})
      expect(w.status, JSON.stringify(w.body)).to.equal(200)
      const {page, rec} = await open('/search?query=logo_probe_table', ['getSearchResultsForMultiple'])
      await judged(this, rec, page, async () => {
        await page.getByText('logo_probe_table').first().waitFor()
        await page.locator('img[src="/assets/platforms/mariadblogo.png"]').first().waitFor()
      })
    })

    it('dataset: schema, documentation, properties, ownership', async function () {
      const {page, rec} = await open(entityPath('dataset', DATASET, 'Schema'), ['getDataset'])
      await judged(this, rec, page, async () => {
        await page.getByText('SampleHiveDataset').first().waitFor()
        await page.getByText('field_foo').first().waitFor()
        await page.getByRole('tab', {name: /Documentation/}).first().click()
        await page.getByRole('tab', {name: /Properties/}).first().click()
        await page.getByText(/jdoe|John Doe/).first().waitFor()
      })
    })

    it('dataset: the lineage tab’s impact analysis lists the downstream dataset', async function () {
      const {page, rec} = await open(entityPath('dataset', DATASET, 'Lineage'), ['getDataset'])
      await judged(this, rec, page, async () => {
        // The tab opens on the graph (the explorer); the list is its impact analysis.
        await page.getByText('Impact Analysis').first().click()
        await page.getByText('logging_events').first().waitFor()
      })
    })

    it('dataset: the lineage graph shows the dataset and its neighbours as nodes', async function () {
      const {page, rec} = await open(`${entityPath('dataset', DATASET)}?is_lineage_mode=true`, ['getEntityLineage'])
      await judged(this, rec, page, async () => {
        await page.locator('svg').getByText('SampleHiveDataset').first().waitFor()
        await page.locator('svg').getByText(/SampleHdfsDataset|logging_events/).first().waitFor()
      })
    })

    it('dataset: queries and stats, where the golden files have them', async function () {
      const {page, rec} = await open(entityPath('dataset', DATASET, 'Stats'), ['getDataset'])
      await judged(this, rec, page, async () => {
        await page.getByRole('tab', {name: /Queries/}).first().click()
        await page.getByText(/SELECT|select/).first().waitFor()
      })
    })

    const ENTITY_PAGES: Array<[string, string, string, string]> = [
      ['chart', 'chart', 'urn:li:chart:(looker,baz1)', 'getChart'],
      ['dashboard', 'dashboard', 'urn:li:dashboard:(looker,baz)', 'getDashboard'],
      ['container', 'container', 'urn:li:container:DATABASE', 'getContainer'],
      ['domain', 'domain', 'urn:li:domain:marketing', 'getDomain'],
      ['glossary term', 'glossaryTerm', 'urn:li:glossaryTerm:SavingAccount', 'getGlossaryTerm'],
      ['tag', 'tag', 'urn:li:tag:Legacy', 'getTag'],
      ['user', 'user', 'urn:li:corpuser:jdoe', 'getUser'],
      ['group', 'group', 'urn:li:corpGroup:jdoe', 'getGroup'],
    ]
    for (const [label, kind, urn, op] of ENTITY_PAGES) {
      it(`${label} page`, async function () {
        const {page, rec} = await open(entityPath(kind, urn), [op])
        await judged(this, rec, page, async () => {
          const answer = rec.answers.find((a) => a.op === op)!
          expect(answer.errors).to.deep.equal([])
          await page.locator('main, #root').first().waitFor()
        })
      })
    }

    it('glossary: the root node and a term inside it', async function () {
      const {page, rec} = await open('/glossary', ['getRootGlossaryNodes', 'getRootGlossaryTerms'])
      await judged(this, rec, page, async () => {
        await page.getByText('ClientsAndAccounts').first().click()
        await page.getByText(/SavingAccount|Saving Account/).first().waitFor()
      })
    })

    it('domains: the golden files’ domains', async function () {
      const {page, rec} = await open('/domains', ['scrollAcrossEntities'])
      await judged(this, rec, page, async () => {
        await page.getByText('Sales').first().waitFor()
      })
    })
  })

  describe('settings', () => {
    it('access tokens: create one (shown once, and it works), list it, revoke it', async function () {
      const {page, rec} = await open('/settings/tokens', ['listAccessTokens'])
      await judged(this, rec, page, async () => {
        await page.getByRole('button', {name: /Generate new token/}).click()
        await page.getByText('Personal Token').click()
        const form = page.getByRole('dialog')
        await form.getByTestId('create-access-token-name').fill('web app test token')
        await form.getByTestId('create-access-token-description').fill('made by the web app test')
        await form.getByRole('button', {name: /Create/}).click()
        await rec.waitFor(page, ['createAccessToken'])
        // The new token is shown once, and it is a working bearer token.
        const shown = page.getByRole('dialog').filter({hasText: 'New Access Token'})
        const secret = /mdt_[A-Za-z0-9_-]+/.exec(await shown.innerText())?.[0]
        expect(secret, 'the token shown by the app').to.be.a('string')
        const me = await gql('{ me { corpUser { urn } } }', {}, secret)
        expect(me.me.corpUser.urn).to.equal('urn:li:corpuser:datahub')
        await shown.getByRole('button', {name: 'Close'}).last().click()
        const row = page.getByRole('row').filter({hasText: 'web app test token'}).first()
        await row.waitFor()
        rec.reset()
        await row.getByTestId('revoke-token-button').click()
        await rec.pressUntilSent(page, page.getByRole('dialog').filter({hasText: 'revoke this token'}).getByRole('button', {name: 'Yes'}), 'revokeAccessToken')
        await row.waitFor({state: 'detached'})
        // Revoked on the server: the token no longer signs anything in.
        const refused = await http(`${lite.url}/api/graphql`, {body: {query: '{ me { corpUser { urn } } }'}, token: secret})
        expect(refused.status).to.equal(401)
      })
    })

    it('users and groups', async function () {
      const {page, rec} = await open('/settings/identities/users', ['listUsers'])
      await judged(this, rec, page, async () => {
        await page.getByText('jdoe').first().waitFor()
        // The admin's row shows the Admin role it holds (its roleMembership), not "No Role".
        const role = page.getByRole('row').filter({hasText: 'datahub'}).first().getByRole('cell').nth(3)
        await role.getByText('Admin', {exact: true}).waitFor()
        await page.goto(`${lite.url}/settings/identities/groups`, {waitUntil: 'domcontentloaded'})
        await rec.waitFor(page, ['listGroups'])
        await page.getByText(/bfoo|jdoe/).first().waitFor()
      })
    })

    it('policies and roles', async function () {
      const {page, rec} = await open('/settings/permissions/policies', ['listPolicies'])
      await judged(this, rec, page, async () => {
        await page.getByText(/All Users|Root User|Admins/i).first().waitFor()
        await page.goto(`${lite.url}/settings/permissions/roles`, {waitUntil: 'domcontentloaded'})
        await rec.waitFor(page, ['listRoles'])
        await page.getByText('Reader').first().waitFor()
        await page.getByText('Editor').first().waitFor()
      })
    })
  })

  describe('edits, each visible after a reload', () => {
    /** Reads the edited dataset back through the API. */
    async function edited(): Promise<any> {
      return (
        await gql(`query d($urn: String!) { dataset(urn: $urn) {
          tags { tags { tag { urn } } } glossaryTerms { terms { term { urn } } }
          ownership { owners { owner { ... on CorpUser { urn } ... on CorpGroup { urn } } } }
          editableProperties { description } domain { domain { urn } } deprecation { deprecated note } } }`, {urn: EDITED})
      ).dataset
    }

    /** Opens the edited dataset's page; `edit` acts through the app; the page is reloaded and `visible` must hold. */
    async function editAndReload(ctx: Mocha.Context, edit: (page: Page, rec: Recorder) => Promise<void>, visible: (page: Page) => Promise<void>): Promise<void> {
      const {page, rec} = await open(entityPath('dataset', EDITED, 'Schema'), ['getDataset'])
      await judged(ctx, rec, page, async () => {
        await page.getByTestId('entity-header-test-id').getByText('fct_users_created').waitFor()
        await edit(page, rec)
        await page.reload({waitUntil: 'domcontentloaded'})
        await rec.waitFor(page, ['getDataset'])
        await visible(page)
      })
    }

    /**
     * The sidebar's tag or term picker: its "+" opens a dialog whose dropdown searches; the option
     * is picked, the dropdown closed by a click on the dialog's title, and the dialog's Add pressed.
     */
    async function pickLabel(page: Page, button: string, title: string, search: string, urn: string): Promise<void> {
      await page.getByTestId(button).click()
      const dialog = page.getByRole('dialog')
      await dialog.getByTestId('tag-term-modal-input-base').click()
      await page.getByTestId('dropdown-search-input').fill(search)
      await page.getByTestId(`option-${urn}`).click()
      await dialog.getByRole('heading', {name: title}).click()
      await page.getByTestId('add-tag-term-from-modal-btn').click()
    }

    it('adds a tag', async function () {
      await editAndReload(
        this,
        async (page, rec) => {
          await pickLabel(page, 'add-tags-button', 'Add Tags', 'NeedsDocumentation', 'urn:li:tag:NeedsDocumentation')
          await rec.waitFor(page, ['batchAddTags'])
        },
        (page) => page.getByTestId('sidebar-section-content-Tags').getByText('NeedsDocumentation').waitFor(),
      )
      expect((await edited()).tags.tags.map((t: any) => t.tag.urn)).to.include('urn:li:tag:NeedsDocumentation')
    })

    it('adds a glossary term', async function () {
      await editAndReload(
        this,
        async (page, rec) => {
          await pickLabel(page, 'add-terms-button', 'Add Glossary Terms', 'AccountBalance', 'urn:li:glossaryTerm:AccountBalance')
          await rec.waitFor(page, ['batchAddTerms'])
        },
        (page) => page.getByTestId('sidebar-section-content-Terms').getByText('AccountBalance').waitFor(),
      )
      expect((await edited()).glossaryTerms.terms.map((t: any) => t.term.urn)).to.include('urn:li:glossaryTerm:AccountBalance')
    })

    it('adds an owner', async function () {
      await editAndReload(
        this,
        async (page, rec) => {
          await page.getByTestId('add-owners-button').click()
          const dialog = page.getByRole('dialog')
          await dialog.getByTestId('add-owners-select-base').click()
          // The picker lists active users and anyone with a display name (its filters, as in
          // DataHub): the okta golden file's Engineering group has one.
          await page.getByTestId('dropdown-search-input').fill('Engineering')
          await page.getByTestId('option-urn:li:corpGroup:Engineering').click()
          await dialog.getByRole('heading', {name: 'Add Owners'}).click()
          await dialog.getByTestId('modal-add-owner-button').click()
          await rec.waitFor(page, ['batchAddOwners'])
        },
        (page) => page.getByTestId('sidebar-section-content-Owners').getByText(/Engineering/).first().waitFor(),
      )
      expect(JSON.stringify((await edited()).ownership)).to.include('urn:li:corpGroup:Engineering')
    })

    it('writes documentation', async function () {
      await editAndReload(
        this,
        async (page, rec) => {
          await page.getByTestId('editDocumentation').click()
          await page.getByTestId('description-editor').locator('[contenteditable="true"]').first().click()
          await page.keyboard.press('Control+A')
          await page.keyboard.type('Users created, per day (written in the web app)')
          await page.getByTestId('description-editor-save-button').click()
          await rec.waitFor(page, ['updateDataset'])
        },
        (page) => page.getByTestId('sidebar-section-content-Documentation').getByText('Users created, per day (written in the web app)').waitFor(),
      )
      expect((await edited()).editableProperties.description).to.include('written in the web app')
    })

    it('sets a domain', async function () {
      await editAndReload(
        this,
        async (page, rec) => {
          await page.getByTestId('set-domain-button').click()
          const dialog = page.getByRole('dialog')
          await dialog.getByTestId('set-domain-select').locator('input').fill('Sales')
          // The select's options are drawn outside the dialog; the accessible ones hold only urns.
          await page.locator('.ant-select-item-option').filter({hasText: 'Sales'}).first().click()
          await dialog.getByTestId('submit-button').click()
          await rec.waitFor(page, ['batchSetDomain'])
        },
        (page) => page.getByTestId('sidebar-section-content-Domain').getByText('Sales').waitFor(),
      )
      expect((await edited()).domain.domain.urn).to.equal('urn:li:domain:marketing')
    })

    it('marks the dataset deprecated', async function () {
      await editAndReload(
        this,
        async (page, rec) => {
          await page.getByTestId('entity-menu-actions').click()
          await page.getByTestId('entity-menu-deprecate-button').click()
          const dialog = page.getByRole('dialog')
          const note = dialog.locator('textarea').first()
          // The modal resets its note when the entity it was opened on is fetched again, so the
          // note is written until it stays.
          for (let i = 0; i < 20 && (await note.inputValue()) !== 'Use fct_users instead'; i++) {
            await note.fill('Use fct_users instead')
            await page.waitForTimeout(250)
          }
          await rec.pressUntilSent(page, dialog.getByTestId('add-deprecation-submit'), 'batchUpdateDeprecation')
        },
        (page) => page.getByTestId('sidebar-section-content-Status').getByText(/Deprecated/).waitFor(),
      )
      expect((await edited()).deprecation).to.deep.include({deprecated: true, note: 'Use fct_users instead'})
    })
  })

  describe('a Reader', () => {
    it('signs in, opens a dataset, is offered no edit, and an edit sent with the session is refused: nothing is written', async function () {
      // A Reader with a password: an invite with the Reader role, used through the sign-up endpoint.
      const invite = await gql('mutation { createInviteToken(input: {roleUrn: "urn:li:dataHubRole:Reader"}) { inviteToken } }')
      const signUp = await fetch(`${lite.url}/signUp`, {
        method: 'POST',
        headers: {'content-type': 'application/json', origin: lite.url, 'sec-fetch-site': 'same-origin'},
        body: JSON.stringify({fullName: 'Rita Reader', email: READER.email, password: READER.password, inviteToken: invite.createInviteToken.inviteToken}),
      })
      expect(signUp.status, await signUp.clone().text()).to.equal(200)
      const {page, rec} = await newPage()
      await signIn(page, READER.email, READER.password)
      const before = await gql(`query d($urn: String!) { dataset(urn: $urn) { tags { tags { tag { urn } } } } }`, {urn: UPSTREAM})
      rec.reset()
      await page.goto(`${lite.url}${entityPath('dataset', UPSTREAM, 'Schema')}`, {waitUntil: 'domcontentloaded'})
      await rec.waitFor(page, ['getDataset'])
      await judged(
        this,
        rec,
        page,
        async () => {
          // The app reads the Reader's privileges from the server and offers no tag edit.
          const add = page.getByTestId('add-tags-button')
          await add.waitFor()
          expect(await add.isDisabled(), 'the add-tags button is disabled for a Reader').to.equal(true)
          // The edit the button would send, sent by the Reader's signed-in page: the server refuses it.
          const answer = await page.evaluate(async (urn) => {
            const r = await fetch('/api/v2/graphql', {
              method: 'POST',
              credentials: 'same-origin',
              headers: {'content-type': 'application/json'},
              body: JSON.stringify({
                operationName: 'batchAddTags',
                query: 'mutation batchAddTags($input: BatchAddTagsInput!) { batchAddTags(input: $input) }',
                variables: {input: {tagUrns: ['urn:li:tag:Legacy'], resources: [{resourceUrn: urn}]}},
              }),
            })
            return {status: r.status, body: (await r.json()) as {errors?: Array<{message: string}>}}
          }, UPSTREAM)
          expect(answer.body.errors?.map((e) => e.message).join(' '), 'the edit was refused').to.match(/Unauthorized|not authorized|403/i)
        },
        ['batchAddTags'],
      )
      // Nothing written.
      const afterEdit = await gql(`query d($urn: String!) { dataset(urn: $urn) { tags { tags { tag { urn } } } } }`, {urn: UPSTREAM})
      expect(afterEdit).to.deep.equal(before)
    })
  })
})
