// The node-argument catalogue (conformance/node-args.json) through the JavaScript constructors:
// every argument gives the ids or the error the catalogue lists, as on every surface. Also
// Router.fromFile and errors that name the fix.

import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import test from 'node:test'

import { backend, keyroute } from './setup.js'

const { Router, Ring, Jump, Libmemcached, RedisCluster } = keyroute
const catalogue = JSON.parse(readFileSync(new URL('../../conformance/node-args.json', import.meta.url), 'utf8'))
const build = {
  nodes: (n) => new Ring(n),
  buckets: (n) => new Jump(n),
  servers: (n) => new Libmemcached(n, { distribution: 'ketama_weighted' }),
  slot_ranges: (n) => new RedisCluster(n),
}

for (const c of catalogue.cases) {
  test(`node argument ${c.id}`, () => {
    if (c.error) {
      assert.throws(() => build[c.form](c.nodes), (e) => e.kind === c.error || assert.fail(`${e.kind}: ${e.message}`))
    } else {
      assert.deepEqual([...build[c.form](c.nodes).nodes], c.ids)
    }
  })
}

test('JavaScript forms read as their JSON: a Map keeps its order, NaN is null', () => {
  assert.deepEqual([...new Ring(new Map([['b', 2], ['a', 1]])).nodes], ['b', 'a'])
  assert.throws(() => new Ring({ a: NaN }), (e) => e.kind === 'invalid_spec')
  assert.throws(() => new Jump(NaN), (e) => e.kind === 'invalid_spec')
  assert.throws(() => new Ring(NaN), (e) => e.kind === 'invalid_type')
  assert.throws(() => new Jump(3n), (e) => e.kind === 'invalid_type')
  assert.throws(() => new Ring([{ id: 'a', weight: 1n }]), (e) => e.kind === 'invalid_spec')
})

test('errors name the fix, and a spec object gets no line and column', () => {
  assert.throws(() => new Router({ algorithm: 'rnig', nodes: [{ id: 'a' }] }), /did you mean "ring"\?/)
  assert.throws(
    () => new Router({ algorithm: 'ring', nodes: [{ id: 'a' }, { id: 'b', weight: '2' }] }),
    (e) => e.message.startsWith('nodes[1].weight must be an integer from 0 to 4294967295, not the string "2"'),
  )
  assert.throws(() => new Ring(['a', 'b', 'a']), /repeats the id "a" of nodes\[0\]/)
})

test('Router.fromFile: JSON or TOML on the addon; the WebAssembly build reads no files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'keyroute-file-'))
  writeFileSync(join(dir, 'a.json'), '{"algorithm":"ring","nodes":[{"id":"a"},{"id":"b"}]}')
  writeFileSync(join(dir, 'a.toml'), 'algorithm = "ring"\nnodes = [{ id = "a" }, { id = "b" }]\n')
  writeFileSync(join(dir, 'bad.toml'), 'algorithm = \n')
  if (backend === 'wasm') {
    assert.throws(() => Router.fromFile(join(dir, 'a.json')), (e) => e.kind === 'io' && /needs the Node addon/.test(e.message))
    return
  }
  const a = Router.fromFile(join(dir, 'a.json'))
  assert.equal(a.fingerprint, Router.fromFile(join(dir, 'a.toml')).fingerprint)
  assert.throws(() => Router.fromFile(join(dir, 'missing.json')), (e) => e.kind === 'io' && e.message.includes('missing.json'))
  assert.throws(() => Router.fromFile(join(dir, 'bad.toml')), (e) => e.kind === 'invalid_toml' && /line 1, column \d+: not valid TOML/.test(e.message))
  assert.throws(() => Router.fromFile(42), (e) => e.kind === 'invalid_type')
})
