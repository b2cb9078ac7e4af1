/**
 * A small page at `/api/graphiql` for exploring the API by hand: a query box, a variables box and
 * the response, posting to `/api/graphql`. It loads nothing from the network, so it works
 * offline and on machines that may not reach a CDN (the full GraphiQL app is not bundled).
 */

const EXAMPLE = `# Read an entity by urn; every field name follows DataHub's GraphQL schema.
query getDataset($urn: String!) {
  dataset(urn: $urn) {
    urn
    name
    properties { name description }
    ownership { owners { owner { ... on CorpUser { urn username } ... on CorpGroup { urn name } } type } }
    tags { tags { tag { urn name } } }
  }
  search(input: {type: DATASET, query: "*", start: 0, count: 5}) {
    total
    searchResults { entity { urn type ... on Dataset { name } } }
  }
}`

export const GRAPHIQL_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>mdcli lite · GraphQL</title>
<style>
  body { font: 14px system-ui, sans-serif; margin: 0; display: flex; flex-direction: column; height: 100vh; }
  header { padding: 8px 12px; background: #243447; color: #fff; }
  header code { background: #ffffff22; padding: 1px 4px; border-radius: 3px; }
  main { flex: 1; display: flex; gap: 8px; padding: 8px; min-height: 0; }
  section { flex: 1; display: flex; flex-direction: column; min-height: 0; }
  textarea, pre { flex: 1; font: 13px ui-monospace, monospace; border: 1px solid #ccc; border-radius: 4px; padding: 8px; margin: 0; overflow: auto; }
  #variables { flex: 0 0 90px; margin-top: 8px; }
  button { margin-top: 8px; padding: 6px 16px; font-size: 14px; }
</style>
</head>
<body>
<header>
  POST GraphQL to <code>/api/graphql</code> with a JSON body <code>{"query": "...", "variables": {...}}</code>
  and the header <code>Authorization: Bearer &lt;token&gt;</code>. Ctrl+Enter runs the query.
</header>
<main>
  <section>
    <textarea id="query" spellcheck="false"></textarea>
    <textarea id="variables" spellcheck="false">{"urn": "urn:li:dataset:(urn:li:dataPlatform:hive,sample_db.customers,PROD)"}</textarea>
    <button id="run">Run</button>
  </section>
  <section><pre id="result"></pre></section>
</main>
<script>
  const q = document.getElementById('query')
  q.value = ${JSON.stringify(EXAMPLE)}
  async function run() {
    const out = document.getElementById('result')
    let variables = {}
    try { variables = JSON.parse(document.getElementById('variables').value || '{}') } catch (e) { out.textContent = 'Variables are not valid JSON: ' + e.message; return }
    const res = await fetch('graphql', {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify({query: q.value, variables})})
    out.textContent = 'HTTP ' + res.status + '\\n' + JSON.stringify(await res.json(), null, 2)
  }
  document.getElementById('run').onclick = run
  document.addEventListener('keydown', (e) => { if (e.ctrlKey && e.key === 'Enter') run() })
</script>
</body>
</html>
`
