// The `keyroute-conformance` command (bin/): the corpus on each backend with filters and a
// JUnit report, a tampered vector fails with status 1 and is named in the report, and usage
// errors exit with 2. Run from the source checkout (the installed package is run by
// node/test.sh and scripts/dist/test-npm.sh).

import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import test from 'node:test'
import { fileURLToPath } from 'node:url'

const BIN = fileURLToPath(new URL('../bin/keyroute-conformance.js', import.meta.url))
const CORPUS = fileURLToPath(new URL('../../conformance/vectors/v1/', import.meta.url))

const run = (...args) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8' })
const work = mkdtempSync(join(tmpdir(), 'keyroute-conformance-'))
test.after(() => rmSync(work, { recursive: true, force: true }))

/** `<testcase>` elements of a report, with their failure message if any. */
function testcases(report) {
  return [...report.matchAll(/<testcase classname="([^"]*)" name="([^"]*)" time="[0-9.]+"(\/>|>(.*?)<\/testcase>)/g)].map((m) => ({
    suite: m[1],
    name: m[2],
    failure: m[4]?.startsWith('<failure') ? m[4] : null,
    skipped: m[4]?.startsWith('<skipped') ?? false,
  }))
}

for (const backend of ['addon', 'wasm']) {
  test(`the corpus passes on ${backend}, with a JUnit report of every case`, () => {
    const junit = join(work, `all-${backend}.xml`)
    const r = run('--backend', backend, '--junit', junit, '--quiet')
    assert.equal(r.status, 0, r.stderr + r.stdout)
    const summary = r.stdout.trim().split('\n').at(-1)
    const [, files, passed, failed, skipped] = summary.match(/: (\d+) files, (\d+) passed, (\d+) failed, (\d+) not for this surface$/).map(Number)
    assert.ok(files >= 100 && passed > 20000 && failed === 0, summary)
    // Well-formed XML, as an XML parser reads it (Python's, which the repository's scripts use).
    const parsed = spawnSync('python3', ['-c', 'import sys, xml.etree.ElementTree as ET; ET.parse(sys.argv[1])', junit], { encoding: 'utf8' })
    assert.equal(parsed.status, 0, parsed.stderr)
    const report = readFileSync(junit, 'utf8')
    assert.ok(report.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites '))
    const cases = testcases(report)
    assert.equal(cases.length, passed + skipped)
    assert.equal(cases.filter((c) => c.skipped).length, skipped)
    assert.equal((report.match(/<testsuite /g) ?? []).length, files)
    assert.ok(report.includes(`tests="${passed + skipped}" failures="0"`))
  })
}

test('filters select files and cases by algorithm, preset and file name', () => {
  const ring = run('--algorithm', 'ring', '--quiet')
  assert.equal(ring.status, 0, ring.stderr)
  const libmemcached = run('--preset', 'libmemcached', '--backend', 'wasm')
  assert.equal(libmemcached.status, 0, libmemcached.stderr)
  const listed = libmemcached.stdout.split('\n').filter((l) => l.startsWith('ok  '))
  assert.ok(listed.filter((l) => / libmemcached-/.test(l)).length >= 10, listed.join('\n'))
  assert.ok(!listed.some((l) => / (native|uhashring|spymemcached)-/.test(l)), listed.join('\n'))
  const one = run('--file', 'native-jump-3', '--file', 'cluster-key-slot-*')
  assert.equal(one.status, 0, one.stderr)
  assert.match(one.stdout, /: 3 files, /)
  const both = run('--algorithm', 'jump', '--preset', 'guava', '--quiet')
  assert.equal(both.status, 0, both.stderr)
  const count = (r) => Number(r.stdout.match(/(\d+) passed/)[1])
  assert.ok(count(both) > count(run('--algorithm', 'jump', '--quiet')), 'either filter selects')
})

test('a tampered vector fails with status 1 and is named in the report', () => {
  const dir = join(work, 'tampered')
  cpSync(CORPUS, dir, { recursive: true })
  const file = join(dir, 'native-ring-3.json')
  const doc = JSON.parse(readFileSync(file, 'utf8'))
  const victim = doc.cases.find((c) => 'node' in c)
  victim.node = doc.spec.nodes.map((n) => n.id).find((id) => id !== victim.node)
  writeFileSync(file, JSON.stringify(doc))
  for (const backend of ['addon', 'wasm']) {
    const junit = join(work, `tampered-${backend}.xml`)
    const r = run('--dir', dir, '--file', 'native-ring-*', '--backend', backend, '--junit', junit)
    assert.equal(r.status, 1, r.stdout + r.stderr)
    assert.match(r.stderr, new RegExp(`mismatch: native-ring-3.json ${victim.id}: expected ${victim.node}, got `))
    assert.match(r.stdout, /: \d+ files, \d+ passed, 1 failed, 0 not for this surface/)
    const failed = testcases(readFileSync(junit, 'utf8')).filter((c) => c.failure)
    assert.deepEqual(failed.map((c) => [c.suite, c.name]), [['keyroute.conformance.native-ring-3', victim.id]])
  }
  // Without the tampered file the rest still passes.
  assert.equal(run('--dir', dir, '--file', 'native-ring-4').status, 0)
})

test('usage errors exit with status 2', () => {
  for (const args of [
    ['--backend', 'jvm'],
    ['--algorithm', 'libmemcached'],
    ['--preset', 'ring'],
    ['--file', 'no-such-file'],
    ['--dir', join(work, 'nowhere')],
    ['--frobnicate'],
    ['--junit'],
  ]) {
    const r = run(...args)
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`)
    assert.match(r.stderr, /^keyroute-conformance: /)
  }
  assert.equal(run('--help').status, 0)
})
