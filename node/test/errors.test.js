// Errors: the generated classes are the error table, every code reachable from JavaScript
// arrives with its code, and no argument of any type crashes or escapes as a foreign error.

import assert from 'node:assert/strict'
import test from 'node:test'

import { keyroute } from './setup.js'

const { KeyrouteError, Router, Ring, Jump, Slots, Maglev, Transition } = keyroute
const BASE = { type: TypeError, value: Error, range: RangeError, lookup: RangeError, io: Error, internal: Error, memory: Error }

const pascal = (name) => name.split('_').map((p) => p[0].toUpperCase() + p.slice(1)).join('')

test('one class per kind of the error table, on the builtin its category names', () => {
  const table = keyroute.errorTable()
  assert.ok(table.length >= 20)
  for (const [errno, kind, category, description] of table) {
    const cls = keyroute[`${pascal(kind)}Error`]
    assert.equal(typeof cls, 'function', kind)
    const e = new cls('boom')
    assert.ok(e instanceof KeyrouteError && e instanceof Error && e instanceof BASE[category], kind)
    assert.equal(e.code, `KR_${kind.toUpperCase()}`)
    assert.deepEqual([e.errno, e.kind, e.category, e.name, e.message], [errno, kind, category, cls.name, 'boom'])
    assert.equal(keyroute.ERRORS_BY_CODE[e.code], cls)
    assert.ok(description.endsWith('.'))
  }
  assert.ok(!(new Error('x') instanceof KeyrouteError))
  assert.ok(!(new TypeError('x') instanceof KeyrouteError))
})

/** Runs `fn`, which must throw the keyroute error of `kind`. */
function fails(kind, fn, where = kind) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof KeyrouteError, `${where}: ${e?.stack ?? e}`)
    assert.equal(e.kind, kind, `${where}: ${e.message}`)
    return true
  })
}

const ring = new Ring(['a', 'b', 'c'])

test('every code reachable from JavaScript arrives with its code', () => {
  const reached = new Set()
  const check = (kind, fn) => {
    fails(kind, fn)
    reached.add(kind)
  }
  check('invalid_json', () => new Router('{'))
  check('invalid_spec', () => new Router({ algorithm: 'ring' }))
  check('unknown_algorithm', () => new Router({ algorithm: 'consistent', nodes: [{ id: 'a' }] }))
  check('empty_topology', () => new Ring([]))
  check('duplicate_node_id', () => new Ring(['a', 'a']))
  check('zero_total_weight', () => new Ring({ a: 0 }))
  check('too_many_points', () => new Ring({ a: 4294967295 }))
  check('invalid_node_id', () => new Ring(['']))
  check('weights_unsupported', () => new Jump({ a: 1, b: 2 }))
  check('replicas_exceed_nodes', () => ring.replicas('k', 4))
  check('replicas_unsupported', () => new Jump(3).replicas('k', 2))
  check('table_size_not_prime', () => new Maglev(['a'], { tableSize: 65536 }))
  check('table_size_out_of_range', () => new Slots(['a'], { count: 0 }))
  check('invalid_parameter', () => new Ring(['a'], { points: 0 }))
  check('invalid_key', () => new Jump(3, { keyHash: 'u64be' }).route('short'))
  check('buffer_too_small', () => ring.routeBatch(new Uint8Array(2), new Uint32Array([0, 1, 2]), new Uint32Array(1)))
  check('invalid_utf8', () => ring.route('\ud800'))
  check('route_hash_unsupported', () => new keyroute.Rendezvous(['a']).routeHash(1n))
  check('invalid_type', () => ring.route(42))
  check('too_many_nodes', () => new Jump(2 ** 20 + 1))
  check('too_many_nodes', () => new Router({ algorithm: 'ring', nodes: ['a', 'b', 'c'].map((id) => ({ id })) }, { limits: { max_nodes: 2 } }))
  check('spec_too_large', () => new Router(`{"algorithm":"ring","nodes":[{"id":"a"}]}${' '.repeat(8 << 20)}`))
  check('spec_too_large', () => new Router(new Uint8Array((8 << 20) + 1).fill(0xff)))
  // The addon cannot open it; the WebAssembly build reads no files at all.
  check('io', () => Router.fromFile('/nonexistent/keyroute/missing.json'))
  // The rest are not reachable from JavaScript, each for its reason.
  const unreachable = new Map([
    ['null_pointer', 'C passes pointers; JavaScript cannot pass a null one'],
    ['node_out_of_range', "C's node-id lookup by position; JavaScript indexes the nodes array"],
    ['internal', 'a bug caught at a boundary'],
    ['out_of_memory', 'an allocation the OS refuses: C and Python test it under a memory limit'],
    ['invalid_argument', "the CLI's usage errors"],
    ['invalid_toml', 'a malformed TOML file: node-args.test.js writes one for the addon (this file also runs in browsers)'],
    // Live views and their sources are in the Rust bindings and the CLI only, so far.
    ['stale_version', 'a live view (Rust and the CLI so far)'],
    ['version_conflict', "a view source's compare-and-swap (Rust and the CLI so far)"],
    ['fingerprint_mismatch', 'a view document (Rust and the CLI so far)'],
    ['no_view', 'a live view (Rust and the CLI so far)'],
    ['invalid_view', 'a view document (Rust and the CLI so far)'],
    ['unknown_source', 'a view source URL (Rust and the CLI so far)'],
  ])
  for (const [, kind] of keyroute.errorTable()) {
    assert.ok(reached.has(kind) || unreachable.has(kind), `no test reaches ${kind}`)
    assert.ok(!(reached.has(kind) && unreachable.has(kind)), `${kind} is reached but listed as unreachable`)
  }
})

const detached = () => {
  const buf = new ArrayBuffer(8)
  const view = new Uint8Array(buf)
  structuredClone(buf, { transfer: [buf] })
  return view
}

test('keys of every type: a route, or a typed error, never a crash', () => {
  const bad = [undefined, null, 1, 1.5, NaN, 10n, true, {}, [], ['k'], () => 1, Symbol('k'), new Uint16Array(2), new ArrayBuffer(4), new DataView(new ArrayBuffer(2)), new Date(0)]
  for (const key of bad) {
    for (const call of [(k) => ring.route(k), (k) => ring.routeIndex(k), (k) => ring.replicas(k, 1), (k) => ring.slot(k), (k) => ring.keyHash(k)]) {
      fails('invalid_type', () => call(key), `${String(key?.constructor?.name ?? typeof key)}`)
    }
  }
  assert.equal(ring.route(detached()), ring.route(''), 'a detached buffer reads as empty, as JavaScript sees it')
  assert.equal(ring.route(new Uint8Array(0)), ring.route(''))
  const huge = 'x'.repeat(100 * 1024 * 1024)
  assert.ok(ring.nodes.includes(ring.route(huge)))
  fails('invalid_utf8', () => ring.route(`${'y'.repeat(1000)}\udfff`))
  fails('invalid_utf8', () => ring.route('\ud83d'))
  assert.equal(ring.route('\ud83d\ude00'), ring.route(new Uint8Array([0xf0, 0x9f, 0x98, 0x80])), 'a surrogate pair is one character')
  assert.equal(ring.route('\ufffd'), ring.route(new Uint8Array([0xef, 0xbf, 0xbd])), 'a real U+FFFD is a key like any other')
})

test('arguments of every type to every other entry point', () => {
  for (const spec of [undefined, null, 1, true, [], () => 1, new Uint16Array(2), new DataView(new ArrayBuffer(2))]) {
    fails('invalid_type', () => new Router(spec))
  }
  const small = { algorithm: 'ring', nodes: [{ id: 'a' }] }
  for (const options of [1, 'limits', [], true]) fails('invalid_type', () => new Router(small, options))
  for (const limits of [1, 'x', [], true, new Map()]) fails('invalid_type', () => new Router(small, { limits }))
  fails('invalid_type', () => new Router(small, { limits: { max_nodes: 1n } }))
  fails('invalid_parameter', () => new Router(small, { limit: {} }))
  for (const limits of [{ max_node: 1 }, { max_nodes: -1 }, { max_nodes: 0.5 }, { max_nodes: '1' }, { max_nodes: 2 ** 21 }, { max_points: NaN }]) {
    fails('invalid_parameter', () => new Router(small, { limits }), JSON.stringify(limits))
    fails('invalid_parameter', () => new Ring(['a'], { limits }), JSON.stringify(limits))
  }
  for (const n of [-1, 1.5, NaN, Infinity]) fails('invalid_spec', () => new Jump(n))
  fails('invalid_spec', () => new Router({ algorithm: 'ring', nodes: [{ id: 'a' }], version: 10n }))
  fails('invalid_utf8', () => new Router('{"algorithm":"ring","nodes":[{"id":"\ud800"}]}'))
  fails('invalid_utf8', () => new Router({ algorithm: 'ring', nodes: [{ id: '\ud800' }] }))
  for (const n of [undefined, '2', 1n, null]) fails('invalid_type', () => ring.replicas('k', n))
  for (const n of [-1, 1.5, NaN, Infinity]) fails('invalid_parameter', () => ring.replicas('k', n))
  for (const h of [1, '1', undefined]) fails('invalid_type', () => ring.routeHash(h))
  for (const h of [-1n, 2n ** 64n]) fails('invalid_key', () => ring.routeHash(h))
  for (const keys of ['abc', new Uint8Array(3), 42, undefined, null]) fails('invalid_type', () => ring.routeMany(keys))
  fails('invalid_type', () => ring.routeMany(['a', 1]))
  assert.throws(() => ring.routeMany(['a', 'b', 1]), (e) => e.keyIndex === 2)
  fails('invalid_type', () => ring.routeBatch('abc', new Uint32Array([0, 3])))
  fails('invalid_type', () => ring.routeBatch(new Uint8Array(3), [0, 3]))
  fails('invalid_type', () => ring.routeBatch(new Uint8Array(3), new Uint32Array([0, 3]), [0]))
  fails('invalid_parameter', () => ring.routeBatch(new Uint8Array(3), new Uint32Array([0, 4])))
  fails('invalid_parameter', () => ring.routeBatch(new Uint8Array(3), new Uint32Array([2, 1])))
  assert.deepEqual(ring.routeBatch(new Uint8Array(0), new Uint32Array(0)), new Uint32Array(0))
  // Offsets and out whose memory is gone (detached, or out of bounds after their resizable
  // buffer shrank) are refused with a typed error on both backends, never routed as empty.
  const packed = new Uint8Array([0x61, 0x62, 0x63])
  const detachedU32 = (values) => {
    const view = new Uint32Array(values)
    structuredClone(view.buffer, { transfer: [view.buffer] })
    return view
  }
  const shrunkU32 = (values) => {
    const buffer = new ArrayBuffer(values.length * 4, { maxByteLength: 64 })
    const view = new Uint32Array(buffer, 0, values.length)
    view.set(values)
    buffer.resize(0)
    return view
  }
  for (const [what, gone] of [['detached', detachedU32], ['shrunk', shrunkU32]]) {
    fails('invalid_parameter', () => ring.routeBatch(packed, gone([0, 1, 3])), `${what} offsets`)
    fails('invalid_parameter', () => ring.routeBatch(packed, new Uint32Array([0, 1, 3]), gone([0, 0])), `${what} out`)
  }
  const tracking = new ArrayBuffer(12, { maxByteLength: 64 })
  new Uint32Array(tracking).set([0, 1, 3])
  tracking.resize(8)
  assert.deepEqual(Array.from(ring.routeBatch(packed, new Uint32Array(tracking))), [ring.routeIndex('a')], 'a length-tracking view that shrank is its new length')
  // A Proxy is not a typed array, whatever its traps do: invalid_type on both backends, the
  // trap's own exception never escapes.
  const trap = () => {
    throw new Error('a trap ran')
  }
  const hostile = (target) => new Proxy(target, { get: trap, getPrototypeOf: trap, has: trap, ownKeys: trap, getOwnPropertyDescriptor: trap })
  const quiet = (target) => new Proxy(target, {})
  for (const wrap of [hostile, quiet]) {
    fails('invalid_type', () => ring.route(wrap(new Uint8Array(3))), `${wrap.name} key`)
    fails('invalid_type', () => ring.keyHash(wrap(new Uint8Array(3))), `${wrap.name} key`)
    fails('invalid_type', () => ring.routeBatch(wrap(packed), new Uint32Array([0, 3])), `${wrap.name} data`)
    fails('invalid_type', () => ring.routeBatch(packed, wrap(new Uint32Array([0, 3]))), `${wrap.name} offsets`)
    fails('invalid_type', () => ring.routeBatch(packed, new Uint32Array([0, 3]), wrap(new Uint32Array(1))), `${wrap.name} out`)
  }
  // A share token is a number: anything else is invalid_type (the addon's argument conversion
  // used to escape as a napi NumberExpected error).
  for (const token of ['1', null, undefined, 1n, {}, [1]]) fails('invalid_type', () => Router.fromShared(token), `token ${typeof token}`)
  fails('invalid_type', () => new Transition(ring, {}, 0.5))
  for (const p of [-0.1, 1.1, NaN]) fails('invalid_parameter', () => new Transition(ring, ring, p))
  fails('invalid_spec', () => new Ring(['a'], { point: 40 }))
  fails('invalid_type', () => new Ring(['a'], 'options'))
  fails('invalid_type', () => new Ring('abc'))
  fails('invalid_type', () => new Ring(3))
  fails('invalid_spec', () => new keyroute.Libmemcached([7], { distribution: 'ketama' }))
  fails('invalid_spec', () => new keyroute.Libmemcached(['h:port'], { distribution: 'ketama' }))
  fails('invalid_spec', () => keyroute.redisSlot('k', { rule: 'other' }))
  fails('invalid_type', () => keyroute.redisSlot(7))
})
