/**
 * Our pages past one page of answers, in real headless Chromium against a `mdcli lite` whose
 * search window is 100 (`--max-result-window 100`) holding 150 datasets downstream of one: search
 * pages go on past the window by the scroll cursor, lineage lists and the graph say how much they
 * show and show the rest on request.
 */
import {expect} from 'chai'
import {existsSync} from 'node:fs'
import {chromium, type Browser, type Page} from 'playwright-core'
import {http, useLite} from '../helpers/lite.js'
import {IN_CI, skipWithReason} from '../helpers/requires.js'

const CHROMIUM = process.env.MDCLI_TEST_CHROMIUM ?? '/usr/bin/chromium'
const WINDOW = 100
const MANY = 150
const ROOT = 'urn:li:dataset:(urn:li:dataPlatform:hive,many_root,PROD)'
const child = (i: number) => `urn:li:dataset:(urn:li:dataPlatform:hive,many_${String(i).padStart(3, '0')},PROD)`

describe('web pages past one page (headless Chromium, a search window of 100)', function () {
  this.timeout(180_000)
  const lite = useLite({args: ['--max-result-window', String(WINDOW)]})
  let browser: Browser

  before(async function () {
    if (!existsSync(CHROMIUM)) {
      if (IN_CI) throw new Error(`Chromium is not installed at ${CHROMIUM} (.ci/run installs it with apt-get)`)
      skipWithReason(this, `no Chromium at ${CHROMIUM}; apt-get install chromium`)
    }
    const stamp = {time: 0, actor: 'urn:li:corpuser:datahub'}
    const proposal = (urn: string, aspectName: string, value: unknown) => ({entityType: 'dataset', entityUrn: urn, aspectName, changeType: 'UPSERT', aspect: {contentType: 'application/json', value: JSON.stringify(value)}})
    const proposals = [proposal(ROOT, 'datasetProperties', {name: 'many_root', customProperties: {}, tags: []})]
    for (let i = 0; i < MANY; i++) {
      proposals.push(proposal(child(i), 'datasetProperties', {name: `many_${String(i).padStart(3, '0')}`, customProperties: {}, tags: []}))
      proposals.push(proposal(child(i), 'upstreamLineage', {upstreams: [{dataset: ROOT, type: 'TRANSFORMED', auditStamp: stamp}]}))
    }
    const r = await http(`${lite.url}/aspects?action=ingestProposalBatch`, {token: lite.token, body: {proposals}})
    expect(r.status, JSON.stringify(r.body)).to.equal(200)
    browser = await chromium.launch({executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking']})
  })
  after(async () => {
    await browser?.close()
  })

  const signIn = async (): Promise<Page> => {
    const page = await (await browser.newContext()).newPage()
    await page.goto(lite.url)
    await page.getByLabel('Access token').fill(lite.token)
    await page.getByRole('button', {name: 'Sign in'}).click()
    await page.getByRole('heading', {name: 'Catalog'}).waitFor()
    return page
  }
  const gql = async (query: string, variables: Record<string, unknown> = {}) => {
    const r = await http(`${lite.url}/api/graphql`, {token: lite.token, body: {query, variables}})
    expect(r.body.errors, JSON.stringify(r.body.errors)).to.equal(undefined)
    return r.body.data
  }
  const shown = (page: Page) => page.locator('ol.results li .name').evaluateAll((as: any[]) => as.map((a) => decodeURIComponent(new URL(a.href).pathname.slice('/entity/'.length))))

  it('pages by offset up to the server\'s window, then goes on by the cursor from where it stopped, to the last result', async () => {
    const {total} = (await gql('{ searchAcrossEntities(input: {query: "*", start: 0, count: 0}) { total } }')).searchAcrossEntities
    expect(total).to.be.greaterThan(MANY)
    const windowUrns: string[] = (await gql(`{ searchAcrossEntities(input: {query: "*", start: 0, count: ${WINDOW}}) { searchResults { entity { urn } } } }`)).searchAcrossEntities.searchResults.map((r: any) => r.entity.urn)
    const page = await signIn()
    // Inside the window: offset pages, as before.
    await page.goto(`${lite.url}/search?q=*&start=60`)
    await page.getByText(/results for/).waitFor()
    const pager = page.getByRole('navigation', {name: 'Pages'})
    expect(await pager.getByRole('link', {name: 'Next →'}).getAttribute('href')).to.include('start=80')
    await pager.getByRole('link', {name: 'Next →'}).click()
    await page.waitForURL(/start=80/)
    await page.locator('ol.results[start="81"]').waitFor()
    expect(await shown(page)).to.deep.equal(windowUrns.slice(80, 100))
    // The last page the window holds: Next goes on by the cursor, from result 101.
    await pager.getByRole('button', {name: 'Next →'}).click()
    await page.waitForURL(/cursor=.+/)
    await page.locator('ol.results[start="101"]').waitFor()
    expect(await page.getByRole('alert').count()).to.equal(0)
    expect(new URL(page.url()).searchParams.get('from')).to.equal('100')
    await pager.getByText(`101–120 of ${total}`).waitFor()
    // And on to the end: every result once, none of the window's again.
    const past: string[] = []
    for (;;) {
      const rows = await shown(page)
      expect(rows.length).to.be.greaterThan(0)
      past.push(...rows)
      const next = pager.getByRole('link', {name: 'Next →'})
      if ((await next.count()) === 0) break
      const before = page.url()
      await next.click()
      await page.waitForURL((u) => u.toString() !== before)
      await page.locator(`ol.results[start="${100 + past.length + 1}"]`).waitFor()
    }
    expect(past).to.have.length(total - WINDOW)
    expect(new Set([...windowUrns, ...past]).size).to.equal(total)
    await page.context().close()
  })

  it('lists every lineage neighbour a page at a time, and the graph says how many it shows and draws the rest on request', async () => {
    const page = await signIn()
    await page.goto(`${lite.url}/entity/${encodeURIComponent(ROOT)}`)
    const down = page.getByRole('region', {name: 'Downstream', exact: true})
    await down.getByRole('heading', {name: `Downstream (${MANY})`}).waitFor()
    const names = () => down.locator('li a').allTextContents()
    const seen: string[] = []
    for (const [from, to] of [[1, 50], [51, 100], [101, 150]]) {
      await down.getByText(`${from}–${to} of ${MANY}`).waitFor()
      const rows = await names()
      expect(rows).to.have.length(to! - from! + 1)
      seen.push(...rows)
      if (to! < MANY) await down.getByRole('button', {name: 'Next →'}).click()
    }
    expect(await down.getByRole('button', {name: 'Next →'}).count()).to.equal(0)
    expect(new Set(seen).size).to.equal(MANY)
    await down.getByRole('button', {name: '← Previous'}).click()
    await down.getByText(`51–100 of ${MANY}`).waitFor()

    // The graph: the first 100 neighbours drawn, and it says so; the rest on request.
    const graph = page.getByRole('region', {name: 'Lineage graph'})
    const partly = graph.getByRole('list', {name: 'Neighbours not all shown'})
    await partly.getByText(`many_root: 100 of ${MANY} downstream shown`).waitFor()
    await graph.getByText(`101 entities, 100 edges.`).waitFor()
    expect(await graph.getByRole('button', {name: `Show more downstream of many_root (100 of ${MANY} shown)`}).count()).to.equal(1)
    await partly.getByRole('button', {name: `Show ${MANY - 100} more`}).click()
    await graph.getByText(`${MANY + 1} entities, ${MANY} edges.`).waitFor()
    await partly.waitFor({state: 'detached'})
    expect(await graph.locator('.react-flow__node').count()).to.equal(MANY + 1)
    expect(await graph.getByRole('list', {name: 'Lineage edges'}).locator('li').count()).to.equal(MANY)
    expect(await graph.getByRole('button', {name: /downstream of many_root/}).count()).to.equal(0)
    await page.context().close()
  })
})
