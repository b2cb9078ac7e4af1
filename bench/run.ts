/**
 * `npm run bench [-- store graphql ingest]`: runs the named benchmarks (all by default), one
 * after another, each printing its figures and a final JSON line.
 */
const all = ['store', 'graphql', 'ingest', 'sql-source', 'lake', 'metabase', 'sql-queries', 'history', 'startup-lite', 'startup', 'web', 'events', 'pg-store']
const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'))
for (const name of wanted.length > 0 ? wanted : all) {
  if (!all.includes(name)) {
    console.error(`unknown benchmark '${name}' (one of ${all.join(', ')})`)
    process.exit(2)
  }
  let mod: {main: () => Promise<unknown>}
  try {
    mod = (await import(`./${name}.js`)) as {main: () => Promise<unknown>}
  } catch (e) {
    console.error(`benchmark ${name} is not built: ${(e as Error).message}`)
    continue
  }
  await mod.main()
}
