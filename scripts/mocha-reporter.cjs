// Mocha's spec output, plus one plain closing line ("N passed, N failed") that CI and people
// can read without knowing mocha's wording.
const Mocha = require('mocha')

class SpecWithSummary extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options)
    runner.once('end', () => {
      const s = this.stats
      process.stdout.write(`${s.passes} passed, ${s.failures} failed${s.pending ? `, ${s.pending} skipped` : ''}\n`)
    })
  }
}

module.exports = SpecWithSummary
