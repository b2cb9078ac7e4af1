import {expect} from 'chai'
import {releaseOf, versionMismatch} from '../../src/cli/version-check.js'

describe('cli: the tool and server versions (for server 0.8.28 use a tool 0.8.28.x)', () => {
  it('reads the three numbers of a version, with or without a leading v or a suffix', () => {
    expect(releaseOf('0.8.28')).to.equal('0.8.28')
    expect(releaseOf('v0.10.0')).to.equal('0.10.0')
    expect(releaseOf('0.8.28.4')).to.equal('0.8.28')
    expect(releaseOf('v0.13.1rc1')).to.equal('0.13.1')
    expect(releaseOf('0.10.0-SNAPSHOT')).to.equal('0.10.0')
    expect(releaseOf('head')).to.equal(undefined)
  })

  it('warns when the three numbers differ, patch included, and says which tool to use', () => {
    expect(versionMismatch('0.1.0', 'v0.1.0')).to.equal(undefined)
    expect(versionMismatch('0.8.28.4', '0.8.28')).to.equal(undefined)
    expect(versionMismatch('0.1.0', '0.1.1')).to.equal("the CLI (0.1.0) and the server (0.1.1) differ; use a CLI of the server's version (0.1.1.x)")
    expect(versionMismatch('0.1.0', 'v0.10.0')).to.equal("the CLI (0.1.0) and the server (v0.10.0) differ; use a CLI of the server's version (0.10.0.x)")
    // A version that is no number (a build's own label) says nothing either way.
    expect(versionMismatch('0.1.0', 'head')).to.equal(undefined)
  })
})
