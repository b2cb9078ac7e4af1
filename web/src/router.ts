import {useEffect, useState} from 'react'

/** Paths: `/`, `/search?…`, `/entity/<urn>`. */
export function usePath(): [string, URLSearchParams] {
  const [loc, setLoc] = useState(() => window.location.pathname + window.location.search)
  useEffect(() => {
    const on = () => setLoc(window.location.pathname + window.location.search)
    window.addEventListener('popstate', on)
    window.addEventListener('mdcli:navigate', on)
    return () => {
      window.removeEventListener('popstate', on)
      window.removeEventListener('mdcli:navigate', on)
    }
  }, [])
  const u = new URL(loc, window.location.origin)
  return [u.pathname, u.searchParams]
}

export function navigate(to: string): void {
  window.history.pushState(null, '', to)
  window.dispatchEvent(new Event('mdcli:navigate'))
  window.scrollTo(0, 0)
}

export const entityHref = (urn: string) => `/entity/${encodeURIComponent(urn)}`
export const searchHref = (params: Record<string, string | string[] | undefined>) => {
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries(params)) for (const x of Array.isArray(v) ? v : v === undefined || (v === '' && k !== 'cursor') ? [] : [v]) q.append(k, x)
  return `/search?${q}`
}
