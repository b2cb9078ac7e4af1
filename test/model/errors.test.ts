import {expect} from 'chai'
import * as E from '../../src/errors.js'

describe('errors across the wire', () => {
  // A Record over the ErrorCode union: a new code without a sample here does not compile.
  const samples: Record<E.ErrorCode, E.MdcliError> = {
    E_USAGE: new E.UsageError('u', {flag: '--x'}),
    E_BAD_URN: new E.UrnError('bad urn'),
    E_UNKNOWN_ENTITY_TYPE: new E.UnknownEntityTypeError('t'),
    E_UNKNOWN_ASPECT: new E.UnknownAspectError('a'),
    E_INVALID_ASPECT: new E.InvalidAspectError('i', [{path: '/x'}]),
    E_BAD_REQUEST: new E.BadRequestError('b', {field: 'count'}),
    E_NOT_FOUND: new E.NotFoundError('n'),
    E_UNAUTHENTICATED: new E.UnauthenticatedError('who'),
    E_UNAUTHORIZED: new E.UnauthorizedError(),
    E_CONFLICT: new E.ConflictError('c'),
    E_TOO_LARGE: new E.TooLargeError('big'),
    E_CONNECTION: new E.ConnectionError('down'),
    E_SERVER: new E.ServerError('s', 502),
    E_CONFIG: new E.ConfigError('cfg', {file: 'x.yaml'}),
    E_STORE_CORRUPT: new E.StoreCorruptError('corrupt'),
    E_STORE_LOCKED: new E.StoreLockedError('locked'),
    E_STORE_VERSION: new E.StoreVersionError('newer'),
    E_STORE_FULL: new E.StoreFullError('full', {store: '/x'}),
    E_STORE_IO: new E.StoreIoError('io', {errno: 'EIO'}),
    E_STORE_CONFLICT: new E.StoreConflictError('conflict', {expected: 1}),
    E_STORE_MEMORY: new E.StoreMemoryError('heap', {limitMb: 512}),
    E_STORE_UNAVAILABLE: new E.StoreUnavailableError('PostgreSQL refused the connection', {reason: 'ECONNREFUSED'}),
    E_FILE: new E.FileError('f'),
    E_PARSE: new E.ParseError('p', {line: 3}),
    E_PLUGIN: new E.PluginError('pl'),
    E_INTERNAL: new E.BugError('bug', {cause: new TypeError('x is undefined')}),
  }

  it('has a sample of every code the client knows', () => {
    expect(Object.keys(samples).sort()).to.deep.equal([...E.ERROR_CODES].sort())
  })

  for (const err of Object.values(samples)) {
    it(`${err.code} comes back as ${err.constructor.name} with its status and details`, () => {
      const back = E.errorFromWire(JSON.parse(JSON.stringify(err)), err.status)
      expect(back).to.be.instanceOf(err.constructor)
      expect(back.code).to.equal(err.code)
      expect(back.status).to.equal(err.status)
      expect(back.message).to.equal(err.message)
      expect(back.details).to.deep.equal(err.details)
    })
  }

  it('keeps a code it does not know, and classes a body without one by its status', () => {
    const newer = E.errorFromWire({code: 'E_SOMETHING_NEW', status: 507, message: 'full', details: {n: 1}}, 507)
    expect(newer).to.be.instanceOf(E.ServerError)
    expect(newer.code).to.equal('E_SOMETHING_NEW')
    expect(newer.status).to.equal(507)
    expect(newer.message).to.equal('full')
    expect(newer.details).to.deep.equal({n: 1})
    // Names of Object.prototype are not codes.
    expect(E.errorFromWire({code: 'constructor', message: 'x'}, 400)).to.be.instanceOf(E.BadRequestError)
    expect(E.errorFromWire({message: 'gone'}, 404)).to.be.instanceOf(E.NotFoundError)
    expect(E.errorFromWire({}, 409)).to.be.instanceOf(E.ConflictError)
    expect(E.errorFromWire({}, 502)).to.be.instanceOf(E.ServerError)
  })

  it('a bug keeps its cause for the log but not in what crosses the wire', () => {
    const bug = new E.BugError('Internal error', {cause: new TypeError('secret detail')})
    expect((bug as {cause?: unknown}).cause).to.be.instanceOf(TypeError)
    expect(JSON.stringify(bug)).not.to.contain('secret detail')
    expect(bug.logText()).to.contain('secret detail')
  })

  it('an unexpected exception at a server edge becomes E_INTERNAL with the exception as its cause', () => {
    const thrown = new TypeError('Cannot read properties of undefined')
    const edge = E.BugError.wrap(thrown)
    expect(edge).to.be.instanceOf(E.BugError)
    expect(edge.code).to.equal('E_INTERNAL')
    expect(edge.status).to.equal(500)
    expect((edge as {cause?: unknown}).cause).to.equal(thrown)
    expect(JSON.stringify(edge)).not.to.contain('undefined')
    const typed = new E.NotFoundError('gone')
    expect(E.BugError.wrap(typed)).to.equal(typed)
  })
})
