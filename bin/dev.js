#!/usr/bin/env node
// Development entry: oclif loads commands from the compiled tree without the manifest, so a
// rebuilt command is picked up at once.
import {execute} from '@oclif/core'

const argv = process.argv.slice(2)
while (argv[0] === '--debug' || argv[0] === '--no-debug') {
  process.env.METADATA_DEBUG = argv.shift() === '--debug' ? 'true' : 'false'
}
await execute({args: argv, development: true, dir: import.meta.url})
