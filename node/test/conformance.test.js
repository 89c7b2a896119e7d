// The JavaScript conformance runner: every vector file of conformance/vectors/v1 through the JS
// API (specs as objects, as JSON text and as bytes, under the case's limits; keys as strings,
// bytes, UTF-16 text and values of other types), by key, by `routeMany` and by the packed
// `routeBatch`. The loading contract is the other runners': a missing or empty corpus fails, as
// does a file whose spec does not build. Cases only the CLI reads (`spec_toml`) are counted as
// not for this surface; every other case must give what the file says.

import assert from 'node:assert/strict'
import test from 'node:test'

import { backend, inBrowser, keyroute, loadCorpus } from './setup.js'

const { Router, KeyrouteError } = keyroute

function hexBytes(hex) {
  const out = new Uint8Array(hex.length / 2)
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16)
  return out
}

/**
 * `head` + `unit` × `times` + `tail` (absent parts are empty), for documents and keys too large
 * to store: text as a string, or bytes (a Uint8Array) when `hex` is true.
 */
function repeat(r) {
  if (!r.hex) return (r.head ?? '') + (r.unit ?? '').repeat(r.times ?? 0) + (r.tail ?? '')
  const [head, unit, tail] = [r.head, r.unit, r.tail].map((h) => hexBytes(h ?? ''))
  const times = r.times ?? 0
  const out = new Uint8Array(head.length + unit.length * times + tail.length)
  out.set(head, 0)
  for (let i = 0, at = head.length; i < times; i++, at += unit.length) out.set(unit, at)
  out.set(tail, head.length + unit.length * times)
  return out
}

/** Keys of the types a dynamic surface must refuse (`key_type`). */
const KEY_TYPES = { int: 42, float: 1.5, null: null, list: [], object: {}, bool: true }

/**
 * The case's key as a JavaScript value: text, bytes, UTF-16 text (maybe ill-formed), a long
 * repeated key, or a value of another type; undefined when the case has none.
 */
function caseKey(c) {
  if ('key' in c) return c.key
  if ('key_hex' in c) return hexBytes(c.key_hex)
  if ('key_utf16' in c) return String.fromCharCode(...c.key_utf16)
  if ('key_repeat' in c) return repeat(c.key_repeat)
  if ('key_type' in c) {
    assert.ok(Object.hasOwn(KEY_TYPES, c.key_type), `unknown key_type ${c.key_type}`)
    return KEY_TYPES[c.key_type]
  }
  return undefined
}

/**
 * The case's own spec as the JS API takes it: an object (`spec`), JSON text (`spec_json`, or
 * `spec_repeat` as text), or raw bytes (`spec_hex`, `spec_repeat` as hex: not UTF-8 on purpose,
 * so never decoded to a string, which would replace the bad bytes); undefined for the file's.
 */
function caseSpec(c) {
  if ('spec' in c) return c.spec
  if ('spec_json' in c) return c.spec_json
  if ('spec_hex' in c) return hexBytes(c.spec_hex)
  if ('spec_repeat' in c) return repeat(c.spec_repeat)
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

/** Builds the case's spec under its limits, or throws what the constructor threw. */
function build(spec, c) {
  return 'limits' in c ? new Router(spec, { limits: c.limits }) : new Router(spec)
}

/** Runs one case; false when it is not for this surface (`spec_toml`: the CLI's). */
function runCase(fileRouter, c, where) {
  if ('spec_toml' in c) return false
  let router = fileRouter
  const spec = caseSpec(c)
  if (spec !== undefined) {
    try {
      router = build(spec, c)
    } catch (e) {
      if (!('error' in c)) throw e
      expectError(c, e, where)
      // JSON text gives the same verdict as its UTF-8 bytes.
      if (typeof spec === 'string' && spec.length < 1 << 16) {
        assert.throws(() => build(new TextEncoder().encode(spec), c), (e) => (expectError(c, e, `${where} (bytes)`), true))
      }
      return true
    }
    if (typeof spec === 'string' && spec.length < 1 << 16) {
      assert.ok(router.equals(build(new TextEncoder().encode(spec), c)), `${where}: the spec's bytes build the same router`)
    }
  }
  assert.ok(router, `${where}: no spec`)
  const key = caseKey(c)
  assert.ok(key !== undefined, `${where}: no key`)
  if ('replicas_count' in c) {
    assert.throws(() => router.replicas(key, c.replicas_count), (e) => (expectError(c, e, where), true))
    return true
  }
  let node
  try {
    node = router.route(key)
  } catch (e) {
    if (!('error' in c)) throw new Error(`${where}: ${e.message}`)
    expectError(c, e, where)
    return true
  }
  assert.ok(!('error' in c), `${where}: expected ${c.error}, got ${node}`)
  assert.equal(node, c.node, where)
  if ('slot' in c) assert.equal(router.slot(key), c.slot, `${where} slot`)
  if ('replicas' in c) assert.deepEqual(router.replicas(key, c.replicas.length), c.replicas, `${where} replicas`)
  return true
}

const corpus = await loadCorpus()

test('the corpus is there', () => {
  assert.ok(corpus.length >= 100, `only ${corpus.length} vector files`)
})

const where = `the ${backend} backend${inBrowser ? ' in Chromium' : ''}`

test(`every vector file passes on the ${backend} backend`, () => {
  let cases = 0
  const failures = []
  const hostile = { passed: 0, failed: 0, skipped: 0 }
  for (const { name, doc } of corpus) {
    assert.equal(`${doc.id}.json`, name)
    const fileRouter = doc.spec ? new Router(doc.spec) : null
    if (fileRouter) assert.ok(fileRouter.equals(new Router(JSON.stringify(doc.spec))), `${name}: object and text specs agree`)
    const ids = new Set()
    for (const c of doc.cases) {
      assert.ok(!ids.has(c.id), `${name}: case id ${c.id} is not unique`)
      ids.add(c.id)
      let outcome
      try {
        outcome = runCase(fileRouter, c, `${name} ${c.id}`) ? 'passed' : 'skipped'
      } catch (e) {
        outcome = 'failed'
        failures.push(e?.message ?? String(e))
      }
      if (outcome === 'passed') cases++
      if (name === 'hostile.json') hostile[outcome]++
    }
  }
  if (corpus.some(({ name }) => name === 'hostile.json')) {
    console.log(
      `hostile.json on ${where}: ${hostile.passed} passed, ${hostile.failed} failed, ` +
        `${hostile.skipped} not for this surface (spec_toml: the CLI's)`,
    )
  }
  console.log(`the corpus on ${where}: ${cases} cases passed, ${failures.length} failed`)
  assert.deepEqual(failures.slice(0, 40), [], `${failures.length} cases failed`)
  assert.ok(cases > 20000, `only ${cases} cases ran`)
})

test('the hostile-input catalogue is in the corpus, and every case of it runs here but the CLI\'s', () => {
  const doc = corpus.find(({ name }) => name === 'hostile.json')?.doc
  assert.ok(doc, 'no hostile.json in the corpus')
  const cli = doc.cases.filter((c) => 'spec_toml' in c)
  assert.ok(doc.cases.length >= 150 && cli.length < 10, `${doc.cases.length} cases, ${cli.length} for the CLI alone`)
  assert.ok(doc.cases.filter((c) => 'key_type' in c).length >= 6, 'the key_type cases are run here')
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
