// The JavaScript conformance runner: every vector file of conformance/vectors/v1 through the JS
// API (specs as objects and as JSON text, keys as strings, bytes and UTF-16 text), by key, by
// `routeMany` and by the packed `routeBatch`. The loading contract is the other runners': a
// missing or empty corpus fails, as does a file whose spec does not build.

import assert from 'node:assert/strict'
import test from 'node:test'

import { backend, keyroute, loadCorpus } from './setup.js'

const { Router, KeyrouteError } = keyroute

function hexBytes(hex) {
  const out = new Uint8Array(hex.length / 2)
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16)
  return out
}

/** The case's key as a JavaScript value: text, bytes, or UTF-16 text (maybe ill-formed). */
function caseKey(c) {
  if ('key' in c) return c.key
  if ('key_hex' in c) return hexBytes(c.key_hex)
  if ('key_utf16' in c) return String.fromCharCode(...c.key_utf16)
  return undefined
}

/** The key's bytes for the packed path (text as UTF-8), or null for ill-formed UTF-16. */
function keyBytes(key) {
  if (typeof key !== 'string') return key
  return key.isWellFormed() ? new TextEncoder().encode(key) : null
}

function expectError(c, e, where) {
  assert.ok(e instanceof KeyrouteError, `${where}: not a KeyrouteError: ${e}`)
  assert.equal(e.kind, c.error, `${where}: ${e.message}`)
  assert.equal(e.errno, c.code, where)
}

function runCase(fileRouter, c, where) {
  let router = fileRouter
  const spec = c.spec ?? c.spec_json
  if (spec !== undefined) {
    try {
      router = new Router(spec)
    } catch (e) {
      if (!('error' in c)) throw e
      return expectError(c, e, where)
    }
  }
  assert.ok(router, `${where}: no spec`)
  const key = caseKey(c)
  assert.ok(key !== undefined, `${where}: no key`)
  if ('replicas_count' in c) {
    assert.throws(() => router.replicas(key, c.replicas_count), (e) => (expectError(c, e, where), true))
    return
  }
  let node
  try {
    node = router.route(key)
  } catch (e) {
    if (!('error' in c)) throw new Error(`${where}: ${e.message}`)
    return expectError(c, e, where)
  }
  assert.ok(!('error' in c), `${where}: expected ${c.error}, got ${node}`)
  assert.equal(node, c.node, where)
  if ('slot' in c) assert.equal(router.slot(key), c.slot, `${where} slot`)
  if ('replicas' in c) assert.deepEqual(router.replicas(key, c.replicas.length), c.replicas, `${where} replicas`)
}

const corpus = await loadCorpus()

test('the corpus is there', () => {
  assert.ok(corpus.length >= 100, `only ${corpus.length} vector files`)
})

test(`every vector file passes on the ${backend} backend`, () => {
  let cases = 0
  for (const { name, doc } of corpus) {
    assert.equal(`${doc.id}.json`, name)
    const fileRouter = doc.spec ? new Router(doc.spec) : null
    if (fileRouter) assert.ok(fileRouter.equals(new Router(JSON.stringify(doc.spec))), `${name}: object and text specs agree`)
    for (const c of doc.cases) {
      runCase(fileRouter, c, `${name} ${c.id}`)
      cases++
    }
  }
  assert.ok(cases > 20000, `only ${cases} cases ran`)
})

test('routeMany and the packed routeBatch agree with the vectors', () => {
  let routed = 0
  for (const { name, doc } of corpus) {
    if (!doc.spec) continue
    const router = new Router(doc.spec)
    const ok = doc.cases.filter((c) => 'node' in c && !('spec' in c))
    const keys = ok.map(caseKey)
    assert.deepEqual(router.routeMany(keys), ok.map((c) => c.node), `${name}: routeMany`)
    const bytes = keys.map(keyBytes)
    const offsets = new Uint32Array(bytes.length + 1)
    for (let i = 0; i < bytes.length; i++) offsets[i + 1] = offsets[i] + bytes[i].length
    const data = new Uint8Array(offsets[bytes.length])
    bytes.forEach((b, i) => data.set(b, offsets[i]))
    const nodes = Array.from(router.routeBatch(data, offsets), (i) => router.nodes[i])
    assert.deepEqual(nodes, ok.map((c) => c.node), `${name}: routeBatch`)
    // A refused key in a batch is named by its position.
    const bad = doc.cases.findIndex((c) => 'error' in c && !('spec' in c) && !('replicas_count' in c))
    if (bad >= 0) {
      const badKey = caseKey(doc.cases[bad])
      assert.throws(
        () => router.routeMany([...keys.slice(0, 3), badKey]),
        (e) => e instanceof KeyrouteError && e.keyIndex === Math.min(3, keys.length) && e.kind === doc.cases[bad].error,
      )
    }
    routed += keys.length
  }
  assert.ok(routed > 20000)
})
