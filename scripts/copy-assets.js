// Copies non-TypeScript assets (GraphQL SDL files) next to the compiled code, so that
// dist/ is self-contained and the server reads the same .graphql files the repo holds.
import {cpSync, existsSync, readdirSync, statSync, mkdirSync} from 'node:fs'
import {join, dirname} from 'node:path'

const roots = ['src', 'plugins']
const exts = ['.graphql']
function walk(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) walk(p)
    else if (exts.some((e) => p.endsWith(e))) {
      const out = join('dist', p)
      mkdirSync(dirname(out), {recursive: true})
      cpSync(p, out)
    }
  }
}
// A root may not exist yet (no built-in plugins in a fresh checkout).
for (const r of roots) if (existsSync(r)) walk(r)
