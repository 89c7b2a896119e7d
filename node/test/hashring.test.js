// `keyroute/hashring`, the drop-in for npm hashring 3.x, against the real hashring 3.2.0, live:
// every constructor form and option it claims, and sequences of add, remove and swap, over
// 100,000 random keys each (get and range). Node addon only: the drop-in is for Node.

import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import test from 'node:test'

import HashRing from '../lib/hashring.js'
import { InvalidParameterError, InvalidTypeError } from '../lib/index.js'
import { randomKeys } from './keys.js'

const require = createRequire(import.meta.url)
const Real = require('hashring')
const KEYS = randomKeys(100_000, 7)

function same(ours, peer, label, keys = KEYS) {
  for (const key of keys) assert.equal(ours.get(key), peer.get(key), `${label}: ${key}`)
  for (const key of keys.slice(0, 3000)) {
    assert.deepEqual(ours.range(key), peer.range(key), `${label}: range ${key}`)
    assert.deepEqual(ours.range(key, 2), peer.range(key, 2), `${label}: range 2 ${key}`)
  }
}

const FORMS = [
  ['a string', '10.0.0.1:11211', undefined],
  ['an array', ['10.0.0.1:11211', '10.0.0.2:11211', '10.0.0.3:11211'], undefined],
  ['{server: weight}', { 'a:1': 1, 'b:2': 4, 'c:3': 2 }, undefined],
  ['{server: {weight}}', { 'a:1': { weight: 3 }, 'b:2': { weight: 1 } }, undefined],
  ['weight 0 counts as 1', { 'a:1': 0, 'b:2': 1 }, undefined],
  ['vnode count', ['a:1', 'b:1', 'c:1'], { 'vnode count': 64 }],
  ['compatibility', ['a:1', 'b:1', 'c:1'], { compatibility: 'hash_ring' }],
  ['replicas', ['a:1', 'b:1', 'c:1'], { replicas: 3 }],
  ['default port', ['a:11211', 'b:11212', 'c:11211'], { 'default port': 11211 }],
  ['default port given as text (never matches)', ['a:11211', 'b:11212'], { 'default port': '11211' }],
]

for (const [label, servers, options] of FORMS) {
  test(`HashRing(${label}) routes as hashring 3.2.0`, () => {
    same(new HashRing(servers, 'md5', options), new Real(servers, 'md5', options), label)
  })
}

test('add, remove and swap sequences route as hashring 3.2.0', () => {
  const servers = ['10.0.0.1:11211', '10.0.0.2:11211', '10.0.0.3:11211']
  const ours = new HashRing(servers)
  const peer = new Real(servers)
  const steps = [
    (r) => r.add('10.0.0.4:11211'),
    (r) => r.add({ '10.0.0.5:11211': 3 }),
    (r) => r.add(['10.0.0.1:11211', '10.0.0.6:11211']),
    (r) => r.remove('10.0.0.2:11211'),
    (r) => r.swap('10.0.0.3:11211', '10.0.0.9:11211'),
    (r) => r.add('10.0.0.7:11211'),
    (r) => r.swap('10.0.0.4:11211', '10.0.0.8:11211'),
    (r) => r.remove('10.0.0.8:11211'),
  ]
  const keys = KEYS.slice(0, 20_000)
  steps.forEach((step, i) => {
    step(ours)
    step(peer)
    same(ours, peer, `after step ${i + 1}`, keys)
    for (const s of ['10.0.0.3:11211', '10.0.0.9:11211', '10.0.0.4:11211', '10.0.0.8:11211', '10.0.0.1:11211']) {
      assert.equal(ours.has(s), peer.has(s), `has(${s}) after step ${i + 1}`)
    }
  })
  ours.reset()
  peer.reset()
  assert.equal(ours.get('k'), peer.get('k'))
  assert.deepEqual(ours.range('k'), peer.range('k'))
  ours.continuum()
  peer.continuum()
  same(ours, peer, 'after reset and continuum', keys)
  ours.end()
  peer.end()
  assert.equal(ours.get('k'), undefined)
  assert.equal(peer.get('k'), undefined)
})

test('what the drop-in does not cover is refused, not approximated', () => {
  assert.throws(() => new HashRing(['a:1'], 'sha1'), InvalidParameterError)
  assert.throws(() => new HashRing({ 'a:1': { weight: 1, vnodes: 50 } }), InvalidParameterError)
  assert.throws(() => new HashRing({ 'a:1': 1.5 }), InvalidParameterError)
  assert.throws(() => new HashRing(['a:1'], 'md5', { replicas: 5 }), (e) => e.kind === 'invalid_parameter')
  assert.throws(() => new HashRing(['a:1']).range('k', 2, false), InvalidParameterError)
  assert.throws(() => new HashRing([7]), InvalidTypeError)
  assert.throws(() => new HashRing(['a:1']).get('\ud800'), (e) => e.kind === 'invalid_utf8')
})

// Weights are read as hashring reads them, `+weight || 1`; what that reading turns into a broken
// ring in hashring, or cannot make a number of, is refused with a keyroute error (issue 22: NaN
// and '5' were taken, -1 and Infinity refused, with no rule said).
const READ_AS_HASHRING = [
  ['NaN', NaN, 1],
  ["'5'", '5', 5],
  ['0', 0, 1],
  ['-0', -0, 1],
  ["''", '', 1],
  ['undefined', undefined, 1],
  ['true', true, 1],
  ["'abc'", 'abc', 1],
  ["' 7 '", ' 7 ', 7],
  ["'0x10'", '0x10', 16],
]

for (const [label, weight, read] of READ_AS_HASHRING) {
  test(`weight ${label} is read as ${read}, and routes as hashring 3.2.0`, () => {
    const servers = { 'a:1': weight, 'b:2': 2, 'c:3': 1 }
    const ours = new HashRing(servers)
    assert.equal(ours.servers[0].weight, read)
    same(ours, new Real(servers), `weight ${label}`, KEYS.slice(0, 5000))
    // The same in the {server: {weight}} form.
    const objects = { 'a:1': { weight }, 'b:2': { weight: 2 } }
    same(new HashRing(objects), new Real(objects), `{weight: ${label}}`, KEYS.slice(0, 5000))
  })
}

test('weights hashring makes a broken ring of, or that are not whole, are refused with invalid_parameter', () => {
  // hashring 3.2.0: Infinity gives a ring with no points (every get is undefined); -1 beside a
  // weight of 1 loops until the heap is exhausted; -1 among more servers gives that server no
  // points and skews the others.
  for (const weight of [-1, '-1', -0.5, Infinity, -Infinity, '1e400', 1.5, '2.5', 2 ** 32, Number.MAX_VALUE]) {
    for (const servers of [{ 'a:1': weight, 'b:2': 1 }, { 'a:1': { weight }, 'b:2': 1 }]) {
      assert.throws(
        () => new HashRing(servers),
        (e) => e instanceof InvalidParameterError && e.code === 'KR_INVALID_PARAMETER' && /whole numbers/.test(e.message),
        String(weight),
      )
    }
    assert.throws(() => new HashRing(['b:2']).add({ 'a:1': weight }), InvalidParameterError, `add ${weight}`)
  }
  // A weight object's valueOf is how JavaScript makes a number of it, as in hashring.
  const three = { 'a:1': { weight: { valueOf: () => 3 } }, 'b:2': 1 }
  assert.equal(new HashRing(three).servers[0].weight, 3)
  same(new HashRing(three), new Real(three), 'valueOf', KEYS.slice(0, 5000))
  // The largest weight is taken.
  assert.equal(new HashRing({ 'a:1': 0xffffffff, 'b:2': 1 }).servers[0].weight, 0xffffffff)
})

test('weights JavaScript cannot make a number of, and null, are refused with invalid_type', () => {
  // hashring 3.2.0 throws a bare TypeError for each.
  const throwing = {
    valueOf() {
      throw new Error('no number here')
    },
  }
  for (const [label, servers] of [
    ['a BigInt', { 'a:1': 5n }],
    ['a Symbol', { 'a:1': Symbol('w') }],
    ['a BigInt in {weight}', { 'a:1': { weight: 5n } }],
    ['a throwing valueOf', { 'a:1': { weight: throwing } }],
    ['null', { 'a:1': null }],
    ['BigInt vnodes', { 'a:1': { weight: 1, vnodes: 5n } }],
  ]) {
    // (hashring lets a throwing valueOf's own error through.)
    assert.throws(() => new Real(servers), label === 'a throwing valueOf' ? /no number here/ : TypeError, label)
    assert.throws(
      () => new HashRing(servers),
      (e) => e instanceof InvalidTypeError && e.code === 'KR_INVALID_TYPE',
      label,
    )
  }
})

test("require('keyroute/hashring') is the constructor, as require('hashring') is", () => {
  // Code written for `var HashRing = require('hashring')` (the memcached client's) works as is.
  const Required = require('keyroute/hashring')
  assert.equal(typeof Required, 'function')
  assert.equal(Required, HashRing)
  assert.equal(Required.HashRing, HashRing)
  assert.equal(Required.default, HashRing)
  const ring = new Required(['a:1', 'b:2', 'c:3'])
  const peer = new Real(['a:1', 'b:2', 'c:3'])
  same(ring, peer, 'required', KEYS.slice(0, 2000))
  // hashring's own version is its release; ours is the release it reproduces.
  assert.equal(Real.version, '3.2.0')
  assert.equal(Required.version, Real.version)
})

test('find, points and hashValue are refused with invalid_parameter, as documented', () => {
  const ring = new HashRing(['a:1', 'b:2'])
  for (const [name, call] of [
    ['find', () => ring.find(12345)],
    ['points', () => ring.points()],
    ['hashValue', () => ring.hashValue('k')],
  ]) {
    assert.throws(
      call,
      (e) =>
        e instanceof InvalidParameterError &&
        e.code === 'KR_INVALID_PARAMETER' &&
        e.message.includes(`HashRing#${name} is not supported by keyroute/hashring`),
      name,
    )
  }
})
