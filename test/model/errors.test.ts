import {expect} from 'chai'
import * as E from '../../src/errors.js'

describe('errors across the wire', () => {
  const samples: E.MdcliError[] = [
    new E.UsageError('u'),
    new E.UrnError('bad urn'),
    new E.UnknownEntityTypeError('t'),
    new E.UnknownAspectError('a'),
    new E.InvalidAspectError('i', [{path: '/x'}]),
    new E.BadRequestError('b'),
    new E.NotFoundError('n'),
    new E.UnauthenticatedError('who'),
    new E.UnauthorizedError(),
    new E.ConflictError('c'),
    new E.TooLargeError('big'),
    new E.ConnectionError('down'),
    new E.ServerError('s', 502),
    new E.ConfigError('cfg'),
    new E.StoreCorruptError('corrupt'),
    new E.StoreLockedError('locked'),
    new E.StoreFullError('full', {store: '/x'}),
    new E.StoreIoError('io'),
    new E.StoreConflictError('conflict'),
    new E.FileError('f'),
    new E.ParseError('p'),
    new E.PluginError('pl'),
    new E.BugError('bug', {cause: new TypeError('x is undefined')}),
  ]

  for (const err of samples) {
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
    const newer = E.errorFromWire({code: 'E_SOMETHING_NEW', status: 507, message: 'full'}, 507)
    expect(newer.code).to.equal('E_SOMETHING_NEW')
    expect(newer.status).to.equal(507)
    expect(E.errorFromWire({message: 'gone'}, 404)).to.be.instanceOf(E.NotFoundError)
    expect(E.errorFromWire({}, 409)).to.be.instanceOf(E.ConflictError)
    expect(E.errorFromWire({}, 502)).to.be.instanceOf(E.ServerError)
  })

  it('a bug keeps its cause for the log but not in what crosses the wire', () => {
    const bug = new E.BugError('Internal error', {cause: new TypeError('secret detail')})
    expect((bug as {cause?: unknown}).cause).to.be.instanceOf(TypeError)
    expect(JSON.stringify(bug)).not.to.contain('secret detail')
  })
})
