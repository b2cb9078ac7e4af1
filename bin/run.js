#!/usr/bin/env node

// `mdcli --debug get …`: a global flag before the command name becomes the environment switch,
// so oclif sees the command first.
const argv = process.argv.slice(2)
while (argv[0] === '--debug' || argv[0] === '--no-debug') {
  process.env.METADATA_DEBUG = argv.shift() === '--debug' ? 'true' : 'false'
}
if (argv.length === 1 && argv[0] === '--version') {
  // The answer oclif would give, without loading oclif: scripts call this often and expect it instant.
  const {readFileSync} = await import('node:fs')
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
  process.stdout.write(`${pkg.name}/${pkg.version} ${process.platform}-${process.arch} node-${process.version}\n`)
} else {
  // oclif checks the Node version against its own `engines` on every start, loading all of semver
  // (47 modules, about a sixth of a command's start) for it; package.json's `engines` says ours.
  process.env.OCLIF_DISABLE_ENGINE_WARNING ??= 'true'
  // `mdcli lite` (the server, not one of its subcommands, not its help): its server thread starts
  // loading now, beside oclif and the command, and takes its options once the flags are parsed.
  if (argv[0] === 'lite' && (argv.length === 1 || argv[1].startsWith('-')) && !argv.some((a) => a === '--help' || a === '-h')) {
    const {prestartServerThread} = await import('../dist/src/server/thread.js')
    prestartServerThread()
  }
  const {execute} = await import('@oclif/core')
  await execute({args: argv, dir: import.meta.url})
}
