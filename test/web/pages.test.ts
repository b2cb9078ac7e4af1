import {expect} from 'chai'
import {existsSync} from 'node:fs'
import {chromium, type Browser, type Page} from 'playwright-core'
import {CATALOG_SAMPLE, http, runCli, useLite} from '../helpers/lite.js'
import {IN_CI, skipWithReason} from '../helpers/requires.js'
import {accepts} from '../../src/catalog/edits/common.js'
import {DESCRIPTION_TYPES} from '../../src/catalog/edits/description.js'

const CHROMIUM = process.env.MDCLI_TEST_CHROMIUM ?? '/usr/bin/chromium'
const HDFS = 'urn:li:dataset:(urn:li:dataPlatform:hdfs,SampleHdfsDataset,PROD)'
const KAFKA = 'urn:li:dataset:(urn:li:dataPlatform:kafka,SampleKafkaDataset,PROD)'
const HIVE = 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)'
const FCT = 'urn:li:dataset:(urn:li:dataPlatform:hive,fct_users_created,PROD)'
const LOGGING = 'urn:li:dataset:(urn:li:dataPlatform:hive,logging_events,PROD)'

describe('web pages in a real browser (headless Chromium)', function () {
  this.timeout(180_000)
  const lite = useLite()
  let browser: Browser
  let bobToken: string
  /** What Chromium refused under the pages' Content-Security-Policy, in any test (checked by the last). */
  const refusedByPolicy: string[] = []
  /** A browser context whose console is watched for Content-Security-Policy refusals. */
  const newContext = async (opts: Parameters<Browser['newContext']>[0] = {}) => {
    const ctx = await browser.newContext(opts)
    ctx.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) refusedByPolicy.push(m.text())
    })
    return ctx
  }

  before(async function () {
    if (!existsSync(CHROMIUM)) {
      if (IN_CI) throw new Error(`Chromium is not installed at ${CHROMIUM} (.ci/run installs it with apt-get)`)
      skipWithReason(this, `no Chromium at ${CHROMIUM}; apt-get install chromium`)
    }
    const r = await runCli(['ingest', '-c', '-'], {env: lite.env(), input: `source: {type: file, config: {path: "${CATALOG_SAMPLE}"}}\n`})
    expect(r.code, r.stdout + r.stderr).to.equal(0)
    const gql = (query: string) => http(`${lite.url}/api/graphql`, {token: lite.token, body: {query}})
    expect((await gql('mutation { createTag(input: {id: "web-test", name: "web-test"}) }')).body.errors).to.equal(undefined)
    const t = await gql('mutation { createAccessToken(input: {type: PERSONAL, actorUrn: "urn:li:corpuser:bob", duration: ONE_DAY, name: "bob"}) { accessToken } }')
    bobToken = t.body.data.createAccessToken.accessToken
    browser = await chromium.launch({executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking']})
  })
  after(async () => {
    await browser?.close()
  })

  /** Writes one aspect as ingestion would (the test's own small fixtures). */
  const propose = async (urn: string, aspectName: string, value: unknown) => {
    const entityType = /^urn:li:([^:]+):/.exec(urn)![1]
    const r = await http(`${lite.url}/aspects?action=ingestProposal`, {token: lite.token, body: {proposal: {entityType, entityUrn: urn, aspectName, changeType: 'UPSERT', aspect: {contentType: 'application/json', value: JSON.stringify(value)}}}})
    expect(r.status, JSON.stringify(r.body)).to.equal(200)
  }
  const api = async (query: string, variables: Record<string, unknown> = {}) => {
    const r = await http(`${lite.url}/api/graphql`, {token: lite.token, body: {query, variables}})
    expect(r.body.errors, JSON.stringify(r.body.errors)).to.equal(undefined)
    return r.body.data
  }

  const signIn = async (token: string): Promise<Page> => {
    const page = await (await newContext()).newPage()
    await page.goto(lite.url)
    await page.getByLabel('Access token').fill(token)
    await page.getByRole('button', {name: 'Sign in'}).click()
    await page.getByRole('heading', {name: 'Catalog'}).waitFor()
    return page
  }

  it('a wrong token is refused at sign-in; the right one shows the home page with counts per type and platforms', async () => {
    const page = await (await newContext()).newPage()
    await page.goto(lite.url)
    await page.getByLabel('Access token').fill('mdt_not_a_token')
    await page.getByRole('button', {name: 'Sign in'}).click()
    await page.getByRole('alert').waitFor()
    expect(await page.getByRole('alert').textContent()).to.match(/token/i)
    const home = await signIn(lite.token)
    expect(await home.getByRole('list', {name: 'Entity types'}).textContent()).to.match(/dataset\s*\d+/)
    expect(await home.getByRole('list', {name: 'Platforms'}).textContent()).to.include('kafka')
    // The home page's query goes out beside the sign-in check, not after its answer: one round trip.
    const order: string[] = []
    const kind = (body: string | null) => /^\{"query":"query (home|\{ me)\b/.exec(body ?? '')?.[1]?.replace('{ ', '')
    home.on('request', (r) => kind(r.postData()) && order.push(`ask ${kind(r.postData())}`))
    home.on('requestfinished', (r) => kind(r.postData()) && order.push(`got ${kind(r.postData())}`))
    await home.reload()
    await home.getByRole('list', {name: 'Entity types'}).waitFor()
    // The driver reports a request's end a moment after the page has used its answer.
    for (let i = 0; i < 100 && !order.includes('got me'); i++) await new Promise((r) => setTimeout(r, 20))
    // Asked before the sign-in check's answer came back (which of the two goes out first, and
    // whether home's answer beats React's effect that asks `me`, depends on timing).
    expect(order).to.include.members(['ask home', 'ask me', 'got me'])
    expect(order.indexOf('ask home')).to.be.below(order.indexOf('got me'))
    expect(order.filter((x) => x.startsWith('ask'))).to.have.length(2)
    await home.context().close()
    await page.context().close()
  })

  it('searches from the header, keeps the query and filters in the URL, and opens a dataset with its schema and lineage', async () => {
    const page = await signIn(lite.token)
    await page.getByLabel('Search the catalog').fill('SampleHdfsDataset')
    await page.keyboard.press('Enter')
    await page.getByText(/results for/).waitFor()
    expect(new URL(page.url()).searchParams.get('q')).to.equal('SampleHdfsDataset')
    await page.getByRole('link', {name: 'SampleHdfsDataset'}).first().click()
    await page.getByRole('heading', {name: 'SampleHdfsDataset'}).waitFor()
    expect(decodeURIComponent(new URL(page.url()).pathname)).to.equal(`/entity/${HDFS}`)
    const schema = page.getByRole('region', {name: 'Schema'})
    expect(await schema.locator('tbody tr').count()).to.be.greaterThan(0)
    // Related entities by name, type and platform; the urn only as a tooltip.
    const upstreamText = (await page.getByRole('region', {name: 'Upstream'}).textContent()) ?? ''
    expect(upstreamText).to.include('SampleKafkaDataset').and.include('dataset · kafka')
    expect(upstreamText).to.not.include('urn:li:')
    await page.getByRole('region', {name: 'Downstream'}).getByRole('link', {name: 'SampleHiveDataset'}).click()
    await page.getByRole('heading', {name: 'SampleHiveDataset'}).waitFor()
    // A shared search link opens the same results, filters included.
    const shared = await (await newContext()).newPage()
    await shared.goto(lite.url)
    await shared.evaluate((t) => (globalThis as any).sessionStorage.setItem('mdcli.token', t), lite.token)
    // The filter counts are asked for once the results are in, so the two never share the server.
    const order: string[] = []
    const kind = (body: string | null) => /^\{"query":"query (search|scroll|facets)\b/.exec(body ?? '')?.[1]
    shared.on('request', (r) => kind(r.postData()) && order.push(`ask ${kind(r.postData())}`))
    shared.on('requestfinished', (r) => kind(r.postData()) && order.push(`got ${kind(r.postData())}`))
    await shared.goto(`${lite.url}/search?q=*&platform=urn:li:dataPlatform:kafka`)
    await shared.getByText(/results for/).waitFor()
    await shared.getByRole('group', {name: 'platform'}).getByText(/kafka \(\d+\)/).waitFor()
    expect(order).to.deep.equal(['ask search', 'got search', 'ask facets', 'got facets'])
    expect(await shared.locator('ol.results li').count()).to.be.greaterThan(0)
    expect(await shared.locator('ol.results').textContent()).to.not.include('SampleHiveDataset')
    // A row of any type, not only a dataset's, shows its name, type, platform, description and owners.
    await shared.goto(`${lite.url}/search?q=scienceModel`)
    const row = shared.locator('ol.results li').filter({hasText: 'scienceModel'})
    await row.waitFor()
    const text = (await row.textContent()) ?? ''
    expect(text).to.include('mlmodel · science')
    expect(text).to.include('Scores how likely a visitor is to sign up.')
    expect(text).to.include('jdoe')
    expect(text).to.not.include('urn:li:mlModel')
    await shared.goto(`${lite.url}/search?q=ClientsAndAccounts`)
    const node = shared.locator('ol.results li').filter({hasText: 'glossary node'})
    await node.waitFor()
    expect(await node.locator('.name').textContent()).to.equal('ClientsAndAccounts')
    expect(await node.textContent()).to.include('Provides basic concepts').and.include('jdoe')
    // The scroll cursor walks every result page by page, past the offset window.
    await shared.goto(`${lite.url}/search?q=*&cursor=`)
    await shared.getByText(/results for/).waitFor()
    const first = await shared.locator('ol.results li').count()
    expect(first).to.be.greaterThan(0)
    await shared.getByRole('group', {name: 'type'}).waitFor()
    // Another page of the same search keeps the filter counts: they are not asked for again.
    order.length = 0
    await shared.getByRole('link', {name: 'Next →'}).click()
    await shared.waitForURL(/cursor=.+/)
    await shared.locator('ol.results li').first().waitFor()
    await shared.waitForTimeout(300)
    expect(order).to.deep.equal(['ask scroll', 'got scroll'])
    expect(await shared.getByRole('group', {name: 'type'}).count()).to.equal(1)
    await shared.context().close()
    await page.context().close()
  })

  it('adds a tag from the page and the GraphQL API sees it; a user without the privilege is shown the 403 and nothing changes', async () => {
    const page = await signIn(lite.token)
    await page.goto(`${lite.url}/entity/${encodeURIComponent(KAFKA)}`)
    await page.getByRole('heading', {name: 'SampleKafkaDataset'}).waitFor()
    await page.getByRole('textbox', {name: 'Add tag'}).fill('web-test')
    await page.getByRole('form', {name: 'Add tag'}).getByRole('button', {name: 'Add'}).click()
    await page.locator('.tag', {hasText: 'web-test'}).first().waitFor()
    const api = await http(`${lite.url}/api/graphql`, {token: lite.token, body: {query: `{ dataset(urn: "${KAFKA}") { tags { tags { tag { urn } } } } }`}})
    expect(api.body.data.dataset.tags.tags.map((t: {tag: {urn: string}}) => t.tag.urn)).to.include('urn:li:tag:web-test')
    await page.context().close()

    const bob = await signIn(bobToken)
    await bob.goto(`${lite.url}/entity/${encodeURIComponent(HIVE)}`)
    await bob.getByRole('heading', {name: 'SampleHiveDataset'}).waitFor()
    const before = await bob.getByRole('region', {name: 'Tags and terms'}).locator('.tag').count()
    await bob.getByRole('textbox', {name: 'Add tag'}).fill('web-test')
    await bob.getByRole('form', {name: 'Add tag'}).getByRole('button', {name: 'Add'}).click()
    const alert = bob.getByRole('region', {name: 'Tags and terms'}).getByRole('alert')
    await alert.waitFor()
    expect(await alert.textContent()).to.match(/unauthorized|not authorized|privilege/i)
    expect(await bob.getByRole('region', {name: 'Tags and terms'}).locator('.tag').count()).to.equal(before)
    const hive = await http(`${lite.url}/api/graphql`, {token: lite.token, body: {query: `{ dataset(urn: "${HIVE}") { tags { tags { tag { urn } } } } }`}})
    expect(JSON.stringify(hive.body.data.dataset.tags)).to.not.include('web-test')
    await bob.context().close()
  })

  it('renders descriptions as Markdown without running what they carry, and shows the history of an entity', async () => {
    const gql = (query: string) => http(`${lite.url}/api/graphql`, {token: lite.token, body: {query}})
    const md = '**Bold claim** and a [link](https://example.com) <img src=x onerror="window.__xss = 1"><script>window.__xss = 2</script>'
    const upd = await gql(`mutation { updateDescription(input: {description: ${JSON.stringify(md)}, resourceUrn: "${HDFS}"}) }`)
    expect(upd.body.errors, JSON.stringify(upd.body)).to.equal(undefined)
    const page = await signIn(lite.token)
    await page.goto(`${lite.url}/entity/${encodeURIComponent(HDFS)}`)
    const doc = page.getByRole('region', {name: 'Documentation'})
    await doc.locator('strong', {hasText: 'Bold claim'}).waitFor()
    expect(await page.evaluate(() => (globalThis as any).__xss)).to.equal(undefined)
    expect(await doc.locator('script').count()).to.equal(0)
    // A result row shows the description as plain text: no Markdown marks, no markup.
    await page.goto(`${lite.url}/search?q=SampleHdfsDataset`)
    const snippet = page.locator('ol.results li').filter({hasText: 'SampleHdfsDataset'}).locator('.snippet')
    await snippet.waitFor()
    expect(await snippet.textContent()).to.equal('Bold claim and a link')
    await page.goto(`${lite.url}/entity/${encodeURIComponent(HDFS)}`)
    await page.getByRole('button', {name: 'Show history'}).click()
    const history = page.getByRole('region', {name: 'History'})
    await history.locator('.history > li').first().waitFor()
    expect(await history.textContent()).to.include('DOCUMENTATION')
    await page.context().close()
  })

  it('keeps what a description renders inside its box: no styles, forms or controls, nothing over the page', async () => {
    const hostile =
      '<div style="position:fixed;top:0;left:0;width:100vw;height:100vh;z-index:99999;background:#fff">Session expired. <a href="https://example.com/login">Sign in again</a></div>' +
      '<form action="https://example.com/steal"><label for="pw">Password</label><input id="pw" name="password" type="password"><select><option>a</option></select><textarea></textarea><button>Sign in</button></form>' +
      '<p id="add-owner" class="error" role="alert" tabindex="0">Your token has expired</p><dialog open>modal</dialog><div popover>pop</div>'
    const DS = 'urn:li:dataset:(urn:li:dataPlatform:hive,web_overlay,PROD)'
    await propose(DS, 'datasetProperties', {name: 'web_overlay', description: hostile, customProperties: {}, tags: []})
    await api('mutation t($d: String) { createTag(input: {id: "web-overlay", name: "web-overlay", description: $d}) }', {d: hostile})
    const page = await signIn(lite.token)
    for (const [urn, heading] of [[DS, 'web_overlay'], ['urn:li:tag:web-overlay', 'web-overlay']] as const) {
      await page.goto(`${lite.url}/entity/${encodeURIComponent(urn)}`)
      await page.getByRole('heading', {name: heading, exact: true}).waitFor()
      const md = page.getByRole('region', {name: 'Documentation'}).locator('.markdown')
      await md.getByText('Session expired.').waitFor()
      // The words stay; what would make them look like the app, or act, does not.
      expect(await md.locator('[style], [id], [class], [role], [tabindex], [popover], form, input, button, select, textarea, label, dialog').count()).to.equal(0)
      expect(await md.getByRole('link', {name: 'Sign in again'}).count()).to.equal(1)
      // The page's own controls are on top where they are drawn, the editors too.
      for (const control of [page.getByLabel('Search the catalog'), page.getByRole('form', {name: 'Add owner'}).getByRole('textbox'), page.getByRole('button', {name: 'Sign out'})]) {
        const hit = await control.evaluate((el: any) => {
          const r = el.getBoundingClientRect()
          return (globalThis as any).document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2) === el
        })
        expect(hit, `${heading}: ${await control.evaluate((el: any) => el.outerHTML)} is covered`).to.equal(true)
      }
      // Whatever a description renders in the future is painted inside its box only.
      const css = await md.evaluate((el: any) => {
        const s = (globalThis as any).getComputedStyle(el)
        return {contain: s.contain, overflow: s.overflow}
      })
      expect(css.contain).to.include('paint')
      expect(css.overflow).to.equal('hidden')
      // The label of the page's own Add owner field still names its own field.
      await page.getByRole('textbox', {name: 'Add owner'}).fill('jdoe')
      expect(await page.getByRole('form', {name: 'Add owner'}).getByRole('textbox').inputValue()).to.equal('jdoe')
    }
    await page.context().close()
  })

  it('offers on each type\'s page exactly the edits the server takes for that type, and shows each once made', async () => {
    // One entity of every type a page is offered for, written as ingestion would.
    const stamp = {time: 0, actor: 'urn:li:corpuser:datahub'}
    const info = {title: 'w', description: '', lastModified: {created: stamp, lastModified: stamp}}
    const FLOW = 'urn:li:dataFlow:(airflow,web_types_flow,prod)'
    const entities: Array<[string, string, string, unknown]> = [
      ['Dataset', 'urn:li:dataset:(urn:li:dataPlatform:hive,web_types,PROD)', 'datasetProperties', {name: 'web_types', customProperties: {}, tags: []}],
      ['Chart', 'urn:li:chart:(looker,web_types_chart)', 'chartInfo', info],
      ['Dashboard', 'urn:li:dashboard:(looker,web_types_dashboard)', 'dashboardInfo', info],
      ['DataFlow', FLOW, 'dataFlowInfo', {name: 'web_types_flow'}],
      ['DataJob', `urn:li:dataJob:(${FLOW},web_types_job)`, 'dataJobInfo', {name: 'web_types_job', type: 'SQL'}],
      ['Container', 'urn:li:container:webtypes', 'containerProperties', {name: 'web_types_container'}],
      ['Notebook', 'urn:li:notebook:(querybook,web_types_notebook)', 'notebookInfo', {title: 'web_types_notebook', changeAuditStamps: {}}],
      ['MLModel', 'urn:li:mlModel:(urn:li:dataPlatform:science,web_types_model,PROD)', 'mlModelProperties', {}],
      ['MLModelGroup', 'urn:li:mlModelGroup:(urn:li:dataPlatform:science,web_types_group,PROD)', 'mlModelGroupProperties', {}],
      ['MLFeatureTable', 'urn:li:mlFeatureTable:(urn:li:dataPlatform:feast,web_types_table)', 'mlFeatureTableProperties', {}],
      ['MLFeature', 'urn:li:mlFeature:(web_types,feature)', 'mlFeatureProperties', {}],
      ['MLPrimaryKey', 'urn:li:mlPrimaryKey:(web_types,key)', 'mlPrimaryKeyProperties', {sources: []}],
      ['GlossaryTerm', 'urn:li:glossaryTerm:WebTypesTerm', 'glossaryTermInfo', {name: 'WebTypesTerm', definition: 'A term', termSource: 'INTERNAL'}],
      ['GlossaryNode', 'urn:li:glossaryNode:WebTypesNode', 'glossaryNodeInfo', {name: 'WebTypesNode', definition: 'A node'}],
      ['CorpUser', 'urn:li:corpuser:webtypes', 'corpUserInfo', {active: true}],
      ['CorpGroup', 'urn:li:corpGroup:webtypes', 'corpGroupInfo', {admins: [], members: [], groups: []}],
    ]
    for (const [, urn, aspect, value] of entities) await propose(urn, aspect, value)
    await api('mutation { createTag(input: {id: "web-types", name: "web-types", description: "A tag"}) }')
    await api('mutation { createDomain(input: {id: "web-types-domain", name: "Web types domain", description: "A domain"}) }')
    entities.push(['Tag', 'urn:li:tag:web-types', '', null], ['Domain', 'urn:li:domain:web-types-domain', '', null])

    // What each editor writes (the server's aspect) and what reads it back (a field of the GraphQL type).
    const EDITORS = {Tags: ['globalTags', 'tags'], 'Glossary terms': ['glossaryTerms', 'glossaryTerms'], Owners: ['ownership', 'ownership'], Domain: ['domains', 'domain'], Deprecation: ['deprecation', 'deprecation']} as const
    const page = await signIn(lite.token)
    for (const [gqlType, urn] of entities) {
      const type = /^urn:li:([^:]+):/.exec(urn)![1]!
      const fields = new Set<string>((await api(`{ __type(name: "${gqlType}") { fields { name } } }`)).__type.fields.map((f: {name: string}) => f.name))
      const expected = Object.entries(EDITORS).filter(([, [aspect, field]]) => accepts(type, aspect) && fields.has(field)).map(([h]) => h)
      await page.goto(`${lite.url}/entity/${encodeURIComponent(urn)}`)
      await page.locator('main h1').waitFor()
      await page.getByRole('heading', {name: 'About'}).waitFor()
      const offered = await page.locator('.editors h3').allTextContents()
      expect(offered, `${gqlType}: the editors offered`).to.deep.equal(expected)
      expect(await page.getByRole('button', {name: 'Edit description'}).count(), `${gqlType}: the description editor`).to.equal(DESCRIPTION_TYPES.includes(type) ? 1 : 0)
      // Each edit offered is taken by the server and shown by the page once made.
      const add = async (form: string, value: string, shown: string) => {
        const f = page.getByRole('form', {name: form})
        await f.getByRole('textbox').fill(value)
        await f.getByRole('button').click()
        await page.getByRole('button', {name: shown}).waitFor()
      }
      if (offered.includes('Tags')) await add('Add tag', 'web-types', 'Remove tag web-types')
      if (offered.includes('Glossary terms')) await add('Add term', 'WebTypesTerm', 'Remove term WebTypesTerm')
      if (offered.includes('Owners')) await add('Add owner', 'urn:li:corpuser:webtypes', 'Remove owner webtypes')
      if (offered.includes('Domain')) await add('Set domain', 'web-types-domain', 'Remove domain Web types domain')
      if (offered.includes('Deprecation')) {
        await page.getByLabel('Deprecation note').fill('retired')
        await page.getByRole('button', {name: 'Mark as deprecated'}).click()
        await page.getByRole('button', {name: 'Mark as not deprecated'}).waitFor()
      }
      if (DESCRIPTION_TYPES.includes(type)) {
        await page.getByRole('button', {name: 'Edit description'}).click()
        await page.getByRole('textbox', {name: 'Description'}).fill(`Written on the ${gqlType} page`)
        await page.getByRole('form', {name: 'Edit description'}).getByRole('button', {name: 'Save'}).click()
        await page.getByRole('region', {name: 'Documentation'}).locator('.markdown', {hasText: `Written on the ${gqlType} page`}).waitFor()
      }
      expect(await page.getByRole('alert').count(), `${gqlType}: no refusal`).to.equal(0)
    }
    await page.context().close()
  })

  it('offers the history where the server keeps a timeline (datasets) and nowhere else', async () => {
    const page = await signIn(lite.token)
    const failed: string[] = []
    page.on('response', (r) => r.status() >= 400 && failed.push(`${r.status()} ${r.url()}`))
    for (const urn of ['urn:li:glossaryTerm:CustomerAccount', 'urn:li:container:sampledb', 'urn:li:tag:Legacy', 'urn:li:corpGroup:bfoo', 'urn:li:mlModel:(urn:li:dataPlatform:science,scienceModel,PROD)']) {
      await page.goto(`${lite.url}/entity/${encodeURIComponent(urn)}`)
      await page.getByRole('heading', {name: 'About'}).waitFor()
      expect(await page.getByRole('region', {name: 'History'}).count(), urn).to.equal(0)
    }
    await page.goto(`${lite.url}/entity/${encodeURIComponent(KAFKA)}`)
    await page.getByRole('button', {name: 'Show history'}).click()
    await page.getByRole('region', {name: 'History'}).locator('.history > li').first().waitFor()
    expect(failed).to.deep.equal([])
    await page.context().close()
  })

  it('shows links, the container path and the raw aspects of an entity', async () => {
    const page = await signIn(lite.token)
    await page.goto(`${lite.url}/entity/${encodeURIComponent(HDFS)}`)
    await page.getByRole('region', {name: 'Links'}).getByRole('link', {name: 'Sample doc'}).waitFor()
    expect(await page.getByRole('region', {name: 'Links'}).getByRole('link', {name: 'Sample doc'}).getAttribute('href')).to.equal('https://example.org/docs/hdfs-landing')
    await page.goto(`${lite.url}/entity/${encodeURIComponent(HIVE)}`)
    const path = page.getByRole('navigation', {name: 'Container path'})
    await path.waitFor()
    expect(await path.getByRole('link').count()).to.be.greaterThan(0)
    await page.getByText('Raw aspects').click()
    await page.getByRole('heading', {name: 'schemaMetadata'}).waitFor()
    await page.context().close()
  })

  it('draws the lineage graph, expands it hop by hop with column-level edges, and opens a node', async () => {
    const page = await signIn(lite.token)
    await page.goto(`${lite.url}/entity/${encodeURIComponent(HDFS)}`)
    const graph = page.getByRole('region', {name: 'Lineage graph'})
    // The root and its neighbours both ways, drawn by React Flow.
    await graph.locator('.react-flow__node', {hasText: 'SampleKafkaDataset'}).waitFor()
    await graph.locator('.react-flow__node', {hasText: 'SampleHiveDataset'}).waitFor()
    expect(await graph.locator('.react-flow__node').count()).to.be.greaterThanOrEqual(3)
    expect(await graph.locator('.react-flow__edge').count()).to.be.greaterThanOrEqual(2)
    // Next hop downstream of the Hive dataset: its expand control goes once used.
    const hop = graph.getByRole('button', {name: 'Show downstream of SampleHiveDataset'})
    await hop.click()
    await hop.waitFor({state: 'detached'})
    // Column-level edges where the catalog has them (the sample: logging_events.event_data → fct_users_created.user_name).
    await page.goto(`${lite.url}/entity/${encodeURIComponent(FCT)}`)
    const g2 = page.getByRole('region', {name: 'Lineage graph'})
    await g2.locator('.react-flow__node', {hasText: 'logging_events'}).waitFor()
    const label = g2.locator('.edge-columns')
    await label.getByText('1 column').waitFor()
    await label.hover()
    await label.getByText('event_data → user_name').waitFor()
    expect(await g2.getByRole('list', {name: 'Lineage edges'}).textContent()).to.include('logging_events → fct_users_created (columns: event_data → user_name)')
    // Keyboard: the node's link is reachable and opens the page.
    await g2.getByRole('link', {name: 'logging_events'}).focus()
    await page.keyboard.press('Enter')
    await page.getByRole('heading', {name: 'logging_events'}).waitFor()
    expect(decodeURIComponent(new URL(page.url()).pathname)).to.equal(`/entity/${LOGGING}`)
    await page.context().close()
  })

  it('edits terms, owners, domain, deprecation and a column from the page; the API sees each; a refused edit changes nothing', async () => {
    const gql = async (query: string) => (await http(`${lite.url}/api/graphql`, {token: lite.token, body: {query}})).body
    expect((await gql('mutation { createDomain(input: {id: "web-domain", name: "Web domain"}) }')).errors).to.equal(undefined)
    expect((await gql('mutation { createTag(input: {id: "web-col", name: "web-col"}) }')).errors).to.equal(undefined)
    const page = await signIn(lite.token)
    await page.goto(`${lite.url}/entity/${encodeURIComponent(HIVE)}`)
    await page.getByRole('heading', {name: 'SampleHiveDataset'}).waitFor()
    const add = async (form: string, value: string) => {
      const f = page.getByRole('form', {name: form})
      await f.getByRole('textbox').fill(value)
      await f.getByRole('button', {name: 'Add'}).click()
    }
    await add('Add term', 'SavingAccount')
    await page.getByRole('button', {name: 'Remove term SavingAccount'}).waitFor()
    // jdoe already owns it (DATAOWNER in the sample): a second role keeps one chip for the person.
    await add('Add owner', 'jdoe')
    // The form empties once the owner is added. Polled from here: a string predicate of
    // waitForFunction is evaluated by the page itself, which the pages' CSP (no 'unsafe-eval') refuses
    // whenever the first check does not already pass.
    const ownerBox = page.getByRole('form', {name: 'Add owner'}).getByRole('textbox')
    for (let i = 0; i < 600 && (await ownerBox.inputValue()) !== ''; i++) await page.waitForTimeout(50)
    expect(await ownerBox.inputValue(), 'the owner form after adding jdoe').to.equal('')
    await add('Add owner', 'urn:li:corpGroup:bfoo')
    await page.getByRole('button', {name: 'Remove owner bfoo'}).waitFor()
    expect(await page.getByRole('button', {name: 'Remove owner jdoe'}).count()).to.equal(1)
    await add('Set domain', 'web-domain')
    await page.getByRole('button', {name: 'Remove domain Web domain'}).waitFor()
    await page.getByLabel('Deprecation note').fill('use the v2 table')
    await page.getByRole('button', {name: 'Mark as deprecated'}).click()
    await page.getByText('Deprecated: use the v2 table').waitFor()
    // A column: description and tag.
    const schema = page.getByRole('region', {name: 'Schema'})
    const field = (await schema.locator('tbody tr td').first().textContent())!.replace(' 🔑', '').trim()
    await schema.getByRole('button', {name: new RegExp(`^Edit column .*${field}$`)}).first().click()
    const editor = schema.getByRole('form').first()
    await editor.getByRole('textbox').first().fill('Edited in the browser')
    await editor.getByRole('textbox').nth(1).fill('web-col')
    await editor.getByRole('button', {name: 'Save'}).click()
    await editor.waitFor({state: 'detached'})
    await schema.getByText('Edited in the browser').waitFor()
    await schema.locator('tr', {hasText: 'Edited in the browser'}).getByText('web-col').waitFor()
    const d = (await gql(`{ dataset(urn: "${HIVE}") { glossaryTerms { terms { term { urn } } } ownership { owners { owner { ... on CorpUser { urn } ... on CorpGroup { urn } } } } domain { domain { urn } } deprecation { deprecated note }
      editableSchemaMetadata { editableSchemaFieldInfo { fieldPath description tags { tags { tag { urn } } } } } } }`)).data.dataset
    expect(d.glossaryTerms.terms.map((t: any) => t.term.urn)).to.include('urn:li:glossaryTerm:SavingAccount')
    expect(d.ownership.owners.map((o: any) => o.owner.urn)).to.include('urn:li:corpGroup:bfoo')
    expect(d.ownership.owners.filter((o: any) => o.owner.urn === 'urn:li:corpuser:jdoe')).to.have.length(2)
    expect(d.domain.domain.urn).to.equal('urn:li:domain:web-domain')
    expect(d.deprecation).to.deep.equal({deprecated: true, note: 'use the v2 table'})
    const info = d.editableSchemaMetadata.editableSchemaFieldInfo.find((f: any) => f.description === 'Edited in the browser')
    expect(info?.tags, JSON.stringify(d.editableSchemaMetadata)).to.not.equal(null)
    expect(info.tags.tags.map((t: any) => t.tag.urn)).to.deep.equal(['urn:li:tag:web-col'])
    // Removing a term from the page.
    await page.getByRole('button', {name: 'Remove term SavingAccount'}).click()
    await page.getByRole('button', {name: 'Remove term SavingAccount'}).waitFor({state: 'detached'})
    await page.context().close()

    // bob may read but not edit: the server's 403 is shown, and neither page nor catalog changes.
    const bob = await signIn(bobToken)
    await bob.goto(`${lite.url}/entity/${encodeURIComponent(HIVE)}`)
    await bob.getByRole('heading', {name: 'SampleHiveDataset'}).waitFor()
    const f = bob.getByRole('form', {name: 'Add owner'})
    await f.getByRole('textbox').fill('bob')
    await f.getByRole('button', {name: 'Add'}).click()
    const alert = bob.getByRole('region', {name: 'Tags and terms'}).getByRole('alert')
    await alert.waitFor()
    expect(await alert.textContent()).to.match(/unauthorized|not authorized|privilege/i)
    expect(await bob.getByRole('button', {name: 'Remove owner bob'}).count()).to.equal(0)
    const after = (await gql(`{ dataset(urn: "${HIVE}") { ownership { owners { owner { ... on CorpUser { urn } } } } } }`)).data.dataset
    expect(after.ownership.owners.map((o: any) => o.owner.urn)).to.not.include('urn:li:corpuser:bob')
    await bob.context().close()
  })

  it('shows recently changed entities on the home page and a version diff in the history', async () => {
    const gql = (query: string) => http(`${lite.url}/api/graphql`, {token: lite.token, body: {query}})
    for (const text of ['First words', 'Second words']) {
      expect((await gql(`mutation { updateDescription(input: {description: "${text}", resourceUrn: "${KAFKA}"}) }`)).body.errors).to.equal(undefined)
    }
    const page = await signIn(lite.token)
    const recent = page.getByRole('region', {name: 'Recently changed'})
    await recent.getByRole('link', {name: 'SampleKafkaDataset'}).waitFor()
    expect(await recent.locator('li').first().textContent()).to.include('SampleKafkaDataset')
    await recent.getByRole('link', {name: 'SampleKafkaDataset'}).click()
    await page.getByRole('heading', {name: 'SampleKafkaDataset'}).waitFor()
    await page.getByRole('button', {name: 'Show history'}).click()
    const cmp = page.getByRole('form', {name: 'Compare versions'})
    await cmp.waitFor()
    await cmp.getByLabel('Aspect').selectOption('editableDatasetProperties')
    await cmp.getByRole('button', {name: 'Compare'}).click()
    const diff = page.locator('pre.diff-view')
    await diff.waitFor()
    expect(await diff.locator('del').textContent()).to.include('First words')
    expect(await diff.locator('ins').textContent()).to.include('Second words')
    await page.context().close()
  })

  it('is readable on a phone and usable from the keyboard', async () => {
    const ctx = await newContext({viewport: {width: 390, height: 844}})
    const page = await ctx.newPage()
    await page.goto(lite.url)
    await page.getByLabel('Access token').fill(lite.token)
    await page.keyboard.press('Enter')
    await page.getByRole('heading', {name: 'Catalog'}).waitFor()
    // Tab from the top of the page reaches the search box; Enter searches.
    let reached = false
    for (let i = 0; i < 10 && !reached; i++) {
      await page.keyboard.press('Tab')
      reached = await page.evaluate(() => (globalThis as any).document.activeElement?.getAttribute('aria-label') === 'Search the catalog')
    }
    expect(reached, 'Tab reaches the search box').to.equal(true)
    await page.keyboard.type('SampleHiveDataset')
    await page.keyboard.press('Enter')
    await page.getByText(/results for/).waitFor()
    await page.getByRole('link', {name: 'SampleHiveDataset'}).first().focus()
    await page.keyboard.press('Enter')
    await page.getByRole('heading', {name: 'SampleHiveDataset'}).waitFor()
    // Nothing wider than the screen but what scrolls on purpose (the schema table, the graph).
    const overflow = await page.evaluate(() => {
      const d = (globalThis as any).document.documentElement
      return d.scrollWidth - d.clientWidth
    })
    expect(overflow).to.be.at.most(0)
    await ctx.close()
  })

  it('GraphiQL is the real one, bundled: it signs in with a token and runs a query', async () => {
    const page = await (await newContext()).newPage()
    const hosts = new Set<string>()
    page.on('request', (r) => hosts.add(new URL(r.url()).host))
    await page.goto(`${lite.url}/api/graphiql`)
    await page.getByLabel('Access token').fill(lite.token)
    await page.getByRole('button', {name: 'Sign in'}).click()
    await page.getByText('Signed in').waitFor()
    // Run the example query (it reads `me` and searches datasets).
    await page.locator('.graphiql-execute-button').click()
    await page.locator('.result-window').getByText('"username"').waitFor({timeout: 20_000})
    const result = await page.locator('.result-window').textContent()
    expect(result).to.include('datahub')
    expect(result).to.not.include('Unauthorized')
    expect([...hosts]).to.deep.equal([new URL(lite.url).host])
    await page.context().close()
  })

  it('is served compressed from the same port, with no request leaving the machine', async () => {
    const page = await (await newContext()).newPage()
    const hosts = new Set<string>()
    page.on('request', (r) => hosts.add(new URL(r.url()).host))
    const res = await page.goto(lite.url)
    expect(res!.status()).to.equal(200)
    await page.getByLabel('Access token').waitFor()
    expect([...hosts]).to.deep.equal([new URL(lite.url).host])
    const js = await fetch(`${lite.url}/app/app.js`, {headers: {'accept-encoding': 'gzip'}})
    expect(js.headers.get('content-type')).to.match(/javascript/)
    await page.context().close()
  })

  it('shows what the catalog knows: a profile, a container\'s contents by page, where a result lives, readable column types, named recent changes', async () => {
    const page = await signIn(lite.token)
    // The profile: when, rows and columns, and per column nulls, distinct values, range and samples.
    await page.goto(`${lite.url}/entity/${encodeURIComponent(HIVE)}`)
    const profile = page.getByRole('region', {name: 'Profile'})
    await profile.waitFor()
    const ptext = (await profile.textContent()) ?? ''
    expect(ptext).to.include('Profiled 2023-11-14').and.include('1,200 rows').and.include('3 columns')
    const clicks = profile.locator('tr', {hasText: 'clicks'})
    expect(await clicks.locator('td').allTextContents()).to.deep.equal(['clicks', '12', '1 %', '40', '3.3 %', '0', '57', '6.4', '4', ''])
    expect(await profile.locator('tr', {hasText: 'user_id'}).textContent()).to.include('12, 77, 301')
    // The container path leads to the schema, whose page lists what it holds, a page at a time.
    await page.getByRole('navigation', {name: 'Container path'}).getByRole('link', {name: 'events'}).click()
    await page.getByRole('heading', {name: 'events'}).waitFor()
    const contents = page.getByRole('region', {name: 'Contents'})
    await contents.locator('li').first().waitFor()
    expect(await contents.getByRole('heading').textContent()).to.equal('Contents (26)')
    expect(await contents.locator('li').count()).to.equal(20)
    expect(await contents.textContent()).to.include('dataset · hive')
    await contents.getByRole('button', {name: 'Next →'}).click()
    await contents.getByText('21–26 of 26').waitFor()
    expect(await contents.locator('li').count()).to.equal(6)
    expect(await page.locator('main').textContent()).to.include('schema · container · hive')
    // Search results say where each table lives: platform, database and schema.
    await page.goto(`${lite.url}/search?q=SampleHiveDataset`)
    const row = page.locator('ol.results li').filter({hasText: 'SampleHiveDataset'}).first()
    await row.waitFor()
    expect(await row.locator('.meta').first().textContent()).to.equal('dataset · hive · sample_db › events')
    // Column types as SQL reads them, beside the type the source stored.
    await page.goto(`${lite.url}/entity/${encodeURIComponent(LOGGING)}`)
    const typeCell = page.getByRole('region', {name: 'Schema'}).locator('tr', {hasText: 'event_name'}).locator('td').nth(1)
    await typeCell.waitFor()
    expect((await typeCell.textContent())?.replace(/\s+/g, ' ').trim()).to.equal('varchar(200) VARCHAR(length=200)')
    // Recently changed: data assets by name; ingestion's own bookkeeping (a checkpoint job) left out.
    const job = 'urn:li:dataJob:(urn:li:dataFlow:(datahub,web-test-pipeline,prod),file_stale_entity_removal)'
    const cp = await http(`${lite.url}/aspects?action=ingestProposal`, {token: lite.token, body: {proposal: {entityType: 'dataJob', entityUrn: job, aspectName: 'datahubIngestionCheckpoint', changeType: 'UPSERT',
      aspect: {contentType: 'application/json', value: JSON.stringify({timestampMillis: Date.now(), pipelineName: 'web-test-pipeline', platformInstanceId: '', config: '', state: {formatVersion: '1.0', serde: 'utf-8', payload: '{}'}, runId: 'web-test'})}}}})
    expect(cp.status, JSON.stringify(cp.body)).to.equal(200)
    const direct = await http(`${lite.url}/api/graphql`, {token: lite.token, body: {query: '{ all: recentlyChanged(count: 5) { entity { urn } } assets: recentlyChanged(count: 5, assetsOnly: true) { entity { urn } } }'}})
    expect(direct.body.data.all.map((c: any) => c.entity.urn)).to.include(job)
    expect(direct.body.data.assets.map((c: any) => c.entity.urn)).to.not.include(job)
    await page.goto(lite.url)
    const recent = page.getByRole('region', {name: 'Recently changed'})
    await recent.locator('li').first().waitFor()
    expect(await recent.textContent()).to.not.include('web-test-pipeline').and.not.include('file_stale_entity_removal')
    await page.context().close()
  })

  it('wraps long names in the lineage graph at word boundaries, without cutting or overlapping', async () => {
    const page = await signIn(lite.token)
    await page.goto(`${lite.url}/entity/${encodeURIComponent(HIVE)}`)
    const graph = page.getByRole('region', {name: 'Lineage graph'})
    const long = graph.locator('.react-flow__node', {hasText: 'region_v2'})
    await long.waitFor()
    // The whole name is there, wrapped, and nothing of it is clipped.
    const link = long.locator('a')
    expect(await link.textContent()).to.equal('sample_db.events.user_clicks_aggregated_by_day_and_region_v2')
    const clipped = await link.evaluate((a: any) => a.scrollWidth > a.clientWidth + 1 || a.closest('.card').scrollHeight > a.closest('.card').clientHeight + 1)
    expect(clipped, 'the name fits its card').to.equal(false)
    // Lines break only where the name has a boundary (after _ or between words).
    const lines = await link.evaluate((a: any) => {
      const range = (globalThis as any).document.createRange()
      const tops = new Map<number, string>()
      for (const span of Array.from(a.querySelectorAll('span')) as any[]) {
        range.selectNodeContents(span)
        const top = Math.round(range.getClientRects()[0]!.top)
        tops.set(top, (tops.get(top) ?? '') + span.textContent)
      }
      return [...tops.values()]
    })
    expect(lines.length, lines.join(' | ')).to.be.greaterThan(1)
    expect(lines.join('')).to.equal('sample_db.events.user_clicks_aggregated_by_day_and_region_v2')
    for (const l of lines.slice(0, -1)) expect(l, lines.join(' | ')).to.match(/[_.]$/)
    // No two cards overlap.
    const boxes = await graph.locator('.react-flow__node').evaluateAll((ns: any[]) => ns.map((n) => n.getBoundingClientRect()).map((r) => ({x: r.x, y: r.y, w: r.width, h: r.height})))
    for (let i = 0; i < boxes.length; i++)
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i]!
        const b = boxes[j]!
        const overlap = a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h
        expect(overlap, `cards ${i} and ${j} overlap`).to.equal(false)
      }
    await page.context().close()
  })

  it('labels column-level edges by their count, clear of the cards, with the column pairs on hover and in the list for screen readers', async () => {
    const SRC = 'urn:li:dataset:(urn:li:dataPlatform:hive,web_columns_source,PROD)'
    const DST = 'urn:li:dataset:(urn:li:dataPlatform:hive,web_columns_target,PROD)'
    const pairs = [['customer_identifier_hash', 'customer_key'], ['order_created_timestamp_utc', 'ordered_at'], ['order_total_amount_in_cents', 'order_total']]
    const field = (ds: string, path: string) => `urn:li:schemaField:(${ds},${path})`
    await propose(SRC, 'datasetProperties', {name: 'web_columns_source', customProperties: {}, tags: []})
    await propose(DST, 'datasetProperties', {name: 'web_columns_target', customProperties: {}, tags: []})
    await propose(DST, 'upstreamLineage', {
      upstreams: [{dataset: SRC, type: 'TRANSFORMED', auditStamp: {time: 0, actor: 'urn:li:corpuser:datahub'}}],
      fineGrainedLineages: pairs.map(([from, to]) => ({upstreamType: 'FIELD_SET', downstreamType: 'FIELD', upstreams: [field(SRC, from!)], downstreams: [field(DST, to!)]})),
    })
    const page = await signIn(lite.token)
    await page.goto(`${lite.url}/entity/${encodeURIComponent(DST)}`)
    const graph = page.getByRole('region', {name: 'Lineage graph'})
    const label = graph.locator('.edge-columns')
    await label.getByText('3 columns').waitFor()
    const box = (await label.boundingBox())!
    for (const card of await graph.locator('.react-flow__node').all()) {
      const c = (await card.boundingBox())!
      const overlap = box.x < c.x + c.width && c.x < box.x + box.width && box.y < c.y + c.height && c.y < box.y + box.height
      expect(overlap, `the label over ${await card.textContent()}`).to.equal(false)
    }
    // Hovered, it lists each pair on a line of its own.
    await label.hover()
    const lines = label.locator('li')
    await lines.first().waitFor()
    expect(await lines.allTextContents()).to.deep.equal(pairs.map(([a, b]) => `${a} → ${b}`))
    const tops = await lines.evaluateAll((ls: any[]) => ls.map((l) => Math.round(l.getBoundingClientRect().top)))
    expect(new Set(tops).size).to.equal(pairs.length)
    // Drawn above the cards it may cross.
    const onTop = await lines.evaluateAll((ls: any[]) =>
      ls.every((l) => {
        const r = l.getBoundingClientRect()
        return l.contains((globalThis as any).document.elementFromPoint(r.x + r.width - 2, r.y + r.height / 2))
      }),
    )
    expect(onTop, 'the hovered pairs are on top').to.equal(true)
    expect(await label.getAttribute('aria-label')).to.equal(`3 columns: ${pairs.map(([a, b]) => `${a} → ${b}`).join(', ')}`)
    expect(await graph.getByRole('list', {name: 'Lineage edges'}).textContent()).to.include(`web_columns_source → web_columns_target (columns: ${pairs.map(([a, b]) => `${a} → ${b}`).join(', ')})`)
    await page.context().close()
  })

  it('follows one rule for a description on the page, in search and on columns: an emptied edit shows the ingested text again', async () => {
    const DS = 'urn:li:dataset:(urn:li:dataPlatform:hive,web_described,PROD)'
    await propose(DS, 'datasetProperties', {name: 'web_described', description: 'Ingested words', customProperties: {}, tags: []})
    await propose(DS, 'schemaMetadata', {
      schemaName: 'web_described', platform: 'urn:li:dataPlatform:hive', version: 0, hash: '', platformSchema: {'com.linkedin.schema.OtherSchema': {rawSchema: ''}},
      fields: [{fieldPath: 'amount', type: {type: {'com.linkedin.schema.NumberType': {}}}, nativeDataType: 'int', description: 'Ingested column words'}],
    })
    const describe = (description: string, column = false) =>
      api('mutation d($input: DescriptionUpdateInput!) { updateDescription(input: $input) }', {input: {description, resourceUrn: DS, ...(column ? {subResourceType: 'DATASET_FIELD', subResource: 'amount'} : {})}})
    const page = await signIn(lite.token)
    const check = async (entity: string, column: string) => {
      await page.goto(`${lite.url}/entity/${encodeURIComponent(DS)}`)
      await page.getByRole('heading', {name: 'web_described'}).waitFor()
      expect(await page.getByRole('region', {name: 'Documentation'}).locator('.markdown').textContent()).to.equal(`${entity}\n`)
      expect(await page.getByRole('region', {name: 'Schema'}).locator('tbody tr td').nth(2).textContent()).to.equal(column)
      await page.goto(`${lite.url}/search?q=web_described`)
      const snippet = page.locator('ol.results li').filter({hasText: 'web_described'}).locator('.snippet')
      await snippet.waitFor()
      expect(await snippet.textContent()).to.equal(entity)
    }
    await describe('Edited words')
    await describe('Edited column words', true)
    await check('Edited words', 'Edited column words')
    await describe('')
    await describe('', true)
    await check('Ingested words', 'Ingested column words')
    await page.context().close()
  })

  it('counts each facet under the other facets\' filters only, so several values of one facet can be ticked', async () => {
    const HIVE_P = 'urn:li:dataPlatform:hive'
    const KAFKA_P = 'urn:li:dataPlatform:kafka'
    const counts = async (platforms: string[]) => {
      const input = {query: '*', ...(platforms.length ? {orFilters: [{and: [{field: 'platform', values: platforms}]}]} : {})}
      const d = await api('query c($input: AggregateAcrossEntitiesInput!) { aggregateAcrossEntities(input: $input) { facets { field aggregations { value count } } } }', {input})
      return (field: string) => d.aggregateAcrossEntities.facets.find((f: any) => f.field === field).aggregations as Array<{value: string; count: number}>
    }
    const label = (a: {value: string; count: number}) => `${a.value.replace(/^urn:li:[a-zA-Z]+:/, '')} (${a.count})`
    const page = await signIn(lite.token)
    await page.goto(`${lite.url}/search?q=*&platform=${HIVE_P}`)
    const platforms = page.getByRole('group', {name: 'platform'})
    const types = page.getByRole('group', {name: 'type'})
    await platforms.getByRole('checkbox', {name: /kafka/}).waitFor()
    // The platform facet as without its own filter; the others under it.
    const unfiltered = await counts([])
    const onHive = await counts([HIVE_P])
    expect((await platforms.locator('label').allTextContents()).map((t) => t.trim())).to.deep.equal(unfiltered('platform').slice(0, 12).map(label))
    expect((await types.locator('label').allTextContents()).map((t) => t.trim())).to.deep.equal(onHive('_entityType').slice(0, 12).map(label))
    expect(await platforms.getByRole('checkbox', {name: /hive/}).isChecked()).to.equal(true)
    // A second platform is one more tick: results from both.
    await platforms.getByRole('checkbox', {name: /kafka/}).check()
    await page.waitForURL((u) => u.searchParams.getAll('platform').length === 2)
    expect(new URL(page.url()).searchParams.getAll('platform')).to.deep.equal([HIVE_P, KAFKA_P])
    const both = (await api(`{ searchAcrossEntities(input: {query: "*", start: 0, count: 0, orFilters: [{and: [{field: "platform", values: ["${HIVE_P}", "${KAFKA_P}"]}]}]}) { total } }`)).searchAcrossEntities.total
    await page.getByText(`${both} results for`).waitFor()
    await platforms.getByRole('checkbox', {name: /kafka/, checked: true}).waitFor()
    expect(await platforms.getByRole('checkbox', {name: /hive/}).isChecked()).to.equal(true)
    await page.context().close()
  })

  it('keeps the search box in step with the page in view, through Back and Forward', async () => {
    const page = await signIn(lite.token)
    const box = page.getByLabel('Search the catalog')
    for (const q of ['SampleKafkaDataset', 'SampleHdfsDataset']) {
      await box.fill(q)
      await page.keyboard.press('Enter')
      await page.waitForURL((u) => u.searchParams.get('q') === q)
      await page.locator('ol.results li').first().waitFor()
    }
    await page.goBack()
    await page.waitForURL((u) => u.searchParams.get('q') === 'SampleKafkaDataset')
    await page.getByText(/results for/).waitFor()
    expect(await box.inputValue()).to.equal('SampleKafkaDataset')
    await page.goForward()
    await page.waitForURL((u) => u.searchParams.get('q') === 'SampleHdfsDataset')
    await page.getByText(/results for/).waitFor()
    expect(await box.inputValue()).to.equal('SampleHdfsDataset')
    // A page without a query shows none; Back to the results shows theirs again.
    await page.locator('ol.results li .name').first().click()
    await page.getByRole('heading', {name: 'About'}).waitFor()
    expect(await box.inputValue()).to.equal('')
    await page.goBack()
    await page.getByText(/results for/).waitFor()
    expect(await box.inputValue()).to.equal('SampleHdfsDataset')
    await page.context().close()
  })

  it('tells a user and a group of the same name apart among owners, on the page and in search', async () => {
    const DS = 'urn:li:dataset:(urn:li:dataPlatform:hive,web_twins,PROD)'
    const stamp = {time: 0, actor: 'urn:li:corpuser:datahub'}
    await propose('urn:li:corpuser:twin', 'corpUserInfo', {active: true})
    await propose('urn:li:corpGroup:twin', 'corpGroupInfo', {admins: [], members: [], groups: []})
    await propose(DS, 'datasetProperties', {name: 'web_twins', customProperties: {}, tags: []})
    await propose(DS, 'ownership', {owners: [{owner: 'urn:li:corpuser:twin', type: 'DATAOWNER'}, {owner: 'urn:li:corpuser:twin', type: 'TECHNICAL_OWNER'}, {owner: 'urn:li:corpGroup:twin', type: 'DATAOWNER'}], lastModified: stamp})
    const page = await signIn(lite.token)
    await page.goto(`${lite.url}/search?q=web_twins`)
    const row = page.locator('ol.results li').filter({hasText: 'web_twins'})
    await row.waitFor()
    expect((await row.locator('.meta').nth(1).textContent())?.trim()).to.equal('twin, twin (group)')
    await row.getByRole('link', {name: 'web_twins'}).click()
    const owners = page.locator('.editors > div', {has: page.getByRole('heading', {name: 'Owners'})})
    await owners.getByRole('button', {name: 'Remove owner twin (user)', exact: true}).waitFor()
    expect(await owners.getByRole('button', {name: 'Remove owner twin (group)', exact: true}).count()).to.equal(1)
    expect((await owners.locator('.tag').allTextContents()).map((t) => t.replace('×', '').trim())).to.deep.equal(['user twin', 'group twin'])
    // Removing the group leaves the user.
    await owners.getByRole('button', {name: 'Remove owner twin (group)', exact: true}).click()
    await owners.getByRole('button', {name: 'Remove owner twin (group)', exact: true}).waitFor({state: 'detached'})
    const left = (await api(`{ dataset(urn: "${DS}") { ownership { owners { owner { ... on CorpUser { urn } ... on CorpGroup { urn } } } } } }`)).dataset.ownership.owners.map((o: any) => o.owner.urn)
    expect([...new Set(left)]).to.deep.equal(['urn:li:corpuser:twin'])
    await page.context().close()
  })

  it('every page above ran under its Content-Security-Policy with nothing refused, and no page can be framed', async () => {
    // The one refusal expected: the hostile description of the Markdown test, which the
    // sanitiser parses in a document of its own where Chromium loads the image and the policy
    // refuses its onerror. The pages themselves use no inline handler.
    expect(refusedByPolicy.filter((m) => !/inline event handler/.test(m))).to.deep.equal([])
    for (const path of ['/', '/api/graphiql']) {
      const res = await fetch(`${lite.url}${path}`)
      expect(res.headers.get('content-security-policy')).to.include("frame-ancestors 'none'")
      expect(res.headers.get('x-frame-options')).to.equal('DENY')
    }
    // A page of another origin (a data: URL) framing the catalog gets an empty frame.
    const page = await (await newContext()).newPage()
    // goto waits for the load event, which waits for the frame.
    await page.goto(`data:text/html,<iframe id="f" src="${lite.url}/"></iframe>`)
    const frame = page.frames().find((f) => f !== page.mainFrame())
    const framed = frame ? await frame.evaluate(() => (globalThis as any).document.querySelector('#root') !== null).catch(() => false) : false
    expect(framed).to.equal(false)
    await page.context().close()
  })
})
