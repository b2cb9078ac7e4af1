/**
 * GraphiQL at `/api/graphiql`, bundled (no CDN): it sends the token signed in on the pages (or
 * typed in the bar above the editor); a token in GraphiQL's own header editor wins.
 */
import {StrictMode, useMemo, useState} from 'react'
import {createRoot} from 'react-dom/client'
import {GraphiQL} from 'graphiql'
import 'graphiql/style.css'
import {getToken, setToken} from '../src/api.js'

const EXAMPLE = `# Every field name follows DataHub's GraphQL schema.
query sample {
  me { corpUser { urn username } }
  search(input: {type: DATASET, query: "*", start: 0, count: 5}) {
    total
    searchResults { entity { urn ... on Dataset { name platform { name } } } }
  }
}
`

function App() {
  const [token, setT] = useState(getToken() ?? '')
  const [draft, setDraft] = useState(token)
  const fetcher = useMemo(
    () =>
      async (params: unknown, opts?: {headers?: Record<string, string>}) => {
        const headers: Record<string, string> = {'content-type': 'application/json'}
        if (token) headers.authorization = `Bearer ${token}`
        Object.assign(headers, opts?.headers ?? {})
        const res = await fetch('/api/graphql', {method: 'POST', headers, body: JSON.stringify(params)})
        return res.json()
      },
    [token],
  )
  return (
    <div className="shell">
      <form
        className="bar"
        onSubmit={(e) => {
          e.preventDefault()
          setToken(draft.trim() || null)
          setT(draft.trim())
        }}
      >
        <a href="/">mdcli</a>
        <label htmlFor="gq-token">Access token</label>
        <input id="gq-token" type="password" autoComplete="off" value={draft} onChange={(e) => setDraft(e.target.value)} placeholder="mdt_…" />
        <button type="submit">{token ? 'Change' : 'Sign in'}</button>
        <span>{token ? 'Signed in: requests carry this token.' : 'Not signed in: only a server started with --no-auth answers.'}</span>
      </form>
      <div className="editor">
        <GraphiQL fetcher={fetcher as never} defaultQuery={EXAMPLE} />
      </div>
    </div>
  )
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
)
