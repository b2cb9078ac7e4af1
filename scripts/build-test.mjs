// `npm test`'s build: the same dist/ as `npm run build`, with the TypeScript emitted by esbuild
// (a second) instead of tsc (half a minute of one core). The type check is not skipped: it runs
// as the `types` suite of scripts/test-all.mjs beside the others, so a type error still fails
// `npm test`, but the tests no longer wait for it before they start. The SDK's declarations are
// still tsc's (the package test compiles a plugin against them), and `npm run build`, which makes
// what is packed and published, is unchanged.
//
//   node scripts/build-test.mjs
import {spawn} from 'node:child_process'
import {readdirSync, rmSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {build} from 'esbuild'

const ROOT = join(fileURLToPath(new URL('.', import.meta.url)), '..')
process.chdir(ROOT)
const t0 = Date.now()

/** Runs a command to its end; rejects naming it when it fails. */
function run(cmd, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {stdio: 'inherit'})
    child.on('error', reject)
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`build-test: ${[cmd, ...args].join(' ')} exited with ${code}`))))
  })
}

const sources = []
const walk = (dir) => {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) walk(p)
    else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) sources.push(p)
  }
}
// tsconfig.json's `include`, emitted file for file into the same places tsc puts them.
for (const dir of ['src', 'plugins', 'test', 'bench']) walk(dir)

rmSync('dist', {recursive: true, force: true})
try {
  await build({
    entryPoints: sources,
    outdir: 'dist',
    outbase: '.',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    jsx: 'automatic',
    bundle: false,
    // tsconfig.json decides what esbuild cannot see file by file (class fields' semantics).
    tsconfig: 'tsconfig.json',
    logLevel: 'warning',
  })
  const node = process.execPath
  // The declarations and the pages in parallel; the manifest loads the emitted commands.
  await Promise.all([
    run(node, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.sdk.json']),
    run(node, ['scripts/copy-assets.js']).then(() => run(node, ['scripts/build-web.mjs'])),
    run(node, ['scripts/build-validators.mjs']),
    run(node, ['scripts/bundle-server-thread.mjs']),
  ])
  await run(node, ['node_modules/oclif/bin/run.js', 'manifest'])
  await run(node, ['scripts/check-manifest.mjs'])
} catch (error) {
  console.error(error.message)
  process.exit(1)
}
console.log(`build-test: ${sources.length} files emitted, dist/ ready in ${((Date.now() - t0) / 1000).toFixed(1)} s (types are checked by the \`types\` suite)`)
