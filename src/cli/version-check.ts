/**
 * Whether this tool suits a server, by DataHub's rule: for server 0.8.28 use a tool 0.8.28.x.
 * Servers report their version with or without a leading `v` (`v0.10.0`) and sometimes a suffix
 * (`v0.13.1rc1`, `0.10.0-SNAPSHOT`); only the three numbers count.
 */

/** The three numbers of a version, as `0.8.28`; undefined when it does not start with them. */
export function releaseOf(version: string): string | undefined {
  const m = /^[vV]?(\d+)\.(\d+)\.(\d+)/.exec(version.trim())
  return m ? `${m[1]}.${m[2]}.${m[3]}` : undefined
}

/** The warning to print when the tool does not suit the server; undefined when it does or the server's version is not one. */
export function versionMismatch(cli: string, server: string): string | undefined {
  const wanted = releaseOf(server)
  if (wanted === undefined || releaseOf(cli) === wanted) return undefined
  return `the CLI (${cli}) and the server (${server}) differ; use a CLI of the server's version (${wanted}.x)`
}
