// Views' sources on the addon: watches of a file and of a real etcd (started here on 127.0.0.1)
// with the census, a refused document, publishers racing, and fleetStatus as the rollout gate.
// Waits poll with a generous timeout; nothing asserts a duration.

import assert from 'node:assert/strict'
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import test from 'node:test'

import { backend, keyroute } from './setup.js'

if (backend !== 'native') throw new Error('sources.test.js is for the addon (views.test.js covers WebAssembly)')

const WAIT_MS = 60_000
const spec = (nodes) => ({ algorithm: 'ring', nodes: nodes.map((id) => ({ id })) })
const doc = (version, nodes, to, progress = 0) =>
  JSON.stringify({ version, spec: spec(nodes), ...(to ? { rollout: { to: spec(to), progress } } : {}) })
const keys = Array.from({ length: 1000 }, (_, i) => `user:${i}`)

async function until(what, done) {
  const deadline = Date.now() + WAIT_MS
  for (;;) {
    const value = await done()
    if (value) return value
    if (Date.now() > deadline) assert.fail(`not ${what} within ${WAIT_MS / 1000} s`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

function writeAtomically(path, text) {
  const tmp = join(path, '..', `.tmp-${process.pid}`)
  writeFileSync(tmp, text)
  renameSync(tmp, path)
}

test('a watched file, its census, and a refused document', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'keyroute-node-view-'))
  try {
    const path = join(dir, 'view.json')
    writeAtomically(path, doc(1, ['a', 'b', 'c']))
    const view = new keyroute.LiveView()
    const w = await keyroute.watch(path, view, { census: true, instance: 'node-1', pollInterval: 0.05 })
    assert.deepEqual([w.running, w.instance, view.version], [true, 'node-1', 1], 'watch resolves once the first read is applied')
    let status = await until('in sync', async () => {
      const s = await keyroute.fleetStatus(path)
      return keyroute.converged(s) && s
    })
    const entry = status.instances[0]
    assert.deepEqual([entry.instance, entry.surface, entry.standing], ['node-1', 'node', 'sync'])
    assert.equal(entry.fingerprint, view.fingerprint)
    assert.equal(status.fingerprint, view.fingerprint)
    // A hand-written document that does not build: refused, and the census says so.
    writeAtomically(path, doc(2, []))
    await until('a refusal', () => view.refusals === 1)
    status = await until('refused', async () => {
      const s = await keyroute.fleetStatus(path)
      return s.instances[0]?.standing === 'refused' && s
    })
    assert.equal(status.problem.error, 'empty_topology')
    assert.equal(keyroute.converged(status), false)
    assert.equal(view.version, 1)
    assert.ok(['a', 'b', 'c'].includes(view.route('k')))
    writeAtomically(path, doc(3, ['a', 'b', 'c', 'd']))
    await until('version 3 applied', () => view.version === 3)
    await until('in sync again', async () => keyroute.converged(await keyroute.fleetStatus(path)))
    await w.stop()
    assert.equal(w.running, false)
    await w.stop()
    assert.deepEqual((await keyroute.fleetStatus(path)).instances, [], 'stopping leaves the census')
    // The file disappears while a watch runs: the view stays.
    const again = await keyroute.watch(path, view, { pollInterval: 0.05, first: 0 })
    rmSync(path)
    await new Promise((resolve) => setTimeout(resolve, 300))
    assert.equal(view.version, 3)
    assert.ok(['a', 'b', 'c', 'd'].includes(view.route('k')))
    await again.stop()
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test('an etcd source: publishers racing, three watches and the census by default ', async () => {
  const { startEtcd } = await import('./etcd.js')
  const etcd = await startEtcd()
  const watches = []
  try {
    const src = etcd.url('/keyroute/node')
    assert.equal(await keyroute.publishView(src, doc(1, ['a', 'b', 'c']), { expectVersion: 0 }), 1)
    await assert.rejects(keyroute.publishView(src, doc(2, ['a', 'b']), { expectVersion: 0 }), keyroute.VersionConflictError)
    await assert.rejects(keyroute.publishView(src, { version: 2, spec: spec(['a', 'a']) }, { expectVersion: 1 }), keyroute.DuplicateNodeIdError)
    await assert.rejects(keyroute.publishView(src, doc(2, ['a']), {}), keyroute.InvalidParameterError)
    // Two publishers racing with the same expected version: exactly one wins.
    const race = await Promise.allSettled([
      keyroute.publishView(src, doc(2, ['a', 'b', 'c', 'x']), { expectVersion: 1 }),
      keyroute.publishView(src, doc(2, ['a', 'b', 'c', 'y']), { expectVersion: 1 }),
    ])
    assert.deepEqual(race.map((r) => r.status).sort(), ['fulfilled', 'rejected'])
    assert.ok(race.find((r) => r.status === 'rejected').reason instanceof keyroute.VersionConflictError)
    const views = [0, 1, 2].map(() => new keyroute.LiveView())
    for (const [i, v] of views.entries()) watches.push(await keyroute.watch(src, v, { instance: `node-${i}`, censusTtl: 2 }))
    assert.ok(views.every((v) => v.version === 2))
    const status = await until('three in sync', async () => {
      const s = await keyroute.fleetStatus(src)
      return keyroute.converged(s) && s
    })
    assert.deepEqual(status.instances.map((i) => i.instance), ['node-0', 'node-1', 'node-2'])
    assert.ok(status.instances.every((i) => i.surface === 'node'))
    assert.equal(await keyroute.publishView(src, doc(3, ['a', 'b', 'c', 'd']), { expectVersion: 2 }), 3)
    await until('version 3 everywhere', () => views.every((v) => v.version === 3))
    const cli = new keyroute.Router(spec(['a', 'b', 'c', 'd']))
    assert.ok(views.every((v) => keys.every((k) => v.route(k) === cli.route(k))), 'every instance routes as version 3')
    await until('in sync at 3', async () => {
      const s = await keyroute.fleetStatus(src)
      return keyroute.converged(s) && s.version === 3
    })
  } finally {
    for (const w of watches) await w.stop()
  }
  try {
    await until('every entry gone', async () => (await keyroute.fleetStatus(etcd.url('/keyroute/node'))).instances.length === 0)
    await assert.rejects(keyroute.watch('etcd://127.0.0.1:2379', new keyroute.LiveView()), keyroute.KeyrouteError)
  } finally {
    await etcd.stop()
  }
})

test('a watch collected without stop() ends, and leaves the census', async () => {
  assert.equal(typeof globalThis.gc, 'function', 'run with node --expose-gc (node/test.sh and npm test do)')
  const dir = mkdtempSync(join(tmpdir(), 'keyroute-node-view-'))
  try {
    const path = join(dir, 'view.json')
    writeAtomically(path, doc(1, ['a', 'b']))
    const view = new keyroute.LiveView()
    const watching = async () => {
      const w = await keyroute.watch(path, view, { census: true, instance: 'node-gc', pollInterval: 0.05 })
      return w.instance
    }
    assert.equal(await watching(), 'node-gc')
    await until('registered', async () => (await keyroute.fleetStatus(path)).instances.length === 1)
    await until('collected, and out of the census', async () => {
      globalThis.gc()
      return (await keyroute.fleetStatus(path)).instances.length === 0
    })
    assert.equal(view.version, 1, 'the live view keeps its view')
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
