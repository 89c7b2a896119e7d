// The JavaScript API, the same on both backends: constructors, lookups, properties, analysis,
// transitions, and the shapes every method accepts.

import assert from 'node:assert/strict'
import test from 'node:test'

import { backend, keyroute } from './setup.js'

const { Router, Ring, Jump, Maglev, Rendezvous, Slots, MultiProbe, Modulo, Transition, diff } = keyroute
const NODES = ['cache-a', 'cache-b', 'cache-c']

test('a ring routes text and bytes alike, and answers ids', () => {
  const ring = new Ring({ 'cache-a': 1, 'cache-b': 2, 'cache-c': 1 }, { points: 160, version: 7 })
  assert.deepEqual(ring.nodes, ['cache-a', 'cache-b', 'cache-c'])
  assert.equal(ring.size, 3)
  const id = ring.route('user:42')
  assert.ok(ring.nodes.includes(id))
  assert.equal(ring.route(new TextEncoder().encode('user:42')), id)
  assert.equal(ring.nodes[ring.routeIndex('user:42')], id)
  assert.equal(ring.route('é'), ring.route(new Uint8Array([0xc3, 0xa9])))
  assert.equal(ring.version, 7)
  assert.equal(ring.algorithm, 'ring')
  assert.equal(typeof ring.fingerprint, 'bigint')
  assert.equal(ring.spec.params.points_per_weight, 160)
  assert.equal(ring.canonicalJson, JSON.stringify(ring.toJSON()))
  assert.ok(Object.isFrozen(ring.nodes))
})

test('specs as objects, JSON text and constructors are the same router', () => {
  const spec = { algorithm: 'ring', nodes: NODES.map((id) => ({ id })) }
  const a = new Router(spec)
  const b = new Router(JSON.stringify(spec))
  const c = new Ring(NODES)
  assert.ok(a.equals(b) && b.equals(c))
  assert.equal(a.fingerprint, c.fingerprint)
  assert.ok(c instanceof Router && c instanceof Ring)
  assert.ok(!a.equals(new Ring(NODES, { version: 1 })))
  assert.ok(new Ring(new Map([['x', 1], ['y', 3]])).equals(new Ring({ x: 1, y: 3 })))
  assert.ok(new Ring(new Set(NODES)).equals(c), 'any iterable of ids')
})

test('every algorithm builds from its constructor', () => {
  for (const r of [
    new Ring(NODES),
    new Jump(5),
    new Jump(NODES, { keyHash: 'xxh3' }),
    new Maglev(NODES, { tableSize: 251 }),
    new Rendezvous(NODES),
    new Slots(NODES, { count: 64 }),
    new MultiProbe(NODES, { probes: 7 }),
    new Modulo(NODES),
  ]) {
    assert.ok(r.nodes.includes(r.route('k')), r.algorithm)
    assert.deepEqual(r.routeMany(['a', 'b', 'c']), ['a', 'b', 'c'].map((k) => r.route(k)), r.algorithm)
  }
  assert.equal(new Jump(5).nodes.join(), '0,1,2,3,4')
  assert.equal(new Slots(NODES, { count: 64 }).spec.params.count, 64)
})

test('replicas, slots and key hashes', () => {
  const zoned = new Ring([
    { id: 'a1', zone: 'a' },
    { id: 'a2', zone: 'a' },
    { id: 'b1', zone: 'b' },
  ])
  const two = zoned.replicas('user:42', 2)
  assert.equal(two.length, 2)
  assert.equal(two[0], zoned.route('user:42'))
  assert.notEqual(two[0][0], two[1][0], 'two zones first')
  assert.deepEqual(zoned.replicas('k', 0), [])
  const slots = new Slots(NODES, { count: 1024 })
  assert.ok(slots.slot('k') >= 0 && slots.slot('k') < 1024)
  assert.equal(new Ring(NODES).slot('k'), null)
  const ring = new Ring(NODES)
  const h = ring.keyHash('user:42')
  assert.equal(typeof h, 'bigint')
  assert.equal(ring.routeHash(h), ring.route('user:42'))
  const jump = new Jump(10, { keyHash: 'u64be' })
  const key = new Uint8Array(8)
  new DataView(key.buffer).setBigUint64(0, 123456789n)
  assert.equal(jump.keyHash(key), 123456789n)
  assert.equal(jump.routeHash(123456789n), jump.route(key))
})

test('routeMany, routeIndices and the packed batch agree with route', () => {
  const ring = new Ring(Array.from({ length: 50 }, (_, i) => `n${i}`))
  const keys = Array.from({ length: 70000 }, (_, i) => (i % 7 === 0 ? `ключ-${i}` : `key-${i}`))
  const many = ring.routeMany(keys)
  assert.equal(many.length, keys.length)
  for (let i = 0; i < keys.length; i += 997) assert.equal(many[i], ring.route(keys[i]))
  assert.deepEqual(ring.routeMany(new Set(keys.slice(0, 10))), keys.slice(0, 10).map((k) => ring.route(k)))
  const mixed = ['a', new TextEncoder().encode('b'), 'c']
  assert.deepEqual(ring.routeMany(mixed), ['a', 'b', 'c'].map((k) => ring.route(k)))
  const enc = new TextEncoder()
  const bytes = keys.slice(0, 1000).map((k) => enc.encode(k))
  const offsets = new Uint32Array(bytes.length + 1)
  bytes.forEach((b, i) => (offsets[i + 1] = offsets[i] + b.length))
  const data = new Uint8Array(offsets[bytes.length])
  bytes.forEach((b, i) => data.set(b, offsets[i]))
  const out = new Uint32Array(1000)
  assert.equal(ring.routeBatch(data, offsets, out), out)
  assert.deepEqual(Array.from(out, (i) => ring.nodes[i]), many.slice(0, 1000))
  assert.deepEqual(Array.from(ring.routeIndices(keys.slice(0, 5))), keys.slice(0, 5).map((k) => ring.routeIndex(k)))
  assert.deepEqual(ring.routeMany([]), [])
})

test('the key-hash space as pieces, where the router is such a map', () => {
  const ring = new Ring(['a', 'b', 'c'], { points: 10 })
  const p = ring.pieces()
  assert.equal(p.bits, 64)
  assert.equal(p.starts.length, p.owners.length)
  assert.equal(p.starts[0], 0n)
  for (let i = 1; i < p.starts.length; i++) assert.ok(p.starts[i] > p.starts[i - 1])
  // A key's hash falls in the piece its owner holds.
  for (const key of ['k1', 'k2', 'user:42']) {
    const h = ring.keyHash(key)
    let i = p.starts.length - 1
    while (p.starts[i] > h) i--
    assert.equal(ring.nodes[p.owners[i]], ring.route(key))
  }
  assert.equal(new Rendezvous(['a']).pieces(), null)
})

test('ownership and diff, exact where the algorithm allows', () => {
  const a = new Ring(['a', 'b', 'c'])
  const b = new Ring(['a', 'b', 'c', 'd'])
  const own = b.ownership()
  assert.equal(own.method, 'exact')
  assert.deepEqual([...own.shares.keys()], ['a', 'b', 'c', 'd'])
  assert.ok(Math.abs([...own.shares.values()].reduce((x, y) => x + y, 0) - 1) < 1e-9)
  assert.ok(own.balance.cv >= 0 && own.balance.maxOverMean >= 1)
  const d = diff(a, b)
  assert.equal(d.method, 'exact')
  assert.ok(Math.abs(d.idealMoved - 0.25) < 1e-12)
  assert.ok(d.moved > 0.15 && d.moved < 0.35, `${d.moved}`)
  const moved = d.flows.filter((f) => f.source !== f.target)
  assert.ok(moved.every((f) => f.target === 'd'))
  assert.ok(Math.abs(moved.reduce((s, f) => s + f.share, 0) - d.moved) < 1e-12)
  assert.ok(d.movedArcs.length > 0 && d.movedArcs.every((m) => typeof m.start === 'bigint' && m.start <= m.end && m.target === 'd'))
  const j = diff(new Jump(3), new Jump(4))
  assert.equal(j.method, 'expected')
  assert.ok(Math.abs(j.moved - 0.25) < 1e-12)
  assert.equal(new Rendezvous(['a', 'b']).ownership().method, 'expected')
})

test('a transition moves keys monotonically and names the previous owner', () => {
  const a = new Ring(['a', 'b', 'c'], { version: 1 })
  const b = new Ring(['a', 'b', 'c', 'd'], { version: 2 })
  const t0 = new Transition(a, b, 0)
  const t1 = t0.withProgress(1)
  const half = t0.withProgress(0.5)
  assert.equal(half.progress, 0.5)
  assert.deepEqual(t0.nodes, ['a', 'b', 'c', 'd'])
  assert.equal(half.from, a)
  assert.equal(half.to, b)
  for (let i = 0; i < 2000; i++) {
    const key = `k${i}`
    assert.equal(t0.route(key), a.route(key))
    assert.equal(t1.route(key), b.route(key))
    const placed = half.routeWithFallback(key)
    if (half.hasCutOver(key)) {
      assert.equal(placed.owner, b.route(key))
      assert.equal(placed.previous, a.route(key) === b.route(key) ? null : a.route(key))
    } else {
      assert.equal(placed.owner, a.route(key))
      assert.equal(placed.previous, null)
    }
  }
  const d = half.describe()
  assert.equal(d.from.version, 1)
  assert.equal(d.to.fingerprint, b.fingerprint.toString(16).padStart(16, '0'))
  assert.equal(d.progress, 0.5)
})

test('peer presets build from servers, nodes, buckets and slot ranges', () => {
  const { Libmemcached, Spymemcached, Twemproxy, Uhashring, NpmHashring, PythonHashRing, Nginx, Guava, RedisCluster, PymemcacheRendezvous } = keyroute
  const servers = { '10.0.1.1:11211': 600, '10.0.1.2:11211': 300 }
  const lm = new Libmemcached(servers, { distribution: 'ketama_weighted' })
  assert.deepEqual(lm.spec.params, { distribution: 'ketama_weighted', hash: 'md5', weighted: true })
  assert.equal(lm.spec.nodes[0].host, '10.0.1.1')
  assert.deepEqual(new Libmemcached(['10.0.0.1', '[::1]:27500'], { distribution: 'ketama' }).spec.nodes.map((n) => [n.host, n.port]), [
    ['10.0.0.1', 11211],
    ['::1', 27500],
  ])
  for (const r of [
    new Spymemcached(servers),
    new Twemproxy(servers, { hash: 'md5', hashTag: '{}' }),
    new Uhashring(NODES, { mode: 'ketama' }),
    new NpmHashring(NODES, { vnodeCount: 40, defaultPort: 11211 }),
    new PythonHashRing(NODES),
    new Nginx(NODES),
    new Guava(4),
    new RedisCluster({ a: [[0, 8191]], b: [[8192, 16383]] }),
    new PymemcacheRendezvous(NODES, { seed: 10 }),
  ]) {
    assert.ok(r.nodes.includes(r.route('foo')), r.algorithm)
  }
  assert.equal(new RedisCluster({ a: [[0, 8191]], b: [[8192, 16383]] }).slot('foo'), 12182)
  assert.equal(new Guava(4).spec.params.key_hash, 'murmur3_128')
})

test('limits: the defaults and the ceiling, read from the native layer, and raising one', () => {
  const { LIMITS, LIMITS_CEILING, SpecTooLargeError, TooManyNodesError, TooManyPointsError } = keyroute
  assert.deepEqual({ ...LIMITS }, {
    max_spec_bytes: 8 << 20,
    max_nodes: 16384,
    max_points: 2 ** 21,
    max_hashed_bytes: 2 ** 26,
    max_table_entries: 2 ** 20,
  })
  assert.deepEqual(Object.keys(LIMITS_CEILING), Object.keys(LIMITS))
  for (const [name, value] of Object.entries(LIMITS)) assert.ok(LIMITS_CEILING[name] >= value, name)
  assert.ok(Object.isFrozen(LIMITS) && Object.isFrozen(LIMITS_CEILING))
  // A ring over the default point budget builds once the limit is raised.
  const points = LIMITS.max_points / 2 + 1
  assert.throws(() => new Ring(['a', 'b'], { points }), TooManyPointsError)
  const ring = new Ring(['a', 'b'], { points, limits: { max_points: LIMITS.max_points * 2 } })
  assert.equal(ring.spec.params.points_per_weight, points)
  assert.ok(!('limits' in ring.spec.params), 'limits are not a spec parameter')
  assert.ok(ring.equals(new Router(ring.spec, { limits: { max_points: LIMITS.max_points * 2 } })))
  // Bucket counts over the node limit fail before a bucket is made; a raised limit lets them build.
  for (const n of [LIMITS.max_nodes + 1, 2 ** 20 + 1, 1e9, 2 ** 60]) assert.throws(() => new Jump(n), TooManyNodesError)
  assert.throws(() => new Jump(5, { limits: { max_nodes: 4 } }), TooManyNodesError)
  assert.equal(new Jump(LIMITS.max_nodes + 1, { limits: { max_nodes: LIMITS.max_nodes + 1 } }).size, LIMITS.max_nodes + 1)
  assert.throws(() => new keyroute.Guava(LIMITS_CEILING.max_nodes + 1, { limits: { max_nodes: LIMITS_CEILING.max_nodes } }), TooManyNodesError)
  // A spec of every algorithm builds under limits passed explicitly.
  for (const { className, example } of keyroute.ALGORITHMS) {
    assert.ok(new Router(example, { limits: {} }).equals(new Router(example)), className)
  }
})

test('specs as bytes: the same router as the text, the size checked before the encoding', () => {
  const { InvalidUtf8Error, SpecTooLargeError } = keyroute
  const text = JSON.stringify({ algorithm: 'ring', nodes: [{ id: 'é' }, { id: 'b' }] })
  const bytes = new TextEncoder().encode(text)
  const ring = new Router(text)
  assert.ok(ring.equals(new Router(bytes)))
  if (typeof Buffer === 'function') assert.ok(ring.equals(new Router(Buffer.from(text))))
  // The size is the UTF-8's, for text and bytes alike (`é` is two bytes).
  const at = { limits: { max_spec_bytes: bytes.length } }
  const below = { limits: { max_spec_bytes: bytes.length - 1 } }
  assert.ok(ring.equals(new Router(text, at)) && ring.equals(new Router(bytes, at)))
  assert.throws(() => new Router(text, below), SpecTooLargeError)
  assert.throws(() => new Router(bytes, below), SpecTooLargeError)
  // Bytes that are not UTF-8 are refused as such, unless the document is too large first.
  const bad = bytes.slice()
  bad[bad.indexOf(0xc3)] = 0xff
  assert.throws(() => new Router(bad), InvalidUtf8Error)
  assert.throws(() => new Router(bad, below), SpecTooLargeError)
  assert.throws(() => new Router('{"algorithm":"ring","nodes":[{"id":"\ud800"}]}', { limits: { max_spec_bytes: 10 } }), SpecTooLargeError)
})

test('redisSlot follows Redis, or cluster-key-slot when asked', () => {
  const { redisSlot } = keyroute
  assert.equal(redisSlot('foo'), 12182)
  assert.equal(redisSlot('{user1000}.following'), redisSlot('{user1000}.followers'))
  assert.equal(redisSlot('foo{}{bar}'), 8363)
  assert.equal(redisSlot('foo{}{bar}', { rule: 'cluster_key_slot' }), 4015)
  assert.equal(redisSlot(new TextEncoder().encode('123456789')), 12739)
})

test('sharing a router with other workers', () => {
  const ring = new Ring(NODES)
  if (backend === 'native') {
    const token = ring.share()
    assert.equal(typeof token, 'number')
    assert.equal(ring.share(), token, 'one token per router')
    const again = Router.fromShared(token)
    assert.ok(again.equals(ring))
    assert.equal(again.route('k'), ring.route('k'))
  } else {
    assert.throws(() => ring.share(), keyroute.InvalidParameterError)
  }
  assert.throws(() => Router.fromShared(-1), keyroute.InvalidParameterError)
})
