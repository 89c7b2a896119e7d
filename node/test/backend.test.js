// Which backend `keyroute` loads in Node.js (lib/auto.js): the addon where it is installed,
// WebAssembly otherwise with one line on stderr per process, and KEYROUTE_BACKEND to force
// either. Each case runs a fresh Node process over a copy of the package in a scratch
// node_modules, with the addon in the package folder, in its platform package, damaged, or
// absent.

import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import test from 'node:test'
import { fileURLToPath } from 'node:url'

import { platformName } from '../lib/platform.cjs'

const NODE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..')
const ADDON = `keyroute.${platformName()}.node`
const LINE = 'keyroute: using the WebAssembly backend'

/** A scratch project with the package (no addon) in node_modules/keyroute; `setup(dir)` adds to it. */
function project(t, setup = () => {}) {
  const dir = mkdtempSync(join(tmpdir(), 'keyroute-backend-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const pkg = join(dir, 'node_modules', 'keyroute')
  mkdirSync(pkg, { recursive: true })
  for (const part of ['lib', 'dist', 'wasm', 'package.json']) cpSync(join(NODE_DIR, part), join(pkg, part), { recursive: true })
  setup(dir, pkg)
  return dir
}

/** Runs `script` (CommonJS) in `dir` with KEYROUTE_BACKEND = `backend` (unset when undefined). */
function run(dir, script, backend) {
  const env = { ...process.env }
  delete env.KEYROUTE_BACKEND
  if (backend !== undefined) env.KEYROUTE_BACKEND = backend
  const r = spawnSync(process.execPath, ['-e', script], { cwd: dir, env, encoding: 'utf8' })
  return { status: r.status, stdout: r.stdout.trim(), stderr: r.stderr }
}

// require and import of `keyroute`, and the hashring drop-in, in one process.
const USE_ALL = `
  const k = require('keyroute')
  const HashRing = require('keyroute/hashring')
  import('keyroute').then((m) => {
    if (m.Router !== k.Router) throw new Error('two modules')
    console.log(k.backend, new k.Ring(['a', 'b', 'c']).route('user:42'), new HashRing(['a:1']).get('k'))
  })
`
const ROUTE = "const k = require('keyroute'); console.log(k.backend, new k.Ring(['a', 'b', 'c']).route('user:42'))"

test('no addon installed: WebAssembly, announced once per process, routing as the addon does', (t) => {
  const dir = project(t)
  const r = run(dir, USE_ALL)
  assert.equal(r.status, 0, r.stderr)
  const native = run(NODE_DIR, USE_ALL).stdout.split(' ')
  assert.equal(native[0], 'native')
  assert.deepEqual(r.stdout.split(' '), ['wasm', ...native.slice(1)])
  const lines = r.stderr.split('\n').filter(Boolean)
  assert.equal(lines.length, 1, r.stderr)
  assert.ok(lines[0].startsWith(LINE), lines[0])
  assert.match(lines[0], new RegExp(`no native addon for ${platformName()}`))
  assert.match(lines[0], /KEYROUTE_BACKEND=wasm/)
})

test('KEYROUTE_BACKEND=wasm takes WebAssembly silently; =native without an addon fails with the reason', (t) => {
  const dir = project(t)
  assert.deepEqual(run(dir, ROUTE, 'wasm'), { status: 0, stdout: `wasm ${run(NODE_DIR, ROUTE).stdout.split(' ')[1]}`, stderr: '' })
  const forced = run(dir, ROUTE, 'native')
  assert.notEqual(forced.status, 0)
  assert.match(forced.stderr, new RegExp(`no native addon for ${platformName()} \\(${ADDON.replaceAll('.', '\\.')} in the package folder: not installed; the package keyroute-${platformName()}: not installed\\)`))
  assert.match(forced.stderr, /npm run build-native/)
})

test('another KEYROUTE_BACKEND is refused with invalid_argument', (t) => {
  const dir = project(t)
  const r = run(dir, "try { require('keyroute') } catch (e) { console.log(e.code, e.name, e.message) }", 'turbo')
  assert.equal(r.stdout, `KR_INVALID_ARGUMENT InvalidArgumentError KEYROUTE_BACKEND is 'native' or 'wasm', not "turbo"`)
  // An empty value is as good as unset.
  assert.equal(run(NODE_DIR, ROUTE, '').stdout.split(' ')[0], 'native')
})

test('the addon from its platform package, keyroute-<platform>', (t) => {
  const dir = project(t, (root) => {
    const platform = join(root, 'node_modules', `keyroute-${platformName()}`)
    mkdirSync(platform)
    cpSync(join(NODE_DIR, ADDON), join(platform, ADDON))
    writeFileSync(join(platform, 'package.json'), JSON.stringify({ name: `keyroute-${platformName()}`, version: '0.1.0', main: ADDON }))
  })
  const r = run(dir, USE_ALL)
  assert.deepEqual(r, { ...run(NODE_DIR, USE_ALL), stderr: '' })
  assert.equal(r.stdout.split(' ')[0], 'native')
  assert.equal(run(dir, ROUTE, 'wasm').stdout.split(' ')[0], 'wasm')
})

test('a damaged addon: the fallback line says why, and =native fails with the loader error', (t) => {
  const dir = project(t, (_, pkg) => writeFileSync(join(pkg, ADDON), 'not a shared library'))
  const r = run(dir, ROUTE)
  assert.equal(r.status, 0, r.stderr)
  assert.equal(r.stdout.split(' ')[0], 'wasm')
  assert.match(r.stderr, new RegExp(`${LINE} .*${ADDON.replaceAll('.', '\\.')} in the package folder: .*(invalid ELF|file too short|not a)`))
  const forced = run(dir, ROUTE, 'native')
  assert.notEqual(forced.status, 0)
  assert.match(forced.stderr, /in the package folder: /)
})
