// Bundles web/ into dist/web (the pages `mdcli lite` serves): one minified ES module and its CSS,
// no CDN and nothing fetched at run time.
import {build} from 'esbuild'
import {copyFileSync, mkdirSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const out = join(root, 'dist', 'web')
mkdirSync(out, {recursive: true})
await build({
  entryPoints: [join(root, 'web', 'src', 'main.tsx')],
  outfile: join(out, 'app.js'),
  bundle: true,
  format: 'esm',
  minify: true,
  target: 'es2022',
  jsx: 'automatic',
  define: {'process.env.NODE_ENV': '"production"'},
  legalComments: 'none',
  logLevel: 'warning',
})
copyFileSync(join(root, 'web', 'index.html'), join(out, 'index.html'))
copyFileSync(join(root, 'web', 'app.css'), join(out, 'app.css'))
