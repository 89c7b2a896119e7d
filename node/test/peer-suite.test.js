// npm hashring's own test suite, run against keyroute/hashring: tests/api.test.js and
// tests/distribution.test.js from the published hashring 3.2.0 (the devDependency, so the
// version is pinned by package-lock.json), copied to a scratch folder whose `index.js` — what
// the suite's `require('../')` loads — is keyroute/hashring's `require` entry point. Nothing
// else of the suite changes. mocha runs it; every test must pass except the ones listed, each
// with its reason, in test/peer-suites/hashring.json, and the test fails when that set changes
// either way (a new failure, or a listed test that now passes). The same copy run against the
// real hashring passes every test, so each listed failure is keyroute's, not the harness's.

import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import test from 'node:test'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const NODE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..')
const PEER = join(NODE_DIR, 'node_modules', 'hashring')
const MOCHA = join(NODE_DIR, 'node_modules', 'mocha', 'bin', 'mocha.js')
const EXPECTED = JSON.parse(readFileSync(join(NODE_DIR, 'test', 'peer-suites', 'hashring.json'), 'utf8'))
const SUITE_FILES = ['tests/api.test.js', 'tests/distribution.test.js']

/** Runs the suite with `require('../')` giving module `target`; mocha's JSON report. */
function runSuite(target) {
  const dir = mkdtempSync(join(tmpdir(), 'keyroute-hashring-suite-'))
  try {
    cpSync(join(PEER, 'tests'), join(dir, 'tests'), { recursive: true })
    // CommonJS, as in the peer's package; `index.js` is what `require('../')` resolves to.
    writeFileSync(join(dir, 'package.json'), '{"private": true, "type": "commonjs"}\n')
    writeFileSync(join(dir, 'index.js'), `module.exports = require(${JSON.stringify(target)})\n`)
    const report = join(dir, 'report.json')
    try {
      execFileSync(
        process.execPath,
        [MOCHA, '--reporter', 'json', '--reporter-option', `output=${report}`, ...SUITE_FILES],
        // The suite's own `require('assume')` resolves from this package's node_modules.
        { cwd: dir, env: { ...process.env, NODE_PATH: join(NODE_DIR, 'node_modules') }, stdio: 'pipe' },
      )
    } catch (e) {
      // mocha exits with the number of failed tests; the report says which.
      if (typeof e.status !== 'number') throw e
    }
    return JSON.parse(readFileSync(report, 'utf8'))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

test(`hashring ${EXPECTED.version}'s own suite passes against the real hashring (the harness is sound)`, () => {
  assert.equal(require(join(PEER, 'package.json')).version, EXPECTED.version)
  const report = runSuite(PEER)
  assert.deepEqual(
    report.failures.map((f) => f.fullTitle),
    [],
  )
  assert.ok(report.stats.passes >= 26, `only ${report.stats.passes} tests ran`)
})

test(`hashring ${EXPECTED.version}'s own suite against keyroute/hashring: only the listed tests fail`, () => {
  const report = runSuite(require.resolve('keyroute/hashring'))
  const failed = report.failures.map((f) => f.fullTitle).sort()
  const expected = Object.keys(EXPECTED.expected_failures).sort()
  const newFailures = failed.filter((t) => !expected.includes(t))
  const nowPassing = expected.filter((t) => !failed.includes(t))
  assert.deepEqual(
    { newFailures, nowPassing },
    { newFailures: [], nowPassing: [] },
    `failures: ${report.failures.map((f) => `${f.fullTitle}: ${f.err.message}`).join('\n')}`,
  )
  assert.equal(report.stats.pending, 0)
  assert.equal(report.stats.passes + report.stats.failures, report.stats.tests)
  console.log(
    `hashring ${EXPECTED.version} suite on keyroute/hashring: ${report.stats.passes} passed, ` +
      `${report.stats.failures} failed as listed, of ${report.stats.tests}`,
  )
})
