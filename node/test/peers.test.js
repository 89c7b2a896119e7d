// keyroute against the real npm peers, live, over 100,000 random keys per configuration (ASCII
// and non-ASCII): the `npm-hashring` preset against hashring 3.2.0, and `redisSlot` against
// cluster-key-slot 1.1.2 (and Redis's own rule where the two differ). Node.js only (the peers
// are npm packages).

import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import test from 'node:test'

import { randomKeys } from './keys.js'
import { keyroute } from './setup.js'

const require = createRequire(import.meta.url)
const HashRing = require('hashring')
const clusterKeySlot = require('cluster-key-slot')
const { NpmHashring, redisSlot } = keyroute

const KEYS = randomKeys(100_000)

/** hashring's constructor arguments and the equivalent keyroute preset. */
const CONFIGS = [
  ['3 equal servers', ['10.0.0.1:11211', '10.0.0.2:11211', '10.0.0.3:11211'], {}],
  ['weighted {server: weight}', { '10.0.0.1:11211': 1, '10.0.0.2:11211': 3, '10.0.0.3:11211': 2 }, {}],
  ['weighted {server: {weight}}', { 'a:1': { weight: 2 }, 'b:2': { weight: 5 }, 'c:3': 1 }, {}],
  ['7 equal servers (39 vnodes each)', Array.from({ length: 7 }, (_, i) => `cache-${i}:11211`), {}],
  ['vnode count 100', ['x:1', 'y:1', 'z:1'], { 'vnode count': 100 }],
  ["compatibility 'hash_ring'", ['x:1', 'y:1', 'z:1'], { compatibility: 'hash_ring' }],
  ['replicas 2', ['x:1', 'y:1', 'z:1'], { replicas: 2 }],
  ['replicas 0 (as 1)', ['x:1', 'y:1', 'z:1'], { replicas: 0 }],
  ['default port 11211', ['10.0.0.1:11211', '10.0.0.2:11212', '10.0.0.3:11211'], { 'default port': 11211 }],
  ['one server', ['solo:11211'], {}],
]

function preset(servers, options) {
  const nodes = typeof servers === 'string' ? [servers] : Array.isArray(servers) ? servers.map((id) => ({ id })) : Object.entries(servers).map(([id, w]) => ({ id, weight: typeof w === 'object' ? w.weight : w }))
  let replicas = options.compatibility ? (options.compatibility === 'hash_ring' ? 3 : 4) : 'replicas' in options ? +options.replicas : 4
  if (replicas <= 0) replicas = 1
  return new NpmHashring(nodes, { vnodeCount: options['vnode count'], replicas, defaultPort: options['default port'] })
}

for (const [label, servers, options] of CONFIGS) {
  test(`npm hashring 3.2.0, ${label}: ${KEYS.length} keys identical`, () => {
    const peer = new HashRing(servers, 'md5', { ...options, 'max cache size': 1 })
    const ours = preset(servers, options)
    let checked = 0
    for (const key of KEYS) {
      assert.equal(ours.route(key), peer.get(key), key)
      checked++
    }
    assert.equal(checked, KEYS.length)
    for (const key of KEYS.slice(0, 5000)) {
      const n = Math.min(3, ours.size)
      assert.deepEqual(ours.replicas(key, n), peer.range(key, n), `range ${key}`)
    }
  })
}

test(`cluster-key-slot 1.1.2 and Redis: ${KEYS.length} keys`, () => {
  let differ = 0
  for (const key of KEYS) {
    assert.equal(redisSlot(key, { rule: 'cluster_key_slot' }), clusterKeySlot(key), key)
    const bytes = Buffer.from(key)
    assert.equal(redisSlot(bytes, { rule: 'cluster_key_slot' }), clusterKeySlot(bytes), `bytes ${key}`)
    if (redisSlot(key) !== clusterKeySlot(key)) {
      differ++
      assert.match(key, /\{\}/, `Redis and cluster-key-slot differ only after an empty {}: ${key}`)
    }
  }
  assert.ok(differ > 0, 'the corpus has keys where the two rules differ')
})
