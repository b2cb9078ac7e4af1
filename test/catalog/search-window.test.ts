import {expect} from 'chai'
import {SEARCH_WINDOW, searchUrns} from '../../src/catalog/delete.js'
import type {SearchRequest, SearchResponse} from '../../src/store/types.js'

/** A store whose search answers nothing and remembers what it was asked. */
function store(): {asked: SearchRequest[]; search(req: SearchRequest): Promise<SearchResponse>} {
  const asked: SearchRequest[] = []
  return {asked, search: async (req) => (asked.push(req), {total: 0, hits: [], next: null})}
}

describe("the urn search's window (REST /entities?action=search)", () => {
  it("stops offset paging at DataHub's 10,000 by default, and the cursor walks past it", async () => {
    expect(SEARCH_WINDOW).to.equal(10_000)
    const s = store()
    const err = await searchUrns(s, {start: 9990, count: 20}).catch((e) => e)
    expect(err.message).to.contain("start + count must not exceed 10000; walk further with the 'after' cursor")
    await searchUrns(s, {start: 9980, count: 20})
    await searchUrns(s, {after: 'x', count: 1000})
    expect(s.asked.map((r) => [r.start, r.after, r.count])).to.deep.equal([[9980, undefined, 20], [undefined, 'x', 1000]])
  })

  it('follows the window it is given (lite --max-result-window); a page is never longer than 10,000', async () => {
    const s = store()
    expect((await searchUrns(s, {window: 100, start: 90, count: 20}).catch((e) => e)).message).to.contain('must not exceed 100')
    await searchUrns(s, {window: 100})
    await searchUrns(s, {window: 100, after: null, count: 1000})
    expect(s.asked.map((r) => r.count)).to.deep.equal([100, 1000])
    expect((await searchUrns(s, {window: 50_000, start: 0, count: 10_001}).catch((e) => e)).message).to.contain('count must be between 0 and 10000')
  })
})
