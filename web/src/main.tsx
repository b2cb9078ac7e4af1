/**
 * The pages `mdcli lite` serves: sign-in and home, search with facets, entity pages with schema,
 * ownership, tags, lineage and raw aspects, and edits — all through the public GraphQL API with
 * the signed-in token, so the server's policies decide what a person may see and change.
 */
import {lazy, StrictMode, Suspense, useCallback, useEffect, useRef, useState, type FormEvent, type ReactNode} from 'react'
import {createRoot} from 'react-dom/client'
import DOMPurify from 'dompurify'
import {marked} from 'marked'
import {ApiError, getJson, getToken, gql, setToken} from './api.js'
import {entityHref, navigate, searchHref, usePath} from './router.js'
import {VersionDiff} from './version-diff.js'
import {ColumnEditor, DeprecationEditor, DomainEditor, ownerKind, OwnersEditor, TagsEditor, TermsEditor} from './edits.js'

type Obj = Record<string, any>

const LineageGraph = lazy(() => import('./lineage-graph.js'))
const termLink = (urn: string, text: string) => <Link href={entityHref(urn)}>{text}</Link>
const LINEAGE_TYPES = new Set(['DATASET', 'CHART', 'DASHBOARD', 'DATA_JOB', 'DATA_FLOW'])

function Link({href, children, className}: {href: string; children: ReactNode; className?: string}) {
  return (
    <a
      href={href}
      className={className}
      onClick={(e) => {
        if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return
        e.preventDefault()
        navigate(href)
      }}
    >
      {children}
    </a>
  )
}

/**
 * A query's answer for the current `deps`. With `enabled` false it waits (and keeps nothing of
 * other deps); the search page asks for its filter counts only once its results are in, so the
 * two do not share the server while the results are what the person waits for.
 */
function useQuery<T>(query: string, variables: Obj, deps: unknown[], enabled = true): {data?: T; error?: ApiError; reload: () => void} {
  const [state, setState] = useState<{data?: T; error?: ApiError; key?: string}>({})
  const [n, setN] = useState(0)
  const key = JSON.stringify(deps)
  const asked = useRef<string | undefined>(undefined)
  useEffect(() => {
    if (!enabled) return
    const id = `${key}#${n}`
    if (asked.current === id) return
    asked.current = id
    let live = true
    let done = false
    // Another page: start blank. A reload of the same one keeps what is shown (and what is typed
    // into its forms) until the new answer replaces it.
    setState((s) => (s.key === key ? s : {}))
    takeEarly<T>(query, variables).then(
      (data) => {
        done = true
        if (live) setState({data, key})
      },
      (error) => {
        done = true
        if (live) setState({error, key})
      },
    )
    return () => {
      live = false
      // Left before its answer (other deps, or waiting again): ask again when next enabled.
      if (!done) asked.current = undefined
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, n, enabled])
  const reload = useCallback(() => setN((x) => x + 1), [])
  // An answer for other deps is never shown, not even for the one render before the effect clears it.
  return state.key === key ? {data: state.data, error: state.error, reload} : {reload}
}

/**
 * The first page's query, asked for beside the sign-in check instead of after it: the home page
 * costs one round trip, not two. Used once, soon, and only under the token it was asked with.
 */
const early = new Map<string, {token: string | null; at: number; answer: Promise<unknown>}>()
function askEarly(query: string): void {
  const answer = gql(query)
  answer.catch(() => {}) // a refusal is the sign-in check's to show
  early.set(query, {token: getToken(), at: Date.now(), answer})
}
function takeEarly<T>(query: string, variables: Obj): Promise<T> {
  const e = early.get(query)
  early.delete(query)
  const fresh = e && e.token === getToken() && Date.now() - e.at < 5000 && Object.keys(variables).length === 0
  return fresh ? (e.answer as Promise<T>) : gql<T>(query, variables)
}

const nameOf = (e: Obj): string => e?.properties?.name ?? e?.name ?? e?.username ?? e?.info?.name ?? e?.info?.title ?? e?.properties?.displayName ?? e?.urn ?? ''
const platformOf = (e: Obj): string | undefined => e?.platform?.properties?.displayName ?? e?.platform?.name
/** "dataset · hive": an entity's type and, where it has one, its platform, as a person reads them. */
const typeLabel = (e: Obj): string => `${e.type.toLowerCase().replace(/_/g, ' ')}${platformOf(e) ? ` · ${platformOf(e)}` : ''}`
/** The containers an entity sits in, outermost first: "sample_db › events". */
const pathOf = (e: Obj): string => [...(e?.parentContainers?.containers ?? [])].reverse().map((c: Obj) => c.properties?.name ?? c.urn).join(' › ')
/** What a link to another entity asks for, so it can show a name and platform instead of an urn. */
const NAMED = `urn type
    ... on Dataset { name platform { name } } ... on Chart { properties { name } platform { name } } ... on Dashboard { properties { name } platform { name } }
    ... on DataJob { properties { name } } ... on DataFlow { properties { name } platform { name } } ... on Container { properties { name } platform { name } }
    ... on GlossaryTerm { name } ... on GlossaryNode { properties { name } } ... on Tag { name } ... on Domain { properties { name } }
    ... on CorpUser { username } ... on CorpGroup { name } ... on MLModel { name platform { name } } ... on MLFeatureTable { name platform { name } }`

/**
 * A column type as a person reads it: SQLAlchemy's reprs that SQL sources store as the native
 * type ("VARCHAR(length=200)", "NUMERIC(precision=10, scale=2)", "INTEGER()") become SQL
 * ("varchar(200)", "numeric(10, 2)", "integer"); anything else is shown as stored.
 */
function readableType(native: string | undefined): string {
  if (!native) return ''
  const m = /^([A-Z][A-Z0-9_ ]*)\((.*)\)$/.exec(native.trim())
  if (!m) return native
  const name = m[1]!.toLowerCase()
  const args = m[2]!
    .split(',')
    .map((a) => a.trim())
    .filter((a) => a && !/^(collation|timezone|asdecimal|_?enums|create_constraint|native_enum)=/i.test(a))
    .map((a) => a.replace(/^\w+=/, '').replace(/^'(.*)'$/, '$1'))
    .filter((a) => a !== 'None' && a !== 'False' && a !== 'True')
  return args.length ? `${name}(${args.join(', ')})` : name
}

function SignIn({onDone, message}: {onDone: () => void; message?: string}) {
  const [token, setT] = useState('')
  const submit = (ev: FormEvent) => {
    ev.preventDefault()
    setToken(token.trim())
    onDone()
  }
  return (
    <main className="signin">
      <h1>mdcli</h1>
      <p>Sign in with an access token (printed by <code>mdcli lite</code> on its first start, or made with <code>mdcli token create</code>).</p>
      {message && <p role="alert" className="error">{message}</p>}
      <form onSubmit={submit}>
        <label htmlFor="token">Access token</label>
        <input id="token" type="password" autoComplete="off" value={token} onChange={(e) => setT(e.target.value)} autoFocus />
        <button type="submit">Sign in</button>
      </form>
    </main>
  )
}

function Header({me, onSignOut}: {me: string; onSignOut: () => void}) {
  const [, params] = usePath()
  const asked = params.get('q') ?? ''
  const [q, setQ] = useState(asked)
  // The box shows the query of the page in view, after Back and Forward too; what is typed stays until the page changes.
  useEffect(() => setQ(asked), [asked])
  return (
    <header>
      <Link href="/" className="brand">mdcli</Link>
      <form
        role="search"
        onSubmit={(e) => {
          e.preventDefault()
          navigate(searchHref({q: q || '*'}))
        }}
      >
        <input aria-label="Search the catalog" placeholder="Search datasets, dashboards, terms…" value={q} onChange={(e) => setQ(e.target.value)} />
        <button type="submit">Search</button>
      </form>
      <span className="me">{me}</span>
      <a href="/api/graphiql">GraphiQL</a>
      <button className="link" onClick={onSignOut}>Sign out</button>
    </header>
  )
}

const HOME = `query home {
  searchAcrossEntities(input: {query: "*", start: 0, count: 0}) { total facets { field aggregations { value count } } }
  recentlyChanged(count: 10, assetsOnly: true) { time actor aspectName changeType entity { urn type
    ... on Dataset { name platform { name } } ... on Chart { properties { name } } ... on Dashboard { properties { name } }
    ... on DataJob { properties { name } } ... on DataFlow { properties { name } } ... on Container { properties { name } }
    ... on GlossaryTerm { name } ... on GlossaryNode { properties { name } } ... on Tag { name } ... on Domain { properties { name } }
    ... on CorpUser { username } ... on CorpGroup { name } ... on MLFeatureTable { name } ... on MLModel { name } ... on MLFeature { name } } }
}`

function Home() {
  const {data, error} = useQuery<Obj>(HOME, {}, [])
  if (error) return <p role="alert" className="error">{error.message}</p>
  if (!data) return <p>Loading…</p>
  const facet = (f: string) => data.searchAcrossEntities.facets?.find((x: Obj) => x.field === f)?.aggregations ?? []
  return (
    <main>
      <h1>Catalog</h1>
      <p>{data.searchAcrossEntities.total} entities</p>
      <section>
        <h2>By type</h2>
        <ul className="chips" aria-label="Entity types">
          {facet('_entityType').map((a: Obj) => (
            <li key={a.value}>
              <Link href={searchHref({q: '*', type: a.value})}>{a.value.toLowerCase().replace(/_/g, ' ')} <b>{a.count}</b></Link>
            </li>
          ))}
        </ul>
      </section>
      <section>
        <h2>Platforms</h2>
        <ul className="chips" aria-label="Platforms">
          {facet('platform').map((a: Obj) => (
            <li key={a.value}>
              <Link href={searchHref({q: '*', platform: a.value})}>{a.value.replace('urn:li:dataPlatform:', '')} <b>{a.count}</b></Link>
            </li>
          ))}
        </ul>
      </section>
      <section aria-label="Recently changed">
        <h2>Recently changed</h2>
        {data.recentlyChanged.length === 0 ? (
          <p className="meta">Nothing has changed since the server started.</p>
        ) : (
          <ol className="recent">
            {data.recentlyChanged.map((c: Obj) => (
              <li key={c.entity.urn}>
                <Link href={entityHref(c.entity.urn)}>{nameOf(c.entity)}</Link>{' '}
                <span className="meta">
                  {typeLabel(c.entity)} · {c.changeType === 'DELETE' ? 'removed' : 'changed'} {c.aspectName ?? ''} · {new Date(c.time).toISOString().replace('T', ' ').slice(0, 19)} · {c.actor}
                </span>
              </li>
            ))}
          </ol>
        )}
      </section>
    </main>
  )
}

const PATH = `parentContainers { containers { urn properties { name } } }`
const OWNERS = 'ownership { owners { owner { ... on CorpUser { urn username } ... on CorpGroup { urn name } } } }'
const TAGS = 'tags { tags { tag { urn name } } }'
/** What a result row shows for each type: its name, platform, description (the edited one first), owners and tags, where the type has them. */
const RESULT_TYPES: Array<[string, string]> = [
  ['Dataset', `name platform { name } properties { name description } editableProperties { description } ${OWNERS} ${TAGS} ${PATH}`],
  ['Chart', `platform { name } properties { name description } editableProperties { description } ${OWNERS} ${TAGS} ${PATH}`],
  ['Dashboard', `platform { name } properties { name description } editableProperties { description } ${OWNERS} ${TAGS} ${PATH}`],
  ['DataJob', `properties { name description } editableProperties { description } ${OWNERS} ${TAGS}`],
  ['DataFlow', `platform { name } properties { name description } editableProperties { description } ${OWNERS} ${TAGS}`],
  ['Container', `platform { name } properties { name description } editableProperties { description } ${OWNERS} ${TAGS} ${PATH}`],
  ['MLModel', `name platform { name } description editableProperties { description } ${OWNERS} ${TAGS}`],
  ['MLModelGroup', `name platform { name } description editableProperties { description } ${OWNERS} ${TAGS}`],
  ['MLFeatureTable', `name platform { name } description editableProperties { description } ${OWNERS} ${TAGS}`],
  ['MLFeature', `name description editableProperties { description } ${OWNERS} ${TAGS}`],
  ['MLPrimaryKey', `name description editableProperties { description } ${OWNERS} ${TAGS}`],
  ['Notebook', `platform { name } info { title description } editableProperties { description } ${OWNERS} ${TAGS}`],
  ['GlossaryTerm', `name properties { name description } ${OWNERS}`],
  ['GlossaryNode', `properties { name description } ${OWNERS}`],
  ['Tag', `name properties { name description } ${OWNERS}`],
  ['Domain', `properties { name description } ${OWNERS}`],
  ['CorpGroup', `name properties { description } editableProperties { description } ${OWNERS}`],
  ['CorpUser', `username ${TAGS}`],
]
const RESULT_FIELDS = `searchResults { entity { urn type ${RESULT_TYPES.map(([t, f]) => `... on ${t} { ${f} }`).join(' ')} } }`
/**
 * The one rule for what describes an entity or a column, on its page and in search alike (DataHub's
 * web app's): the description edited in the catalog, unless it is empty, then the ingested one.
 * So clearing an edited description shows what the source says again.
 */
const described = (edited: string | null | undefined, ...ingested: Array<string | null | undefined>): string => [edited, ...ingested].find((d) => !!d) ?? ''
const descriptionOf = (e: Obj): string => described(e.editableProperties?.description, e.properties?.description, e.info?.description, e.description)
/** A result row's owners, once each (an owner may hold several roles), groups marked: a user and a group may share a name. */
const ownersOf = (e: Obj): string[] => {
  const owners: Obj[] = (e.ownership?.owners ?? []).map((o: Obj) => o.owner)
  return owners.filter((o, i) => owners.findIndex((x) => x.urn === o.urn) === i).map((o) => `${o.username ?? o.name ?? o.urn}${ownerKind(o.urn) === 'group' ? ' (group)' : ''}`)
}
/** A description as one line of plain text for a result row: the Markdown's marks would show as typed (the entity page renders it). */
const snippetOf = (md: string): string =>
  md
    .replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, '')
    .replace(/<[^>]*>/g, '')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/^\s*(#+|>|[-*+]\s)\s*/gm, '')
    .replace(/\*\*|__|\*|`|~~/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 200)
/**
 * The filter counts, asked for apart: over many matches they cost more than the page of results,
 * which shows first. A facet with values ticked is counted under the other facets' filters only,
 * as DataHub counts it, so its other values stay on offer; the rest are counted under them all.
 */
function facetCounts(groups: Array<{fields: string[]}>): string {
  const vars = groups.map((_, i) => `$f${i}: AggregateAcrossEntitiesInput!`).join(', ')
  return `query facets(${vars}) { ${groups.map((_, i) => `f${i}: aggregateAcrossEntities(input: $f${i}) { facets { field aggregations { value count } } }`).join(' ')} }`
}

const SEARCH = `query search($input: SearchAcrossEntitiesInput!) { searchAcrossEntities(input: $input) { start count total ${RESULT_FIELDS} } }`
/** Past the server's result window, pages follow the scroll cursor instead of an offset. */
const SCROLL = `query scroll($input: ScrollAcrossEntitiesInput!) { scrollAcrossEntities(input: $input) { nextScrollId count total ${RESULT_FIELDS} } }`
/** The cursor `offset` results in, asked for without the results themselves. */
const SKIP = `query skip($input: ScrollAcrossEntitiesInput!) { scrollAcrossEntities(input: $input) { nextScrollId count } }`
/** The largest page the server gives (and a request may ask for in all). */
const MAX_PAGE = 10_000

/**
 * The server's result window (`lite --max-result-window`, in GET /config): offset pages end there.
 * Asked for once per page load; a server that does not say has DataHub's 10,000.
 */
let windowAsked: Promise<number> | undefined
function useResultWindow(): number | undefined {
  const [resultWindow, setResultWindow] = useState<number>()
  useEffect(() => {
    windowAsked ??= getJson<Obj>('/config').then(
      (c) => (Number.isInteger(c.server?.maxResultWindow) && c.server.maxResultWindow > 0 ? c.server.maxResultWindow : 10_000),
      () => 10_000,
    )
    let live = true
    void windowAsked.then((w) => live && setResultWindow(w))
    return () => {
      live = false
    }
  }, [])
  return resultWindow
}

/** A scroll cursor that starts `offset` results in: the pages past the window go on from where the offset pages stopped. */
async function cursorAt(input: Obj, offset: number): Promise<string | null> {
  let scrollId: string | undefined
  for (let done = 0; done < offset; ) {
    const d = await gql<Obj>(SKIP, {input: {...input, count: Math.min(offset - done, MAX_PAGE), ...(scrollId ? {scrollId} : {})}})
    const r = d.scrollAcrossEntities
    if (!r.nextScrollId || r.count === 0) return null
    scrollId = r.nextScrollId
    done += r.count
  }
  return scrollId ?? null
}

const FACETS: Array<[string, string]> = [
  ['type', '_entityType'],
  ['platform', 'platform'],
  ['domain', 'domains'],
  ['tag', 'tags'],
  ['term', 'glossaryTerms'],
  ['owner', 'owners'],
]
const PAGE = 20

function Search({params}: {params: URLSearchParams}) {
  const q = params.get('q') ?? '*'
  const start = Number(params.get('start') ?? 0)
  /** The search's filters, or those of every facet but `skip`. */
  const filtersBut = (skip?: string) => {
    const and = FACETS.filter(([k]) => k !== 'type' && k !== skip && params.getAll(k).length > 0).map(([k, field]) => ({field, values: params.getAll(k)}))
    const types = skip === 'type' ? [] : params.getAll('type')
    return {...(types.length ? {types} : {}), ...(and.length ? {orFilters: [{and}]} : {})}
  }
  const cursor = params.get('cursor')
  const scrolling = cursor !== null
  // Where a cursor page starts in the whole list (a walk that went on from the offset pages).
  const from = Number(params.get('from') ?? 0)
  const resultWindow = useResultWindow()
  const [jump, setJump] = useState<{busy?: boolean; error?: string}>({})
  const filters = filtersBut()
  const input = scrolling ? {query: q, count: PAGE, ...(cursor ? {scrollId: cursor} : {}), ...filters} : {query: q, start, count: PAGE, ...filters}
  const {data, error} = useQuery<Obj>(scrolling ? SCROLL : SEARCH, {input}, [params.toString()])
  const ticked = FACETS.filter(([k]) => params.getAll(k).length > 0)
  const untouched = FACETS.filter(([k]) => params.getAll(k).length === 0).map(([, field]) => field)
  const groups = [
    ...ticked.map(([k, field]) => ({fields: [field], input: {query: q, facets: [field], ...filtersBut(k)}})),
    ...(untouched.length > 0 ? [{fields: untouched, input: {query: q, facets: untouched, ...filters}}] : []),
  ]
  const counts = useQuery<Obj>(facetCounts(groups), Object.fromEntries(groups.map((g, i) => [`f${i}`, g.input])), [q, JSON.stringify(filters)], data !== undefined)
  const facets: Obj[] | undefined = counts.data && groups.flatMap((g, i) => (counts.data![`f${i}`]?.facets ?? []).filter((f: Obj) => g.fields.includes(f.field)))
  const current = Object.fromEntries(FACETS.map(([k]) => [k, params.getAll(k)]))
  const toggle = (k: string, v: string) => {
    const cur = current[k] ?? []
    navigate(searchHref({...current, q, [k]: cur.includes(v) ? cur.filter((x) => x !== v) : [...cur, v]}))
  }
  if (error) return <p role="alert" className="error">{error.message}</p>
  if (!data) return <p>Searching…</p>
  const r = scrolling ? data.scrollAcrossEntities : data.searchAcrossEntities
  return (
    <main className="search">
      <aside aria-label="Filters">
        {!facets && !counts.error && <p className="meta">Counting…</p>}
        {counts.error && <p role="alert" className="error">{counts.error.message}</p>}
        {FACETS.map(([k, field]) => {
          const aggs = facets?.find((f: Obj) => f.field === field)?.aggregations ?? []
          if (aggs.length === 0) return null
          return (
            <fieldset key={k}>
              <legend>{k}</legend>
              {aggs.slice(0, 12).map((a: Obj) => (
                <label key={a.value}>
                  <input type="checkbox" checked={(current[k] ?? []).includes(a.value)} onChange={() => toggle(k, a.value)} /> {a.value.replace(/^urn:li:[a-zA-Z]+:/, '')} ({a.count})
                </label>
              ))}
            </fieldset>
          )
        })}
      </aside>
      <section>
        <p className="count">
          {r.total} results for <q>{q}</q>
        </p>
        <ol className="results" start={(scrolling ? from : start) + 1}>
          {r.searchResults.map(({entity: e}: Obj) => (
            <li key={e.urn}>
              <Link href={entityHref(e.urn)} className="name">{nameOf(e)}</Link>
              <span className="meta">
                {typeLabel(e)}
                {pathOf(e) ? ` · ${pathOf(e)}` : ''}
              </span>
              {descriptionOf(e) && <p className="snippet">{snippetOf(descriptionOf(e))}</p>}
              <span className="meta">
                {ownersOf(e).join(', ')}{' '}
                {(e.tags?.tags ?? []).map((t: Obj) => (
                  <span className="tag" key={t.tag.urn}>{t.tag.name}</span>
                ))}
              </span>
            </li>
          ))}
        </ol>
        <nav className="pager" aria-label="Pages">
          {scrolling ? (
            <>
              <Link href={searchHref({...current, q})}>← First page</Link>
              <span className="meta">
                {from + 1}–{from + r.searchResults.length} of {r.total}
              </span>
              {r.nextScrollId && <Link href={searchHref({...current, q, cursor: r.nextScrollId, from: String(from + r.searchResults.length)})}>Next →</Link>}
            </>
          ) : resultWindow === undefined ? null : (
            <>
              {start > 0 && <Link href={searchHref({...current, q, start: String(Math.max(0, start - PAGE))})}>← Previous</Link>}
              {start + PAGE < r.total &&
                (start + 2 * PAGE <= resultWindow ? (
                  <Link href={searchHref({...current, q, start: String(start + PAGE)})}>Next →</Link>
                ) : (
                  // The next page is past the window: the cursor goes on from here.
                  <button
                    className="link"
                    disabled={jump.busy}
                    onClick={() => {
                      setJump({busy: true})
                      cursorAt({query: q, ...filters}, start + PAGE).then(
                        (id) => {
                          setJump({})
                          if (id) navigate(searchHref({...current, q, cursor: id, from: String(start + PAGE)}))
                        },
                        (e) => setJump({error: (e as Error).message}),
                      )
                    }}
                  >
                    {jump.busy ? 'Next …' : 'Next →'}
                  </button>
                ))}
              {r.total > resultWindow && <Link href={searchHref({...current, q, cursor: ''})}>Walk all {r.total} results with a cursor →</Link>}
            </>
          )}
          {jump.error && <p role="alert" className="error">{jump.error}</p>}
        </nav>
      </section>
    </main>
  )
}

type EditorKind = 'tags' | 'terms' | 'owners' | 'domain' | 'deprecation' | 'description'

/** What each editor shows, asked for on every type whose page offers that editor. A description is read with the type's own fields (below). */
const READS: Record<EditorKind, string> = {
  tags: 'tags { tags { tag { urn name } } }',
  terms: 'glossaryTerms { terms { term { urn name } } }',
  owners: 'ownership { owners { owner { ... on CorpUser { urn username } ... on CorpGroup { urn name } } } }',
  domain: 'domain { domain { urn properties { name } } }',
  deprecation: 'deprecation { deprecated note }',
  description: '',
}

const ASSET: EditorKind[] = ['tags', 'terms', 'owners', 'domain', 'deprecation']
/**
 * The edits each type's page offers (by GraphQL type name): those the server accepts for the type
 * (its registry's aspects; updateDescription's types) and also serves back on the type, so an edit
 * shows once it is made. Left out on purpose: deprecation of containers and notebooks, a domain
 * of a glossary node (the server keeps no such aspect for them); tags of groups (the server
 * writes them, but CorpGroup has no `tags` field to read them back, in DataHub's schema neither).
 */
const EDITORS: Record<string, EditorKind[]> = {
  Dataset: [...ASSET, 'description'],
  Chart: ASSET,
  Dashboard: ASSET,
  DataJob: ASSET,
  DataFlow: ASSET,
  Container: ['tags', 'terms', 'owners', 'domain', 'description'],
  Notebook: ['tags', 'terms', 'owners', 'domain', 'description'],
  MLModel: [...ASSET, 'description'],
  MLModelGroup: [...ASSET, 'description'],
  MLFeatureTable: [...ASSET, 'description'],
  MLFeature: [...ASSET, 'description'],
  MLPrimaryKey: [...ASSET, 'description'],
  GlossaryTerm: ['owners', 'domain', 'deprecation', 'description'],
  GlossaryNode: ['owners', 'description'],
  Tag: ['owners', 'deprecation', 'description'],
  Domain: ['owners', 'description'],
  CorpUser: ['tags'],
  CorpGroup: ['owners', 'description'],
}

const LINEAGE_PAGE = 50
const NEIGHBOURS = `start total relationships { type entity { ${NAMED} } }`
/** The first page of each direction's neighbours, with the entity; the lists ask for later pages themselves. */
const LINEAGE = `upstream: lineage(input: {direction: UPSTREAM, start: 0, count: ${LINEAGE_PAGE}}) { ${NEIGHBOURS} }
      downstream: lineage(input: {direction: DOWNSTREAM, start: 0, count: ${LINEAGE_PAGE}}) { ${NEIGHBOURS} }`
const LINEAGE_AT = `query lineagePage($urn: String!, $input: LineageInput!) { entity(urn: $urn) { urn ... on EntityWithRelationships { lineage(input: $input) { ${NEIGHBOURS} } } } }`

const LINKS = `institutionalMemory { elements { url label } }`
const ASPECTS = 'aspects { aspectName payload }'
const EDITED = 'editableProperties { description }'

/** What an entity page shows of each type, besides what its editors read. */
const SHOWN: Record<string, string> = {
  Dataset: `name platform { name } properties { name description customProperties { key value } } ${EDITED}
      schemaMetadata { fields { fieldPath nativeDataType type description nullable isPartOfKey tags { tags { tag { urn name } } } glossaryTerms { terms { term { urn name } } } } }
      editableSchemaMetadata { editableSchemaFieldInfo { fieldPath description tags { tags { tag { urn name } } } } }
      datasetProfiles(limit: 1) { timestampMillis rowCount columnCount sizeInBytes
        fieldProfiles { fieldPath uniqueCount uniqueProportion nullCount nullProportion min max mean median stdev sampleValues } }
      ${LINEAGE} ${LINKS} ${PATH}`,
  Chart: `properties { name description } platform { name } ${LINKS} ${PATH} ${LINEAGE}`,
  Dashboard: `properties { name description } platform { name } ${LINKS} ${PATH} ${LINEAGE}`,
  DataJob: `properties { name description } ${LINKS} ${LINEAGE}`,
  DataFlow: `properties { name description } platform { name } ${LINKS} ${LINEAGE}`,
  Container: `properties { name description } ${EDITED} platform { name } subTypes { typeNames } ${LINKS} ${PATH}`,
  Notebook: `info { title description } ${EDITED} platform { name } ${LINKS}`,
  MLModel: `name platform { name } description ${EDITED} ${LINKS} ${LINEAGE}`,
  MLModelGroup: `name platform { name } description ${EDITED} ${LINKS} ${LINEAGE}`,
  MLFeatureTable: `name platform { name } description ${EDITED} ${LINKS} ${LINEAGE}`,
  MLFeature: `name description ${EDITED} ${LINKS} ${LINEAGE}`,
  MLPrimaryKey: `name description ${EDITED} ${LINKS} ${LINEAGE}`,
  GlossaryTerm: `name properties { name description } ${LINKS}`,
  GlossaryNode: `properties { name description } ${LINKS}`,
  Tag: `name properties { name description }`,
  Domain: `properties { name description } ${LINKS}`,
  CorpUser: 'username',
  CorpGroup: `name properties { description } ${EDITED}`,
}

const ENTITY = `query entity($urn: String!) {
  entity(urn: $urn) { urn type __typename
    ${Object.entries(SHOWN)
      .map(([t, fields]) => `... on ${t} { ${fields} ${(EDITORS[t] ?? []).map((k) => READS[k]).join(' ')} ${ASPECTS} }`)
      .join('\n    ')}
  }
}`

/** Previous, "a–b of n", Next over a list paged by offset in the page itself (lineage, a container's contents). */
function Pager({label, start, shown, total, page, onStart}: {label: string; start: number; shown: number; total: number; page: number; onStart: (start: number) => void}) {
  return (
    <nav className="pager" aria-label={label}>
      {start > 0 && <button className="link" onClick={() => onStart(Math.max(0, start - page))}>← Previous</button>}
      <span className="meta">
        {start + 1}–{start + shown} of {total}
      </span>
      {start + page < total && <button className="link" onClick={() => onStart(start + page)}>Next →</button>}
    </nav>
  )
}

/**
 * DOMPurify's defaults (no script, no event handlers) less what lets a description pass for the
 * app or reach past its own box: inline styles and `<style>` (a `position: fixed` sheet over the
 * page), forms and their controls (a fake "sign in again"), ids, classes and roles (the app's own
 * labels, styles and alerts), and what opens in the browser's top layer, which no container clips
 * (dialogs, popovers). Media and embedded graphics go too: a description is text, links and images.
 */
const DESCRIPTION_HTML = {
  FORBID_TAGS: ['style', 'form', 'input', 'button', 'select', 'option', 'optgroup', 'datalist', 'textarea', 'output', 'fieldset', 'legend', 'label', 'dialog', 'template', 'marquee', 'blink', 'audio', 'video', 'source', 'track', 'canvas', 'map', 'area', 'svg', 'math'],
  FORBID_ATTR: ['style', 'id', 'name', 'class', 'role', 'tabindex', 'accesskey', 'autofocus', 'popover', 'popovertarget', 'popovertargetaction', 'form', 'formaction'],
}

/**
 * Markdown from the catalog, rendered and then sanitised: a description cannot run script, and
 * what it renders stays inside its box (the stylesheet contains `.markdown`'s paint and layout).
 */
function Markdown({text}: {text: string}) {
  const html = DOMPurify.sanitize(marked.parse(text, {async: false}) as string, DESCRIPTION_HTML)
  return <div className="markdown" dangerouslySetInnerHTML={{__html: html}} />
}

const CATEGORIES = 'TAG,GLOSSARY_TERM,OWNER,DOCUMENTATION,TECHNICAL_SCHEMA,DOMAIN,DEPRECATION'

/** The entity's timeline (DataHub's OpenAPI timeline): semantic versions, change events, and each version's diff. */
function History({urn}: {urn: string}) {
  const [open, setOpen] = useState(false)
  const [state, setState] = useState<{data?: Obj[]; error?: string}>({})
  useEffect(() => {
    if (!open) return
    getJson<Obj[]>(`/openapi/timeline/v1/${encodeURIComponent(urn)}?categories=${CATEGORIES}&raw=true&startTime=0`).then(
      (data) => setState({data}),
      (e) => setState({error: (e as Error).message}),
    )
  }, [open, urn])
  return (
    <section aria-label="History">
      <h2>History</h2>
      {!open ? (
        <button onClick={() => setOpen(true)}>Show history</button>
      ) : state.error ? (
        <p role="alert" className="error">{state.error}</p>
      ) : !state.data ? (
        <p>Loading…</p>
      ) : state.data.length === 0 ? (
        <p className="meta">No changes recorded.</p>
      ) : (
        <>
        <VersionDiff urn={urn} timeline={state.data} />
        <ol className="history">
          {[...state.data].reverse().map((t) => (
            <li key={t.versionStamp + t.timestamp}>
              <b>{t.semVer}</b> <span className="meta">{new Date(t.timestamp).toISOString().replace('T', ' ').slice(0, 19)} · {t.actor} · {t.semVerChange}</span>
              <ul>
                {(t.changeEvents ?? []).map((e: Obj, i: number) => (
                  <li key={i}>
                    <span className="tag">{e.category}</span> {e.description}
                  </li>
                ))}
              </ul>
              {t.rawDiff?.length > 0 && (
                <details>
                  <summary>Diff</summary>
                  <pre className="diff">
                    {t.rawDiff.map((d: Obj) => `${d.op === 'add' ? '+' : d.op === 'remove' ? '-' : '~'} ${d.path}${d.value === undefined ? '' : ` ${JSON.stringify(d.value)}`}`).join('\n')}
                  </pre>
                </details>
              )}
            </li>
          ))}
        </ol>
        </>
      )}
    </section>
  )
}

/** An entity's direct neighbours one way, a page at a time: the entity's own query brings the first. */
function Lineage({urn, title, direction, first}: {urn: string; title: string; direction: 'UPSTREAM' | 'DOWNSTREAM'; first?: Obj}) {
  const [start, setStart] = useState(0)
  const later = useQuery<Obj>(LINEAGE_AT, {urn, input: {direction, start, count: LINEAGE_PAGE}}, [urn, direction, start], start > 0)
  if (!first) return null
  const result: Obj | undefined = start === 0 ? first : later.data?.entity?.lineage
  return (
    <section aria-label={title}>
      <h2>
        {title} ({first.total})
      </h2>
      {first.total === 0 ? (
        <p className="meta">None recorded.</p>
      ) : later.error && start > 0 ? (
        <p role="alert" className="error">{later.error.message}</p>
      ) : !result ? (
        <p>Loading…</p>
      ) : (
        <>
          <ul>
            {result.relationships.map((r: Obj) => (
              <li key={r.entity.urn}>
                <Link href={entityHref(r.entity.urn)}>{nameOf(r.entity)}</Link> <span className="meta" title={r.entity.urn}>{typeLabel(r.entity)} · {r.type.toLowerCase().replace(/_/g, ' ')}</span>
              </li>
            ))}
          </ul>
          {result.total > LINEAGE_PAGE && (
            <Pager label={`${title} pages`} start={start} shown={result.relationships.length} total={result.total} page={LINEAGE_PAGE} onStart={setStart} />
          )}
        </>
      )}
    </section>
  )
}

const fmtNumber = (n: unknown): string => (typeof n === 'number' ? n.toLocaleString('en-US', {maximumFractionDigits: 3}) : n == null ? '' : String(n))
const fmtShare = (p: unknown): string => (typeof p === 'number' ? `${(p * 100).toLocaleString('en-US', {maximumFractionDigits: 1})} %` : '')

/** The latest profile of a dataset: its size, and per column nulls, distinct values, range and samples. */
function Profile({profile}: {profile?: Obj}) {
  if (!profile) return null
  const cols: Obj[] = profile.fieldProfiles ?? []
  return (
    <section aria-label="Profile">
      <h2>Profile</h2>
      <p className="meta">
        Profiled {new Date(profile.timestampMillis).toISOString().replace('T', ' ').slice(0, 16)} UTC
        {profile.rowCount != null && <> · <b>{fmtNumber(profile.rowCount)}</b> rows</>}
        {profile.columnCount != null && <> · <b>{fmtNumber(profile.columnCount)}</b> columns</>}
        {profile.sizeInBytes != null && <> · {fmtNumber(profile.sizeInBytes)} bytes</>}
      </p>
      {cols.length > 0 && (
        <div className="scroll">
          <table>
            <thead>
              <tr>
                {['Column', 'Nulls', 'Null %', 'Distinct', 'Distinct %', 'Min', 'Max', 'Mean', 'Median', 'Samples'].map((h) => (
                  <th scope="col" key={h}>{h}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {cols.map((c) => (
                <tr key={c.fieldPath}>
                  <td>{c.fieldPath}</td>
                  <td>{fmtNumber(c.nullCount)}</td>
                  <td>{fmtShare(c.nullProportion)}</td>
                  <td>{fmtNumber(c.uniqueCount)}</td>
                  <td>{fmtShare(c.uniqueProportion)}</td>
                  <td>{c.min ?? ''}</td>
                  <td>{c.max ?? ''}</td>
                  <td>{c.mean ?? ''}</td>
                  <td>{c.median ?? ''}</td>
                  <td>{(c.sampleValues ?? []).slice(0, 5).join(', ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  )
}

const CONTENTS_PAGE = 20
const CONTENTS = `query contents($urn: String!, $start: Int!, $count: Int!) {
  container(urn: $urn) { entities(input: {query: "*", start: $start, count: $count}) { start count total searchResults { entity { ${NAMED} } } } }
}`

/** What a container holds, a page at a time. */
function Contents({urn}: {urn: string}) {
  const [start, setStart] = useState(0)
  const {data, error} = useQuery<Obj>(CONTENTS, {urn, start, count: CONTENTS_PAGE}, [urn, start])
  const r = data?.container?.entities
  return (
    <section aria-label="Contents">
      <h2>Contents{r ? ` (${r.total})` : ''}</h2>
      {error ? (
        <p role="alert" className="error">{error.message}</p>
      ) : !r ? (
        <p>Loading…</p>
      ) : r.total === 0 ? (
        <p className="meta">This container holds nothing yet.</p>
      ) : (
        <>
          <ol className="contents" start={start + 1}>
            {r.searchResults.map(({entity: x}: Obj) => (
              <li key={x.urn}>
                <Link href={entityHref(x.urn)}>{nameOf(x)}</Link> <span className="meta">{typeLabel(x)}</span>
              </li>
            ))}
          </ol>
          <Pager label="Contents pages" start={start} shown={r.searchResults.length} total={r.total} page={CONTENTS_PAGE} onStart={setStart} />
        </>
      )}
    </section>
  )
}

function EditDescription({urn, current, onDone}: {urn: string; current: string; onDone: () => void}) {
  const [open, setOpen] = useState(false)
  const [text, setText] = useState(current)
  const [msg, setMsg] = useState<string>()
  if (!open) return <button onClick={() => setOpen(true)}>Edit description</button>
  const save = async (ev: FormEvent) => {
    ev.preventDefault()
    try {
      await gql('mutation d($input: DescriptionUpdateInput!) { updateDescription(input: $input) }', {input: {description: text, resourceUrn: urn}})
      setOpen(false)
      onDone()
    } catch (e) {
      setMsg((e as Error).message)
    }
  }
  return (
    <form onSubmit={save} aria-label="Edit description">
      <textarea aria-label="Description" value={text} onChange={(e) => setText(e.target.value)} rows={4} />
      <button type="submit">Save</button> <button type="button" onClick={() => setOpen(false)}>Cancel</button>
      {msg && <p role="alert" className="error">{msg}</p>}
    </form>
  )
}

function Entity({urn}: {urn: string}) {
  const {data, error, reload} = useQuery<Obj>(ENTITY, {urn}, [urn])
  if (error) return <p role="alert" className="error">{error.message}</p>
  if (!data) return <p>Loading…</p>
  const e = data.entity
  if (!e) return <p role="alert">No entity {urn}</p>
  const description = descriptionOf(e)
  const editors = EDITORS[e.__typename] ?? []
  const fields: Obj[] = e.schemaMetadata?.fields ?? []
  // Edits made in the catalog (editableSchemaMetadata) win over what the source ingested.
  const edited = new Map<string, Obj>((e.editableSchemaMetadata?.editableSchemaFieldInfo ?? []).map((x: Obj) => [x.fieldPath, x]))
  const editedField = (path: string): Obj | undefined => edited.get(path)
  return (
    <main className="entity">
      <p className="meta">
        {e.subTypes?.typeNames?.[0] ? `${e.subTypes.typeNames[0].toLowerCase()} · ` : ''}
        {typeLabel(e)}
      </p>
      <h1>{nameOf(e)}</h1>
      {(e.parentContainers?.containers ?? []).length > 0 && (
        <nav aria-label="Container path" className="meta">
          {[...e.parentContainers.containers].reverse().map((c: Obj, i: number) => (
            <span key={c.urn}>
              {i > 0 ? ' › ' : ''}
              <Link href={entityHref(c.urn)}>{c.properties?.name ?? c.urn}</Link>
            </span>
          ))}
        </nav>
      )}
      <p className="urn">{e.urn}</p>
      {e.deprecation?.deprecated && <p className="warn">Deprecated{e.deprecation.note ? `: ${e.deprecation.note}` : ''}</p>}
      <section aria-label="Documentation">
        <h2>About</h2>
        {description ? <Markdown text={description} /> : <p className="meta">No description.</p>}
        {editors.includes('description') && <EditDescription urn={e.urn} current={description} onDone={reload} />}
      </section>
      {(e.institutionalMemory?.elements ?? []).length > 0 && (
        <section aria-label="Links">
          <h2>Links</h2>
          <ul>
            {e.institutionalMemory.elements.map((l: Obj) => (
              <li key={l.url + l.label}>
                {/^(https?|mailto):/i.test(l.url) ? (
                  <a href={l.url} rel="noopener noreferrer" target="_blank">{l.label || l.url}</a>
                ) : (
                  // Not a web address (a `javascript:` one would run): shown, not linked.
                  <span>{l.label || l.url} ({l.url})</span>
                )}
              </li>
            ))}
          </ul>
        </section>
      )}
      {editors.some((k) => k !== 'description') && (
        <section aria-label="Tags and terms">
          <h2>Ownership and classification</h2>
          <div className="editors">
            {editors.includes('tags') && <TagsEditor urn={e.urn} tags={e.tags?.tags ?? []} onDone={reload} />}
            {editors.includes('terms') && <TermsEditor urn={e.urn} terms={e.glossaryTerms?.terms ?? []} onDone={reload} link={termLink} />}
            {editors.includes('owners') && <OwnersEditor urn={e.urn} owners={e.ownership?.owners ?? []} onDone={reload} />}
            {editors.includes('domain') && <DomainEditor urn={e.urn} domain={e.domain?.domain} onDone={reload} link={termLink} />}
            {editors.includes('deprecation') && <DeprecationEditor urn={e.urn} deprecation={e.deprecation} onDone={reload} />}
          </div>
        </section>
      )}
      {fields.length > 0 && (
        <section aria-label="Schema">
          <h2>Schema ({fields.length} fields)</h2>
          <div className="scroll">
            <table>
              <thead>
                <tr>
                  <th scope="col">Field</th>
                  <th scope="col">Type</th>
                  <th scope="col">Description</th>
                  <th scope="col">Tags</th>
                  <th scope="col"><span className="sr-only">Edit</span></th>
                </tr>
              </thead>
              <tbody>
                {fields.map((f) => (
                  <tr key={f.fieldPath}>
                    <td style={{paddingLeft: `${0.5 + (f.fieldPath.replace(/\[[^\]]*\]\.?/g, '').split('.').length - 1)}em`}}>
                      {f.fieldPath.replace(/\[[^\]]*\]\.?/g, '')}
                      {f.isPartOfKey ? ' 🔑' : ''}
                    </td>
                    <td>
                      {readableType(f.nativeDataType) || f.type?.toLowerCase()}
                      {f.nullable ? '' : ' not null'}
                      {f.nativeDataType && readableType(f.nativeDataType) !== f.nativeDataType && <span className="meta native" title="The type as the source stored it"> {f.nativeDataType}</span>}
                    </td>
                    <td>{described(editedField(f.fieldPath)?.description, f.description)}</td>
                    <td>{[...(f.tags?.tags ?? []), ...(editedField(f.fieldPath)?.tags?.tags ?? [])].map((t: Obj) => t.tag.name).concat((f.glossaryTerms?.terms ?? []).map((t: Obj) => t.term.name)).join(', ')}</td>
                    <td>
                      <ColumnEditor urn={e.urn} field={f.fieldPath} description={described(editedField(f.fieldPath)?.description, f.description)} tags={editedField(f.fieldPath)?.tags?.tags ?? []} onDone={reload} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
      )}
      {e.type === 'DATASET' && <Profile profile={e.datasetProfiles?.[0]} />}
      {e.type === 'CONTAINER' && <Contents urn={e.urn} />}
      {LINEAGE_TYPES.has(e.type) && (
        <Suspense fallback={<p>Loading the lineage graph…</p>}>
          <LineageGraph urn={e.urn} />
        </Suspense>
      )}
      {/* The server's timeline covers datasets only (DataHub's covers glossary terms too). */}
      {e.type === 'DATASET' && <History urn={e.urn} />}
      <Lineage key={`up ${e.urn}`} urn={e.urn} title="Upstream" direction="UPSTREAM" first={e.upstream} />
      <Lineage key={`down ${e.urn}`} urn={e.urn} title="Downstream" direction="DOWNSTREAM" first={e.downstream} />
      {e.properties?.customProperties?.length > 0 && (
        <section aria-label="Properties">
          <h2>Properties</h2>
          <dl>
            {e.properties.customProperties.map((p: Obj) => (
              <div key={p.key}>
                <dt>{p.key}</dt>
                <dd>{p.value}</dd>
              </div>
            ))}
          </dl>
        </section>
      )}
      <details>
        <summary>Raw aspects</summary>
        {(e.aspects ?? []).map((a: Obj) => (
          <div key={a.aspectName}>
            <h3>{a.aspectName}</h3>
            <pre>{JSON.stringify(JSON.parse(a.payload ?? 'null'), null, 2)}</pre>
          </div>
        ))}
      </details>
    </main>
  )
}

function App() {
  const [path, params] = usePath()
  const [me, setMe] = useState<{name?: string; error?: ApiError}>({})
  const [attempt, setAttempt] = useState(0)
  useEffect(() => {
    gql<Obj>('query { me { corpUser { urn username } } }').then(
      (d) => setMe({name: d.me.corpUser.username ?? d.me.corpUser.urn}),
      (error) => setMe({error}),
    )
  }, [attempt])
  if (me.error?.status === 401) return <SignIn message={getToken() ? me.error.message : undefined} onDone={() => setAttempt((a) => a + 1)} />
  if (me.error) return <p role="alert" className="error">{me.error.message}</p>
  if (!me.name) return <p>Loading…</p>
  const signOut = () => {
    setToken(null)
    setAttempt((a) => a + 1)
  }
  let page: ReactNode
  if (path.startsWith('/entity/')) page = <Entity urn={decodeURIComponent(path.slice('/entity/'.length))} />
  else if (path === '/search') page = <Search params={params} />
  else page = <Home />
  return (
    <>
      <Header me={me.name} onSignOut={signOut} />
      {page}
    </>
  )
}

if (window.location.pathname === '/') askEarly(HOME)
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
)
