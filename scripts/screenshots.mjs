// Screenshots of the pages `mdcli lite` serves, for the README: `npm run screenshots` (after a
// build). Starts a throwaway `mdcli lite --no-auth` on 127.0.0.1 with DataHub's bootstrap file
// when ../shared is there (else the sample catalog), drives Debian's Chromium, writes
// docs/screenshots/*.png, and stops the server.
import {spawn, spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {chromium} from 'playwright-core'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const out = join(root, 'docs', 'screenshots')
const bin = join(root, 'bin', 'run.js')
const bootstrap = join(root, '..', 'shared', 'fixtures', 'datahub', 'bootstrap_mce.json')
const store = mkdtempSync(join(tmpdir(), 'mdcli-shots-'))
const home = mkdtempSync(join(tmpdir(), 'mdcli-shots-home-'))
const env = {...process.env, HOME: home, METADATA_TELEMETRY_ENABLED: 'false'}
const useBootstrap = existsSync(bootstrap)

const lite = spawn(process.execPath, [bin, 'lite', '--port', '0', '--store', store, '--no-auth', ...(useBootstrap ? [] : ['--sample'])], {env, stdio: ['ignore', 'pipe', 'inherit']})
const url = await new Promise((resolve, reject) => {
  let text = ''
  lite.stdout.on('data', (d) => {
    text += d
    const m = /listening on (http:\/\/\S+)/.exec(text)
    if (m) resolve(m[1])
  })
  lite.once('exit', (c) => reject(new Error(`mdcli lite exited ${c}`)))
})
try {
  if (useBootstrap) {
    const r = spawnSync(process.execPath, [bin, 'ingest', '-c', '-'], {env: {...env, METADATA_GMS_URL: url}, input: `source: {type: file, config: {path: "${bootstrap}"}}\n`, encoding: 'utf8'})
    if (r.status !== 0) throw new Error(`ingest failed: ${r.stderr}`)
  }
  const dataset = useBootstrap ? 'urn:li:dataset:(urn:li:dataPlatform:hdfs,SampleHdfsDataset,PROD)' : 'urn:li:dataset:(urn:li:dataPlatform:hive,sample_db.customer_orders,PROD)'
  const gql = async (query, variables = {}) => {
    const r = await fetch(`${url}/api/graphql`, {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify({query, variables})})
    const body = await r.json()
    if (!r.ok || body.errors) throw new Error(`${query.slice(0, 60)}: ${r.status} ${JSON.stringify(body.errors ?? body)}`)
    return body.data
  }
  // Two edits of the documentation, for the history's version diff.
  for (const text of ['Raw events landed from HDFS.', 'Raw events landed from HDFS, **deduplicated** daily.']) {
    await gql('mutation($i: DescriptionUpdateInput!) { updateDescription(input: $i) }', {i: {description: text, resourceUrn: dataset}})
  }
  if (useBootstrap) {
    // A dataset page with something in each of its classification boxes.
    await gql('mutation { createTag(input: {id: "pii", name: "pii"}) }')
    await gql(`mutation($r: String!) { addTags(input: {tagUrns: ["urn:li:tag:pii", "urn:li:tag:Legacy"], resourceUrn: $r}) }`, {r: dataset})
    await gql(`mutation($r: String!) { addTerms(input: {termUrns: ["urn:li:glossaryTerm:SavingAccount"], resourceUrn: $r}) }`, {r: dataset})
    const domain = (await gql('mutation { createDomain(input: {id: "marketing", name: "Marketing"}) }')).createDomain
    await gql('mutation($e: String!, $d: String!) { setDomain(entityUrn: $e, domainUrn: $d) }', {e: dataset, d: domain})
  }
  mkdirSync(out, {recursive: true})
  const browser = await chromium.launch({executablePath: process.env.MDCLI_TEST_CHROMIUM ?? '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking']})
  const page = await (await browser.newContext({viewport: {width: 1280, height: 800}})).newPage()
  const shot = async (name) => {
    await page.screenshot({path: join(out, `${name}.png`)})
    console.log(`docs/screenshots/${name}.png`)
  }
  await page.goto(url)
  await page.getByRole('heading', {name: 'Catalog'}).waitFor()
  await shot('home')
  await page.goto(`${url}/search?q=${useBootstrap ? 'sample' : 'customer'}`)
  await page.locator('ol.results li').first().waitFor()
  await shot('search')
  await page.goto(`${url}/entity/${encodeURIComponent(dataset)}`)
  await page.getByRole('region', {name: 'Schema'}).waitFor()
  await shot('dataset')
  const graph = page.getByRole('region', {name: 'Lineage graph'})
  await graph.locator('.react-flow__node').nth(1).waitFor()
  await page.waitForTimeout(500)
  await graph.scrollIntoViewIfNeeded()
  await shot('lineage')
  await page.getByRole('button', {name: 'Show history'}).click()
  const history = page.getByRole('region', {name: 'History'})
  await history.locator('.history > li').first().waitFor()
  const compare = page.getByRole('form', {name: 'Compare versions'})
  await compare.getByLabel('Aspect').selectOption('editableDatasetProperties')
  await compare.getByRole('button', {name: 'Compare'}).click()
  await page.locator('pre.diff-view').waitFor()
  await history.evaluate((e) => e.scrollIntoView({block: 'start'}))
  await shot('history')
  await page.goto(`${url}/api/graphiql`)
  await page.locator('.graphiql-execute-button').click()
  await page.locator('.result-window').getByText('"username"').waitFor({timeout: 20_000})
  await shot('graphiql')
  await browser.close()
} finally {
  lite.kill('SIGTERM')
  await new Promise((r) => lite.once('exit', r))
  rmSync(store, {recursive: true, force: true})
  rmSync(home, {recursive: true, force: true})
}
