#!/usr/bin/env node
import {execute} from '@oclif/core'

// `mdcli --debug get …`: a global flag before the command name becomes the environment switch,
// so oclif sees the command first.
const argv = process.argv.slice(2)
while (argv[0] === '--debug' || argv[0] === '--no-debug') {
  process.env.METADATA_DEBUG = argv.shift() === '--debug' ? 'true' : 'false'
}
await execute({args: argv, dir: import.meta.url})
