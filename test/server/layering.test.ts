import {expect} from 'chai'
import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

/** Every .ts file under `dir`, recursively. */
function sources(dir: string): string[] {
  return readdirSync(dir, {withFileTypes: true}).flatMap((d) => {
    const p = join(dir, d.name)
    if (d.isDirectory()) return sources(p)
    return d.name.endsWith('.ts') ? [p] : []
  })
}

describe('server layering', () => {
  // Replicas on a shared store rely on every read taking the catalog's path (see DESIGN.md).
  it('routes and resolvers read through Catalog, never its store', () => {
    const offenders: string[] = []
    for (const dir of ['src/server', 'src/commands', 'src/client']) {
      for (const file of sources(join(ROOT, dir))) {
        const text = readFileSync(file, 'utf8')
        text.split('\n').forEach((line, i) => {
          if (/\bstoreOf\b|catalog\.store\b|catalog\['store'\]/.test(line)) offenders.push(`${file.slice(ROOT.length)}:${i + 1}: ${line.trim()}`)
        })
      }
    }
    expect(offenders).to.deep.equal([])
  })

  // Reads as stored (secret aspects included) are for the catalog's own services: delete,
  // rollback, migration, access control. Everything above reads with the model's rules.
  it("only src/catalog uses the catalog's raw reads, and nothing reaches past the catalog to its store", () => {
    const offenders: string[] = []
    for (const dir of ['src/server', 'src/commands', 'src/client', 'src/cli', 'src/events', 'src/recipes', 'src/sdk', 'src/ui']) {
      for (const file of sources(join(ROOT, dir))) {
        const text = readFileSync(file, 'utf8')
        text.split('\n').forEach((line, i) => {
          if (/\.(rawAspect|rawEntity|rawEntities|rawVersions|rawUrns|rawEntitiesOfType|runIndex|indexExisting)\(|\bstoreOf\b/.test(line)) offenders.push(`${file.slice(ROOT.length)}:${i + 1}: ${line.trim()}`)
        })
      }
    }
    for (const file of sources(join(ROOT, 'src/catalog'))) {
      if (/\bstoreOf\b/.test(readFileSync(file, 'utf8'))) offenders.push(`${file.slice(ROOT.length)}: storeOf`)
    }
    expect(offenders).to.deep.equal([])
  })
})
