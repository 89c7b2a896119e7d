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
