// Hot keys and overload, the same on both backends: BoundedLoad (no node above its capacity,
// keys come home as load falls, leases given back exactly once), HotKeys (recall of the hottest
// keys of a Zipf stream against exact counts, estimates never below the truth, decay), read
// spreading (stable per client, every copy among the owner's replicas) and split keys, and the
// typed errors of bad arguments.

import assert from 'node:assert/strict'
import test from 'node:test'

import { backend, keyroute } from './setup.js'

const { BoundedLoad, HotKeys, Jump, Lease, Rendezvous, Ring, KeyrouteError, splitKey, splitKeys } = keyroute

const ring = (n) => new Ring(Array.from({ length: n }, (_, i) => `cache-${i}`))

/** Deterministic Zipf(`s`) draws over `n` ranks (rank 0 the most frequent). */
function zipf(n, s, seed = 7) {
  const cdf = new Float64Array(n)
  let sum = 0
  for (let i = 0; i < n; i++) cdf[i] = sum += 1 / (i + 1) ** s
  let x = seed >>> 0
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0
    const u = (x / 0x1_0000_0000) * sum
    let lo = 0
    let hi = n - 1
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (cdf[mid] < u) lo = mid + 1
      else hi = mid
    }
    return lo
  }
}

function fails(kind, fn, where = kind) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof KeyrouteError, `${where}: ${e?.stack ?? e}`)
    assert.equal(e.kind, kind, `${where}: ${e.message}`)
    return true
  })
}

// A client's selector is XXH3-64 of its id, in every language: XXH3-64(b"web-1") =
// 0xce3f0550dc4eb434, so among three copies "web-1" reads the one at this index.
const webOne = Number(0xce3f0550dc4eb434n % 3n)

test('an idle BoundedLoad serves every key at home', () => {
  const r = ring(5)
  const bounded = new BoundedLoad(r)
  assert.equal(bounded.factor, keyroute.DEFAULT_BALANCE_FACTOR)
  assert.equal(keyroute.DEFAULT_BALANCE_FACTOR, 1.25)
  assert.equal(bounded.router, r)
  for (let i = 0; i < 500; i++) {
    const key = `user:${i}`
    assert.deepEqual(bounded.pick(key), { node: r.route(key), rank: 0, isHome: true })
    const lease = bounded.acquire(i % 2 ? key : new TextEncoder().encode(key))
    assert.ok(lease instanceof Lease && lease.isHome && lease.held && lease.rank === 0)
    assert.equal(lease.node, r.route(key))
    assert.equal(bounded.load(lease.node), 1)
    assert.equal(bounded.total, 1)
    assert.equal(lease.release(), true)
    assert.equal(lease.release(), false, 'a second release gives nothing back')
    assert.ok(!lease.held)
  }
  assert.equal(bounded.total, 0)
})

test('no node takes more than its capacity on a Zipf stream, with requests finishing', () => {
  const r = ring(10)
  const c = 1.25
  const bounded = new BoundedLoad(r, c)
  const draw = zipf(10_000, 1.1)
  let x = 99
  const held = []
  let spilled = 0
  for (let i = 0; i < 30_000; i++) {
    const lease = bounded.acquire(`key:${draw()}`)
    const total = bounded.total
    // Placed only while its load, this request included, is at most ⌈c · total / n⌉.
    assert.ok(bounded.load(lease.node) <= Math.ceil((c * 1000 * total) / (1000 * 10)), `request ${i}`)
    if (!lease.isHome) spilled++
    held.push(lease)
    // Keep about 1,000 in flight, finishing requests in random order.
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0
    if (held.length > 1000) held.splice(x % held.length, 1)[0].release()
  }
  assert.ok(spilled > 0, 'the hot keys spilled over')
  const loads = r.nodes.map((n) => bounded.load(n))
  assert.equal(loads.reduce((a, b) => a + b), bounded.total)
  for (const lease of held) lease.release()
  assert.equal(bounded.total, 0)
  assert.ok(r.nodes.every((n) => bounded.load(n) === 0))
})

test('a hot key spills over within capacity and comes home as load falls', () => {
  const bounded = new BoundedLoad(ring(4), 1.25)
  const home = bounded.router.route('hot')
  const leases = Array.from({ length: 100 }, () => bounded.acquire('hot'))
  const bound = Math.ceil((1.25 * 100) / 4)
  assert.ok(bounded.router.nodes.every((n) => bounded.load(n) <= bound))
  assert.equal(bounded.load(home), bound)
  assert.equal(leases.filter((l) => !l.isHome).length, 100 - bound)
  assert.equal(bounded.capacity(home), Math.ceil((1.25 * 101) / 4))
  // Release the requests served away from home first: the home node stays full, so the key
  // still goes elsewhere; then as the home's own requests finish, the key comes home.
  leases.sort((a, b) => Number(a.isHome) - Number(b.isHome))
  let cameHome = false
  for (const lease of leases) {
    lease.release()
    const pick = bounded.pick('hot')
    if (pick.isHome) cameHome = true
    else assert.ok(!cameHome || bounded.load(home) >= bounded.capacity(home), 'home again unless full')
    assert.equal(pick.isHome, bounded.load(home) < bounded.capacity(home), `total ${bounded.total}`)
  }
  assert.ok(cameHome)
  assert.equal(bounded.total, 0)
  assert.deepEqual(bounded.pick('hot'), { node: home, rank: 0, isHome: true })
})

test('weights set the capacities', () => {
  const bounded = new BoundedLoad(new Rendezvous({ a: 1, b: 3 }), 1)
  const leases = Array.from({ length: 8 }, (_, i) => bounded.acquire(String(i)))
  assert.deepEqual([bounded.load('a'), bounded.load('b')], [2, 6])
  for (const l of leases) l.release()
})

test('a forgotten lease is given back when it is collected', { skip: !globalThis.gc && 'run with --expose-gc' }, async () => {
  const bounded = new BoundedLoad(ring(3))
  ;(() => {
    bounded.acquire('k')
  })()
  assert.equal(bounded.total, 1)
  for (let i = 0; i < 50 && bounded.total > 0; i++) {
    globalThis.gc()
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  assert.equal(bounded.total, 0)
})

test('a using declaration gives the slot back', { skip: typeof Symbol.dispose !== 'symbol' && 'no Symbol.dispose' }, () => {
  const bounded = new BoundedLoad(ring(3))
  const lease = bounded.acquire('k')
  lease[Symbol.dispose]()
  assert.ok(!lease.held)
  assert.equal(bounded.total, 0)
})

test('HotKeys finds the hottest keys of a Zipf stream, estimates never below the truth', () => {
  const hot = new HotKeys()
  const exact = new Map()
  const draw = zipf(100_000, 1.0, 11)
  const n = 300_000
  for (let i = 0; i < n; i++) {
    const key = `user:${draw()}`
    const count = (exact.get(key) ?? 0) + 1
    exact.set(key, count)
    const estimate = hot.observe(key)
    assert.ok(estimate >= count)
  }
  assert.equal(hot.total, n)
  const truth = [...exact].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 100)
  const found = hot.top(100)
  assert.equal(found.length, 100)
  for (let i = 1; i < found.length; i++) assert.ok(found[i - 1].count >= found[i].count, 'most counted first')
  const foundKeys = new Set(found.map((f) => f.key))
  const recall = truth.filter(([k]) => foundKeys.has(k)).length
  console.log(`# ${backend}: top-100 recall ${recall}/100 on Zipf(1.0), 300,000 observations of 100,000 keys, ${hot.memoryBytes} bytes`)
  assert.ok(recall >= 90, `recall ${recall}/100`)
  for (const { key, count } of found) {
    assert.equal(typeof key, 'string')
    assert.ok(count >= exact.get(key), key)
    assert.ok(hot.heat(key) >= count, `heat of ${key}`)
  }
  const [hottest, count] = truth[0]
  assert.ok(hot.isHot(hottest, { count }) && hot.isHot(new TextEncoder().encode(hottest), { share: count / n - 1e-9 }))
  assert.ok(!hot.isHot('never-seen', { count: 1 }) && !hot.isHot('never-seen', { share: 0.001 }))
  assert.ok(hot.memoryBytes > 0 && hot.memoryBytes < 400_000, `${hot.memoryBytes} bytes`)
})

test('decay halves every count; keys that are not text come back as bytes', () => {
  const hot = new HotKeys({ width: 1024, capacity: 64, shards: 1 })
  for (let i = 0; i < 1000; i++) hot.observe('k')
  for (let i = 0; i < 10; i++) hot.observe(new Uint8Array([0xff, 0x00]))
  hot.decay()
  assert.deepEqual([hot.heat('k'), hot.total], [500, 505])
  assert.deepEqual(hot.top(2), [{ key: 'k', count: 500 }, { key: new Uint8Array([0xff, 0x00]), count: 5 }])
  assert.deepEqual(hot.top(0), [])
})

test('reads spread over the first replicas, stable per client; writes reach the owner', () => {
  const r = ring(10)
  const first3 = r.replicas('hot', 3)
  assert.equal(first3[0], r.route('hot'), 'the owner is among the copies a write must reach')
  assert.equal(r.spread('hot', 1), r.route('hot'))
  assert.equal(r.spread('hot', 1, 'web-1'), r.route('hot'))
  const byClient = new Set()
  for (let i = 0; i < 50; i++) {
    const client = `web-${i}`
    const node = r.spread('hot', 3, client)
    for (let j = 0; j < 3; j++) assert.equal(r.spread('hot', 3, client), node, 'the same client reads the same copy')
    assert.equal(r.spread(new TextEncoder().encode('hot'), 3, new TextEncoder().encode(client)), node, 'text and bytes alike')
    byClient.add(node)
  }
  assert.deepEqual([...byClient].sort(), [...first3].sort())
  const random = new Set(Array.from({ length: 200 }, () => r.spread('hot', 3)))
  assert.deepEqual([...random].sort(), [...first3].sort(), 'without a client, every copy')
  assert.ok(first3.includes(r.spread('hot', 3, null)), 'null is no client')
  assert.equal(r.spread('hot', 3, 'web-1'), first3[webOne])
})

test('split keys: text for text, bytes for bytes, one per reader', () => {
  assert.deepEqual(splitKeys('hot', 3), ['hot#1', 'hot#2', 'hot#3'])
  assert.deepEqual(splitKeys('ключ', 2), ['ключ#1', 'ключ#2'])
  assert.deepEqual(splitKeys(new Uint8Array([0xff]), 2), [new Uint8Array([0xff, 0x23, 0x31]), new Uint8Array([0xff, 0x23, 0x32])])
  assert.equal(splitKeys('k', 12)[11], 'k#12')
  assert.equal(splitKey('hot', 3, 'web-1'), `hot#${webOne + 1}`)
  assert.equal(splitKey('hot', 3, new TextEncoder().encode('web-1')), splitKey('hot', 3, 'web-1'))
  const seen = new Set(Array.from({ length: 200 }, () => splitKey('hot', 3)))
  assert.deepEqual([...seen].sort(), ['hot#1', 'hot#2', 'hot#3'])
  assert.deepEqual(splitKey(new Uint8Array([0xff]), 1), new Uint8Array([0xff, 0x23, 0x31]))
  // The derived keys route on their own, so they spread over nodes.
  const r = ring(10)
  assert.ok(new Set(splitKeys('hot', 8).map((k) => r.route(k))).size > 2)
})

test('bad arguments are typed errors', () => {
  const r = ring(3)
  fails('invalid_type', () => new BoundedLoad({}), 'not a router')
  fails('invalid_type', () => new BoundedLoad(r, '1.25'))
  fails('invalid_parameter', () => new BoundedLoad(r, 0.5))
  fails('invalid_parameter', () => new BoundedLoad(r, Number.NaN))
  fails('invalid_parameter', () => new BoundedLoad(r, 1001))
  fails('replicas_unsupported', () => new BoundedLoad(new Jump(3)))
  const bounded = new BoundedLoad(r)
  fails('node_out_of_range', () => bounded.load('nope'))
  fails('node_out_of_range', () => bounded.capacity('nope'))
  fails('invalid_type', () => bounded.load(0))
  fails('invalid_type', () => bounded.acquire(42))
  fails('invalid_type', () => bounded.pick(null))
  fails('invalid_utf8', () => bounded.acquire('\ud800'))
  assert.equal(bounded.total, 0, 'a refused acquisition takes no slot')
  fails('invalid_type', () => new Lease(), 'leases come from acquire')
  assert.ok(new KeyrouteError('x') instanceof Error)

  fails('invalid_parameter', () => new HotKeys({ capacity: 0 }))
  fails('invalid_parameter', () => new HotKeys({ shards: 0 }))
  fails('invalid_parameter', () => new HotKeys({ shards: 257 }))
  fails('invalid_parameter', () => new HotKeys({ width: 2 ** 30 }))
  fails('invalid_parameter', () => new HotKeys({ width: -1 }))
  // The core's limits hold for the whole detector, not per shard (C refuses the same).
  for (const shards of [1, 8, 256]) {
    fails('invalid_parameter', () => new HotKeys({ width: 2 ** 24 + 1, shards }), `width 2^24 + 1 over ${shards} shards`)
    fails('invalid_parameter', () => new HotKeys({ capacity: 2 ** 20 + 1, shards }), `capacity 2^20 + 1 over ${shards} shards`)
  }
  fails('invalid_parameter', () => new HotKeys({ size: 10 }), 'unknown option')
  fails('invalid_type', () => new HotKeys({ width: '1024' }))
  fails('invalid_type', () => new HotKeys(1024))
  const hot = new HotKeys()
  fails('invalid_parameter', () => hot.isHot('k'))
  fails('invalid_parameter', () => hot.isHot('k', { count: 1, share: 0.5 }))
  fails('invalid_parameter', () => hot.isHot('k', { count: -1 }))
  fails('invalid_parameter', () => hot.isHot('k', { share: 1.5 }))
  fails('invalid_parameter', () => hot.isHot('k', { share: Number.NaN }))
  fails('invalid_type', () => hot.isHot('k', { count: '3' }))
  fails('invalid_type', () => hot.isHot('k', 3))
  fails('invalid_type', () => hot.observe(42))
  fails('invalid_utf8', () => hot.observe('a\udc00'))
  fails('invalid_type', () => hot.heat({}))
  fails('invalid_parameter', () => hot.top(-1))
  fails('invalid_type', () => hot.top('3'))
  assert.equal(hot.total, 0)

  const ten = ring(10)
  fails('invalid_parameter', () => ten.spread('hot', 0))
  fails('invalid_parameter', () => ten.spread('hot', 1.5))
  fails('invalid_type', () => ten.spread('hot', '2'))
  fails('replicas_exceed_nodes', () => ten.spread('hot', 11))
  fails('replicas_unsupported', () => new Jump(3).spread('hot', 2))
  fails('invalid_type', () => ten.spread('hot', 2, 42))
  fails('invalid_utf8', () => ten.spread('hot', 2, '\ud800'))
  fails('invalid_type', () => ten.spread(7, 2))
  fails('invalid_parameter', () => splitKeys('hot', 0))
  fails('invalid_parameter', () => splitKeys('hot', keyroute.MAX_SPLIT + 1))
  fails('invalid_parameter', () => splitKey('hot', 0, 'web-1'))
  fails('invalid_type', () => splitKeys(3, 2))
  fails('invalid_type', () => splitKey('hot', 2, {}))
})
