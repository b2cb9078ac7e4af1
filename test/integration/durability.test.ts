/**
 * Durability: kill -9 in the middle of a write burst loses no acknowledged write and leaves a
 * store that starts again.
 */
import {expect} from 'chai'
import {encodeUrnPath} from '../../src/model/urn.js'
import {cleanup, http, startLite} from '../helpers/lite.js'

describe('durability under kill -9', function () {
  this.timeout(120000)

  it('keeps every acknowledged write and restarts', async () => {
    const lite = await startLite({args: ['--checkpoint-mb', '1']})
    const acked: string[] = []
    let stop = false
    const writer = async (w: number) => {
      for (let i = 0; !stop; i++) {
        const urns = Array.from({length: 20}, (_, k) => `urn:li:dataset:(urn:li:dataPlatform:hive,w${w}_${i}_${k},PROD)`)
        try {
          const r = await http(`${lite.url}/aspects?action=ingestProposalBatch`, {
            body: {atomic: true, proposals: urns.map((u) => ({entityUrn: u, aspectName: 'datasetProperties', changeType: 'UPSERT', aspect: {json: {name: u, description: 'x'.repeat(200)}}}))},
          })
          if (r.status === 200) acked.push(...urns)
        } catch {
          return
        }
      }
    }
    const writers = Array.from({length: 6}, (_, w) => writer(w))
    // The kill comes in the middle of the burst once some writes were acknowledged; how many that
    // is depends on the machine, and the test's claim is only that each of them survives.
    const until = Date.now() + 60_000
    while (acked.length < 100 && Date.now() < until) await new Promise((r) => setTimeout(r, 25))
    await lite.kill()
    stop = true
    await Promise.all(writers)
    expect(acked.length, 'writes acknowledged before the kill').to.be.greaterThan(0)

    const again = await startLite({storeDir: lite.storeDir, home: lite.home})
    try {
      const missing: string[] = []
      // Every acknowledged urn must be there; check a spread of them plus the last ones.
      const sample = [...acked.filter((_, i) => i % 7 === 0), ...acked.slice(-60)]
      for (const u of sample) {
        const r = await http(`${again.url}/entitiesV2/${encodeUrnPath(u)}?aspects=List(datasetProperties)`)
        if (r.status !== 200 || r.body.aspects.datasetProperties.value.name !== u) missing.push(u)
      }
      expect(missing, `lost ${missing.length} of ${sample.length}`).to.deep.equal([])
      const total = await http(`${again.url}/config`)
      expect(total.status).to.equal(200)
    } finally {
      await again.stop()
      cleanup(lite.storeDir, lite.home)
    }
  })
})
