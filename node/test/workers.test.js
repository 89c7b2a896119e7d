// Several worker threads routing at once. On the Node addon they share one router's table
// (`share` / `Router.fromShared`, no copy); the WebAssembly build has no shared memory, so each
// worker builds the router from its canonical JSON. Either way every worker's answers are the
// main thread's.

import assert from 'node:assert/strict'
import test from 'node:test'
import { Worker } from 'node:worker_threads'

import { backend, keyroute } from './setup.js'

const WORKERS = 4
const KEYS = 100_000

const worker = `
import { workerData, parentPort } from 'node:worker_threads'
const keyroute = await import(workerData.entry)
const router = workerData.token !== null ? keyroute.Router.fromShared(workerData.token) : new keyroute.Router(workerData.spec)
const keys = Array.from({ length: workerData.keys }, (_, i) => 'user:' + i)
const out = []
for (let round = 0; round < 5; round++) {
  for (let i = 0; i < keys.length; i++) out[i] = router.route(keys[i])
}
parentPort.postMessage(out)
`

test(`${WORKERS} worker threads route at once (${backend})`, async () => {
  const ring = new keyroute.Ring(Array.from({ length: 100 }, (_, i) => `node-${i}`))
  const entry = new URL(backend === 'wasm' ? '../lib/wasm.js' : '../lib/index.js', import.meta.url).href
  const token = backend === 'native' ? ring.share() : null
  const spec = ring.canonicalJson
  const results = await Promise.all(
    Array.from({ length: WORKERS }, () => {
      const w = new Worker(worker, { eval: true, type: 'module', workerData: { entry, token, spec, keys: KEYS } })
      return new Promise((resolve, reject) => {
        w.once('message', resolve)
        w.once('error', reject)
      })
    }),
  )
  const want = Array.from({ length: KEYS }, (_, i) => ring.route(`user:${i}`))
  for (const got of results) assert.deepEqual(got, want)
})
