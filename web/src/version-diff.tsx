/**
 * Two versions of one aspect side by side, as a line diff of their pretty-printed JSON (jsdiff).
 * The versions offered are those the entity's timeline names in its version stamps
 * (`aspect:version;…`); each is read with DataHub's `GET /aspects/{urn}?aspect=&version=`.
 */
import {useMemo, useState} from 'react'
import {diffLines} from 'diff'
import {getJson} from './api.js'

type Obj = Record<string, any>

/** aspect → versions named by the timeline's stamps, oldest first (0, the latest, last). */
export function versionsOf(timeline: Obj[]): Map<string, number[]> {
  const out = new Map<string, Set<number>>()
  for (const t of timeline) {
    for (const part of String(t.versionStamp ?? '').split(';')) {
      const [name, v] = part.split(':')
      if (!name || v === undefined || !/^\d+$/.test(v)) continue
      if (!out.has(name)) out.set(name, new Set())
      out.get(name)!.add(Number(v))
    }
  }
  const order = (v: number) => (v === 0 ? Number.MAX_SAFE_INTEGER : v)
  return new Map([...out].map(([k, s]) => [k, [...s].sort((a, b) => order(a) - order(b))]))
}

const label = (v: number) => (v === 0 ? 'latest (0)' : `version ${v}`)

async function read(urn: string, aspect: string, version: number): Promise<string> {
  const r = await getJson<Obj>(`/aspects/${encodeURIComponent(urn)}?aspect=${encodeURIComponent(aspect)}&version=${version}`)
  const value = Object.values(r.aspect ?? {})[0]
  return JSON.stringify(value, null, 2) + '\n'
}

function VersionSelect({name, versions, value, onChange}: {name: string; versions: number[]; value: number; onChange: (v: number) => void}) {
  return (
    <label>
      {name}{' '}
      <select value={value} onChange={(e) => onChange(Number(e.target.value))}>
        {versions.map((v) => (
          <option key={v} value={v}>
            {label(v)}
          </option>
        ))}
      </select>
    </label>
  )
}

export function VersionDiff({urn, timeline}: {urn: string; timeline: Obj[]}) {
  const versions = useMemo(() => versionsOf(timeline), [timeline])
  const aspects = [...versions.keys()].filter((a) => versions.get(a)!.length > 1)
  const [aspect, setAspect] = useState(aspects[0] ?? '')
  const list = versions.get(aspect) ?? []
  const [from, setFrom] = useState<number | undefined>()
  const [to, setTo] = useState<number | undefined>()
  const [result, setResult] = useState<{parts?: Array<{value: string; added?: boolean; removed?: boolean}>; error?: string}>({})
  if (aspects.length === 0) return <p className="meta">No aspect has more than one version yet.</p>
  const a = from ?? list[list.length - 2] ?? 0
  const b = to ?? list[list.length - 1] ?? 0
  const compare = async () => {
    try {
      const [x, y] = await Promise.all([read(urn, aspect, a), read(urn, aspect, b)])
      setResult({parts: diffLines(x, y)})
    } catch (e) {
      setResult({error: (e as Error).message})
    }
  }
  return (
    <div className="version-diff">
      <h3>Compare versions</h3>
      <form
        className="inline"
        aria-label="Compare versions"
        onSubmit={(e) => {
          e.preventDefault()
          void compare()
        }}
      >
        <label>
          Aspect{' '}
          <select
            value={aspect}
            onChange={(e) => {
              setAspect(e.target.value)
              setFrom(undefined)
              setTo(undefined)
              setResult({})
            }}
          >
            {aspects.map((x) => (
              <option key={x}>{x}</option>
            ))}
          </select>
        </label>
        <VersionSelect name="From" versions={list} value={a} onChange={setFrom} />
        <VersionSelect name="To" versions={list} value={b} onChange={setTo} />
        <button type="submit">Compare</button>
      </form>
      {result.error && (
        <p role="alert" className="error">
          {result.error}
        </p>
      )}
      {result.parts && (
        <pre className="diff-view" aria-label={`Diff of ${aspect}, ${label(a)} to ${label(b)}`}>
          {result.parts.map((p, i) => (p.added ? <ins key={i}>{p.value.replace(/^/gm, '+ ').replace(/\+ $/, '')}</ins> : p.removed ? <del key={i}>{p.value.replace(/^/gm, '- ').replace(/- $/, '')}</del> : <span key={i}>{p.value.replace(/^/gm, '  ').replace(/ {2}$/, '')}</span>))}
        </pre>
      )}
    </div>
  )
}
