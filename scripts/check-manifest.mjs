// After `oclif manifest`: every command file must be in oclif.manifest.json. oclif drops a
// command it could not import with a warning and writes the manifest anyway, and the CLI then
// answers "command not found" for it; the build fails here instead, naming the command.
import {existsSync, readFileSync, readdirSync, statSync} from 'node:fs'
import {join, relative} from 'node:path'
import {fileURLToPath} from 'node:url'

const ROOT = join(fileURLToPath(new URL('.', import.meta.url)), '..')
const dir = join(ROOT, 'dist', 'src', 'commands')
const ids = []
const walk = (d) => {
  for (const name of readdirSync(d)) {
    const p = join(d, name)
    if (statSync(p).isDirectory()) walk(p)
    else if (name.endsWith('.js')) ids.push(relative(dir, p).replace(/\.js$/, '').replace(/\/index$/, '').split('/').join(':'))
  }
}
walk(dir)
const manifestPath = join(ROOT, 'oclif.manifest.json')
const listed = existsSync(manifestPath) ? Object.keys(JSON.parse(readFileSync(manifestPath, 'utf8')).commands) : []
const missing = ids.filter((id) => !listed.includes(id))
if (missing.length) {
  console.error(`check-manifest: oclif.manifest.json lacks ${missing.join(', ')} (the command could not be loaded; see oclif's warning above)`)
  process.exit(1)
}
