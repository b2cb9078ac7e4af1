import {expect} from 'chai'
import {Gate} from '../../src/catalog/edits/gate.js'

const tick = (ms = 5) => new Promise((r) => setTimeout(r, ms))

describe('Gate (in-process)', () => {
  it('runs at most `limit` at once, the waiting in arrival order', async () => {
    const gate = new Gate(2)
    const started: number[] = []
    let inside = 0
    let most = 0
    await Promise.all(
      Array.from({length: 6}, (_, i) =>
        gate.run(async () => {
          started.push(i)
          most = Math.max(most, ++inside)
          await tick()
          inside--
        }),
      ),
    )
    expect(most).to.equal(2)
    expect(started).to.deep.equal([0, 1, 2, 3, 4, 5])
  })

  it('gives the slot back when the holder throws', async () => {
    const gate = new Gate(1)
    const failed = gate.run(async () => {
      await tick()
      throw new Error('refused')
    })
    const next = gate.run(async () => 'ran')
    let err: unknown
    await failed.catch((e) => (err = e))
    expect((err as Error).message).to.equal('refused')
    expect(await next).to.equal('ran')
    expect(await gate.run(async () => 'again')).to.equal('again')
  })

  it('refuses a limit below one', () => {
    expect(() => new Gate(0)).to.throw(RangeError, 'limit of 1 or more')
  })
})
