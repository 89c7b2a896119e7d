// The JavaScript conformance runner: every vector file of conformance/vectors/v1 through the JS
// API (lib/conformance.js, which the `keyroute-conformance` command runs too: specs as objects,
// as JSON text and as bytes, under the case's limits; keys as strings, bytes, UTF-16 text and
// values of other types), by key, by `routeMany` and by the packed `routeBatch`. The loading
// contract is the other runners': a missing or empty corpus fails, as does a file whose spec
// does not build. Cases only the CLI reads (`spec_toml`) are counted as
// not for this surface; every other case must give what the file says.

import assert from 'node:assert/strict'
import test from 'node:test'

import { caseKey, caseRunner } from '../lib/conformance.js'
import { backend, inBrowser, keyroute, loadCorpus } from './setup.js'

const { Router, KeyrouteError } = keyroute
const { runFile } = caseRunner(keyroute)

/** The key's bytes for the packed path (text as UTF-8), or null for ill-formed UTF-16. */
function keyBytes(key) {
  if (typeof key !== 'string') return key
  return key.isWellFormed() ? new TextEncoder().encode(key) : null
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
    for (const { outcome, message } of runFile({ name, doc })) {
      if (outcome === 'passed') cases++
      if (outcome === 'failed') failures.push(message)
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
