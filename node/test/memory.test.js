// Ten million routes do not grow the process: after a warm-up, the resident set grows by less
// than 10 MB (keys from a fixed set, each routed many times; nothing per call may be kept).
// Two passes of ten million are measured and the smaller growth is checked: a leak grows every
// pass (a byte kept per call is 10 MB a pass), while the engine's own one-off growth (its
// compilers, the heap settling) lands in at most one of them. One measured pass alone once read
// 11.3 MB in a full `make test` where this file alone reads about 3 MB.

import assert from 'node:assert/strict'
import test from 'node:test'

import { backend, keyroute } from './setup.js'

test(`10 million routes keep the resident set flat (${backend})`, () => {
  const ring = new keyroute.Ring(Array.from({ length: 1000 }, (_, i) => `node-${i}`))
  const keys = Array.from({ length: 100_000 }, (_, i) => `user:${i}`)
  const bytes = keys.slice(0, 1000).map((k) => new TextEncoder().encode(k))
  let sink = 0
  const run = (n) => {
    for (let i = 0; i < n; i++) {
      sink += ring.routeIndex(keys[i % keys.length])
      if (i % 1000 === 0) sink += ring.routeIndex(bytes[(i / 1000) % bytes.length])
    }
  }
  const pass = () => {
    globalThis.gc?.()
    const before = process.memoryUsage().rss
    run(10_000_000)
    globalThis.gc?.()
    return process.memoryUsage().rss - before
  }
  run(1_000_000)
  const grown = [pass(), pass()]
  const mb = grown.map((g) => (g / 1048576).toFixed(2)).join(' and ')
  assert.ok(sink > 0)
  assert.ok(Math.min(...grown) < 10 * 1024 * 1024, `RSS grew by ${mb} MB in the two passes`)
  console.log(`# ${backend}: RSS grew by ${mb} MB over two passes of 10,000,000 routes`)
})
