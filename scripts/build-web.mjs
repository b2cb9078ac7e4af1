// Bundles web/ into dist/web (the pages `mdcli lite` serves): one minified ES module and its CSS,
// no CDN and nothing fetched at run time.
import {build} from 'esbuild'
import {copyFileSync, mkdirSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const out = join(root, 'dist', 'web')
mkdirSync(out, {recursive: true})
const common = {
  outdir: out,
  bundle: true,
  format: 'esm',
  minify: true,
  target: 'es2022',
  jsx: 'automatic',
  define: {'process.env.NODE_ENV': '"production"'},
  legalComments: 'none',
  logLevel: 'warning',
}
// The pages. The lineage graph (React Flow, dagre) is a chunk of its own, fetched when an entity
// page first draws a graph.
await build({...common, entryPoints: {app: join(root, 'web', 'src', 'main.tsx')}, splitting: true, chunkNames: 'chunk-[hash]'})
// GraphiQL, on a page of its own so the pages never load it; one file (its editor's lazy modes included).
await build({
  ...common,
  entryPoints: {graphiql: join(root, 'web', 'graphiql', 'main.tsx')},
  loader: {'.woff': 'file', '.woff2': 'file', '.ttf': 'file', '.svg': 'dataurl'},
})
copyFileSync(join(root, 'web', 'index.html'), join(out, 'index.html'))
copyFileSync(join(root, 'web', 'graphiql.html'), join(out, 'graphiql.html'))
copyFileSync(join(root, 'web', 'app.css'), join(out, 'app.css'))
copyFileSync(join(root, 'node_modules', '@xyflow', 'react', 'dist', 'style.css'), join(out, 'xyflow.css'))
