/** The GraphQL API the pages use (the same one any client uses), with the signed-in token. */
const KEY = 'mdcli.token'

export function getToken(): string | null {
  return sessionStorage.getItem(KEY)
}

export function setToken(t: string | null): void {
  if (t) sessionStorage.setItem(KEY, t)
  else sessionStorage.removeItem(KEY)
}

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code?: string,
  ) {
    super(message)
  }
}

/** A GET of one of the server's public REST endpoints (DataHub's OpenAPI timeline) with the token. */
export async function getJson<T = any>(path: string): Promise<T> {
  const token = getToken()
  const res = await fetch(path, {headers: token ? {authorization: `Bearer ${token}`} : {}})
  const body = await res.json().catch(() => ({}))
  if (!res.ok) throw new ApiError(body.message ?? `HTTP ${res.status}`, res.status, body.code)
  return body as T
}

export async function gql<T = any>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const headers: Record<string, string> = {'content-type': 'application/json'}
  const token = getToken()
  if (token) headers.authorization = `Bearer ${token}`
  const res = await fetch('/api/graphql', {method: 'POST', headers, body: JSON.stringify({query, variables})})
  const body = await res.json().catch(() => ({}))
  if (res.status === 401) throw new ApiError(body.message ?? 'Sign in with an access token', 401, body.code)
  const err = body.errors?.[0]
  if (err) throw new ApiError(err.message, Number(err.extensions?.code) || res.status, err.extensions?.type)
  if (!res.ok) throw new ApiError(body.message ?? `HTTP ${res.status}`, res.status)
  return body.data as T
}
