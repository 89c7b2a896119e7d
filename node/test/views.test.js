// Live views on every backend (the addon, WebAssembly in Node and in Chromium): a LiveView
// applying and refusing documents, as a page hands them in; on WebAssembly, the sources reject
// with IoError. The addon's sources (files, etcd, the census) are in sources.test.js.

import assert from 'node:assert/strict'
import test from 'node:test'

import { backend, keyroute } from './setup.js'

const spec = (nodes) => ({ algorithm: 'ring', nodes: nodes.map((id) => ({ id })) })
const doc = (version, nodes, to, progress = 0) =>
  JSON.stringify({ version, spec: spec(nodes), ...(to ? { rollout: { to: spec(to), progress } } : {}) })
const keys = Array.from({ length: 1000 }, (_, i) => `user:${i}`)


test(`a live view applies newer versions and refuses the rest (${backend})`, () => {
  const view = new keyroute.LiveView()
  assert.deepEqual([view.version, view.fingerprint, view.progress, view.appliedAt, view.lastRefusal, view.refusals], [null, null, null, null, null, 0])
  assert.throws(() => view.route('user:42'), keyroute.NoViewError)
  assert.equal(view.publish(doc(1, ['a', 'b', 'c'])), 1)
  const router = new keyroute.Router(spec(['a', 'b', 'c']))
  assert.equal(view.fingerprint, router.fingerprint.toString(16).padStart(16, '0'), 'the text form, as in every document')
  assert.match(view.fingerprint, /^[0-9a-f]{16}$/)
  assert.ok(view.appliedAt instanceof Date)
  assert.deepEqual(keys.map((k) => view.route(k)), keys.map((k) => router.route(k)))
  assert.equal(view.route(new TextEncoder().encode('user:7')), router.route('user:7'), 'bytes route as their text')
  assert.throws(() => view.publish(doc(1, ['a', 'b'])), keyroute.StaleVersionError)
  assert.throws(() => view.publish({ version: 2, spec: spec(['a', 'a']) }), keyroute.DuplicateNodeIdError)
  assert.deepEqual([view.lastRefusal.version, view.lastRefusal.error], [2, 'duplicate_node_id'])
  assert.throws(() => view.publish('{"version": 2, "spec": '), keyroute.KeyrouteError)
  assert.throws(() => view.publish(42), keyroute.InvalidTypeError)
  assert.deepEqual([view.version, view.refusals], [1, 3], 'the last good view stays; each refusal counts')
  assert.deepEqual(keys.map((k) => view.route(k)), keys.map((k) => router.route(k)))
  // A rollout half way: keys that cut over name their previous owner, and route to the new node.
  assert.equal(view.publish(doc(3, ['a', 'b', 'c'], ['a', 'b', 'c', 'd'], 0.5)), 3)
  assert.equal(view.progress, 0.5)
  const moved = keys.filter((k) => view.routeWithFallback(k).previous !== null)
  assert.ok(moved.length > 0 && moved.every((k) => view.route(k) === 'd'))
  assert.ok(moved.every((k) => view.ends(k).to === 'd' && view.ends(k).from === router.route(k)))
  assert.deepEqual(view.ends('user:1').from, router.route('user:1'))
  assert.equal(JSON.parse(view.documentJson()).version, 3)
  // The document a view gives back is one every surface loads.
  const copy = new keyroute.LiveView()
  copy.publish(view.documentJson())
  assert.equal(copy.fingerprint, view.fingerprint)
  assert.deepEqual(keys.map((k) => copy.route(k)), keys.map((k) => view.route(k)))
  assert.throws(() => new keyroute.LiveView({ limits: { max_nodes: 'x' } }), keyroute.KeyrouteError)
})

if (backend === 'wasm') {
  test('sources need the addon: watch, publishView and fleetStatus reject with IoError (wasm)', async () => {
    const view = new keyroute.LiveView()
    await assert.rejects(keyroute.watch('/tmp/view.json', view), keyroute.IoError)
    await assert.rejects(keyroute.publishView('/tmp/view.json', doc(1, ['a']), { expectVersion: 0 }), keyroute.IoError)
    await assert.rejects(keyroute.fleetStatus('/tmp/view.json'), keyroute.IoError)
  })
}
