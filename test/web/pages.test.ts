import {expect} from 'chai'
import {existsSync} from 'node:fs'
import {chromium, type Browser, type Page} from 'playwright-core'
import {http, runCli, useLite} from '../helpers/lite.js'
import {IN_CI, requireSharedFixtures} from '../helpers/requires.js'

const CHROMIUM = process.env.MDCLI_TEST_CHROMIUM ?? '/usr/bin/chromium'
const HDFS = 'urn:li:dataset:(urn:li:dataPlatform:hdfs,SampleHdfsDataset,PROD)'
const KAFKA = 'urn:li:dataset:(urn:li:dataPlatform:kafka,SampleKafkaDataset,PROD)'
const HIVE = 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)'

describe('web pages in a real browser (headless Chromium)', function () {
  this.timeout(180_000)
  const lite = useLite()
  let browser: Browser
  let bobToken: string

  before(async function () {
    const bootstrap = requireSharedFixtures(this, 'datahub', 'bootstrap_mce.json')
    if (!existsSync(CHROMIUM)) {
      if (IN_CI) throw new Error(`Chromium is not installed at ${CHROMIUM} (.ci/run installs it with apt-get)`)
      console.log(`      (skipped: no Chromium at ${CHROMIUM}; apt-get install chromium)`)
      this.skip()
    }
    const r = await runCli(['ingest', '-c', '-'], {env: lite.env(), input: `source: {type: file, config: {path: "${bootstrap}"}}\n`})
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

  const signIn = async (token: string): Promise<Page> => {
    const page = await (await browser.newContext()).newPage()
    await page.goto(lite.url)
    await page.getByLabel('Access token').fill(token)
    await page.getByRole('button', {name: 'Sign in'}).click()
    await page.getByRole('heading', {name: 'Catalog'}).waitFor()
    return page
  }

  it('a wrong token is refused at sign-in; the right one shows the home page with counts per type and platforms', async () => {
    const page = await (await browser.newContext()).newPage()
    await page.goto(lite.url)
    await page.getByLabel('Access token').fill('mdt_not_a_token')
    await page.getByRole('button', {name: 'Sign in'}).click()
    await page.getByRole('alert').waitFor()
    expect(await page.getByRole('alert').textContent()).to.match(/token/i)
    const home = await signIn(lite.token)
    expect(await home.getByRole('list', {name: 'Entity types'}).textContent()).to.match(/dataset\s*\d+/)
    expect(await home.getByRole('list', {name: 'Platforms'}).textContent()).to.include('kafka')
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
    expect(await page.getByRole('region', {name: 'Upstream'}).textContent()).to.include(KAFKA)
    await page.getByRole('region', {name: 'Downstream'}).getByRole('link', {name: HIVE}).click()
    await page.getByRole('heading', {name: 'SampleHiveDataset'}).waitFor()
    // A shared search link opens the same results, filters included.
    const shared = await (await browser.newContext()).newPage()
    await shared.goto(lite.url)
    await shared.evaluate((t) => (globalThis as any).sessionStorage.setItem('mdcli.token', t), lite.token)
    await shared.goto(`${lite.url}/search?q=*&platform=urn:li:dataPlatform:kafka`)
    await shared.getByText(/results for/).waitFor()
    expect(await shared.locator('ol.results li').count()).to.be.greaterThan(0)
    expect(await shared.locator('ol.results').textContent()).to.not.include('SampleHiveDataset')
    // The scroll cursor walks every result page by page, past the offset window.
    await shared.goto(`${lite.url}/search?q=*&cursor=`)
    await shared.getByText(/results for/).waitFor()
    const first = await shared.locator('ol.results li').count()
    expect(first).to.be.greaterThan(0)
    await shared.getByRole('link', {name: 'Next →'}).click()
    await shared.waitForURL(/cursor=.+/)
    await shared.locator('ol.results li').first().waitFor()
    await shared.context().close()
    await page.context().close()
  })

  it('adds a tag from the page and the GraphQL API sees it; a user without the privilege is shown the 403 and nothing changes', async () => {
    const page = await signIn(lite.token)
    await page.goto(`${lite.url}/entity/${encodeURIComponent(KAFKA)}`)
    await page.getByRole('heading', {name: 'SampleKafkaDataset'}).waitFor()
    await page.getByLabel('Add tag').fill('web-test')
    await page.getByRole('button', {name: 'Add', exact: true}).click()
    await page.locator('.tag', {hasText: 'web-test'}).first().waitFor()
    const api = await http(`${lite.url}/api/graphql`, {token: lite.token, body: {query: `{ dataset(urn: "${KAFKA}") { tags { tags { tag { urn } } } } }`}})
    expect(api.body.data.dataset.tags.tags.map((t: {tag: {urn: string}}) => t.tag.urn)).to.include('urn:li:tag:web-test')
    await page.context().close()

    const bob = await signIn(bobToken)
    await bob.goto(`${lite.url}/entity/${encodeURIComponent(HIVE)}`)
    await bob.getByRole('heading', {name: 'SampleHiveDataset'}).waitFor()
    const before = await bob.getByRole('region', {name: 'Tags and terms'}).locator('.tag').count()
    await bob.getByLabel('Add tag').fill('web-test')
    await bob.getByRole('button', {name: 'Add', exact: true}).click()
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
    await page.getByRole('button', {name: 'Show history'}).click()
    const history = page.getByRole('region', {name: 'History'})
    await history.locator('.history > li').first().waitFor()
    expect(await history.textContent()).to.include('DOCUMENTATION')
    await page.context().close()
  })

  it('GraphiQL is the real one, bundled: it signs in with a token and runs a query', async () => {
    const page = await (await browser.newContext()).newPage()
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
    const page = await (await browser.newContext()).newPage()
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
})
