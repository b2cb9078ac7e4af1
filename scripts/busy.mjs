#!/usr/bin/env node
// Keeps one core busy for N seconds (default 900): the "second process" of the test-time
// measurement in the README, so that a run on a 2-core machine gets about one core.
//
//   node scripts/busy.mjs 900 &  npm run test:only; kill %1
const seconds = Number(process.argv[2] ?? 900)
if (!(seconds > 0)) {
  console.error('busy: give the seconds to spin as a positive number, e.g. `node scripts/busy.mjs 900`')
  process.exit(2)
}
const end = Date.now() + seconds * 1000
let x = 0
while (Date.now() < end) {
  // Plain arithmetic, no allocation: one core at 100%, no memory pressure.
  for (let i = 0; i < 1e6; i++) x = (x * 31 + i) % 1000003
}
process.exitCode = x < 0 ? 1 : 0
