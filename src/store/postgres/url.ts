/** Query parameters of a connection URL that carry a secret (node-postgres reads both). */
const SECRET_PARAMS = ['password', 'sslpassword']

/** The URL with its password replaced, for every log line and error that names a store. */
export function maskUrl(url: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return url
  try {
    const u = new URL(url)
    // Untouched when it holds no secret: URL's own spelling would add a slash to a bare host.
    if (!u.password && !SECRET_PARAMS.some((name) => u.searchParams.has(name))) return url
    if (u.password) u.password = '****'
    for (const name of SECRET_PARAMS) if (u.searchParams.has(name)) u.searchParams.set(name, '****')
    return u.toString()
  } catch {
    return url.replace(/:\/\/([^:/@]+):[^@]*@/, '://$1:****@').replace(/([?&](?:ssl)?password=)[^&#]*/gi, '$1****')
  }
}

/** Whether a `--store` value names a PostgreSQL database rather than a directory. */
export function isStoreUrl(store: string): boolean {
  return /^postgres(ql)?:\/\//i.test(store)
}
