// The server thread's code (dist/src/server/thread-worker.js and the ~160 modules it reaches) as
// one module and a few chunks, made by esbuild. A worker loads each ES module of its graph apart
// (resolution, read, compile, link) before it runs the first: on a slow host that was about 165 ms
// of `mdcli lite`'s start to first answer, the longest part of it; the bundle cut the start by about
// 70 ms there (docs/benchmarks.md). The command's thread, the tests and the SDK keep the plain modules.
//
// Chunks are split at the dynamic imports (GraphQL, PostgreSQL, the queue), so what the code loads
// lazily is still loaded lazily; packages stay external, loaded from node_modules as before. Each
// file's `import.meta.url` is rewritten to its own place in dist/ (relative to the bundle), so the
// paths built from it (the SDL files, the web pages, the search thread, the prebuilt validators)
// stay where they were. src/server/thread.ts starts the bundle when it is there and not older than
// the modules, and the plain module otherwise (a build by tsc alone).
//
//   node scripts/bundle-server-thread.mjs        (after the TypeScript is emitted into dist/)
import {readFile, rm} from 'node:fs/promises'
import {join, relative, sep} from 'node:path'
import {fileURLToPath} from 'node:url'
import {build} from 'esbuild'

const ROOT = join(fileURLToPath(new URL('.', import.meta.url)), '..')
const BUNDLE_DIR = join(ROOT, 'dist', 'src', 'server', 'thread-bundle')

/** `import.meta.url` of each emitted file, as its own URL relative to the bundle's directory. */
const ownUrl = {
  name: 'own-import-meta-url',
  setup(b) {
    b.onLoad({filter: /\.js$/}, async (args) => {
      const text = await readFile(args.path, 'utf8')
      if (!text.includes('import.meta.url')) return undefined
      let rel = relative(BUNDLE_DIR, args.path).split(sep).join('/')
      if (!rel.startsWith('.')) rel = `./${rel}`
      return {contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(rel)}, import.meta.url).href`), loader: 'js'}
    })
  },
}

await rm(BUNDLE_DIR, {recursive: true, force: true})
await build({
  entryPoints: [join(ROOT, 'dist', 'src', 'server', 'thread-worker.js')],
  outdir: BUNDLE_DIR,
  bundle: true,
  splitting: true,
  chunkNames: '[name]-[hash]',
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  plugins: [ownUrl],
  logLevel: 'warning',
})
