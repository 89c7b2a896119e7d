#!/usr/bin/env node
// keyroute-conformance: runs keyroute's conformance corpus (the vector files shipped in this
// package) through the installed package, on the native addon or on WebAssembly, and exits
// non-zero on any mismatch. `--help` for the options.

import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

import { caseRunner } from '../lib/conformance.js'

const USAGE = `usage: keyroute-conformance [options]

Runs keyroute's conformance vectors through this package and compares every answer with the
vector files. Exit status: 0 when every selected case passes, 1 on any mismatch, 2 on a usage
error or when no case is selected.

  --backend auto|addon|wasm
                         what import 'keyroute' uses (auto, the default: the native addon
                         when installed, WebAssembly otherwise), the addon, or WebAssembly
  --algorithm NAME       only cases of this native algorithm (repeatable)
  --preset NAME          only cases of this peer preset (repeatable; with --algorithm, either)
  --file NAME            only this vector file (its name or id; * matches any text; repeatable)
  --junit PATH           write a JUnit XML report (a testsuite per file, a testcase per case)
  --dir PATH             the vector files' folder (default: the corpus in this package)
  --quiet                print only the summary and the failures
  -h, --help             this text`

class UsageError extends Error {}

function parseArgs(argv) {
  const opts = { backend: 'auto', algorithms: [], presets: [], files: [], junit: null, dir: null, quiet: false }
  for (let i = 0; i < argv.length; i++) {
    let arg = argv[i]
    let value
    const eq = arg.indexOf('=')
    if (arg.startsWith('--') && eq > 0) [arg, value] = [arg.slice(0, eq), arg.slice(eq + 1)]
    const take = () => {
      if (value !== undefined) return value
      if (i + 1 >= argv.length) throw new UsageError(`${arg} needs a value`)
      return argv[++i]
    }
    switch (arg) {
      case '-h':
      case '--help':
        opts.help = true
        break
      case '--quiet':
        opts.quiet = true
        break
      case '--backend':
        opts.backend = take()
        if (!['auto', 'addon', 'wasm'].includes(opts.backend)) throw new UsageError(`--backend is auto, addon or wasm, not ${JSON.stringify(opts.backend)}`)
        break
      case '--algorithm':
        opts.algorithms.push(take())
        break
      case '--preset':
        opts.presets.push(take())
        break
      case '--file':
        opts.files.push(take())
        break
      case '--junit':
        opts.junit = take()
        break
      case '--dir':
        opts.dir = take()
        break
      default:
        throw new UsageError(`unknown argument ${JSON.stringify(arg)}`)
    }
  }
  return opts
}

/**
 * The corpus folder: the package's own copy, or in a source checkout (where `npm pack` copies
 * it from) the repository's.
 */
function corpusDir(dir) {
  if (dir) return resolve(dir)
  const pkg = join(dirname(fileURLToPath(import.meta.url)), '..')
  const inSource = existsSync(join(pkg, 'Cargo.toml'))
  const found = inSource ? join(pkg, '..', 'conformance', 'vectors', 'v1') : join(pkg, 'conformance')
  if (!existsSync(found)) throw new UsageError(`no conformance corpus at ${found} (give --dir)`)
  return found
}

/** Whether `name` (a file name) is selected by `pattern` (a name or id, `*` for any text). */
function fileMatches(name, pattern) {
  const id = name.replace(/\.json$/, '')
  const re = new RegExp(`^${pattern.replace(/\.json$/, '').split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`)
  return re.test(id)
}

/** The algorithm a case is routed by: its own spec's (an object or JSON text), else its file's. */
function caseAlgorithm(c, doc) {
  if (c.spec && typeof c.spec === 'object') return c.spec.algorithm
  if (typeof c.spec_json === 'string') {
    try {
      return JSON.parse(c.spec_json)?.algorithm
    } catch {
      return undefined
    }
  }
  if ('spec_hex' in c || 'spec_repeat' in c || 'spec_toml' in c) return undefined
  return doc.spec?.algorithm
}

const xml = (s) =>
  String(s)
    .replace(/[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu, '\ufffd')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')

function junitReport(backend, suites) {
  const sum = (f) => suites.reduce((n, s) => n + f(s), 0)
  const count = (results, outcome) => results.filter((r) => r.outcome === outcome).length
  const time = (results) => results.reduce((t, r) => t + r.seconds, 0).toFixed(3)
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>']
  lines.push(
    `<testsuites name="keyroute conformance (${backend})" tests="${sum((s) => s.results.length)}" failures="${sum((s) => count(s.results, 'failed'))}" errors="0" skipped="${sum((s) => count(s.results, 'skipped'))}" time="${sum((s) => Number(time(s.results))).toFixed(3)}">`,
  )
  for (const { name, results } of suites) {
    const suite = name.replace(/\.json$/, '')
    lines.push(
      `  <testsuite name="${xml(name)}" tests="${results.length}" failures="${count(results, 'failed')}" errors="0" skipped="${count(results, 'skipped')}" time="${time(results)}">`,
    )
    for (const r of results) {
      const open = `    <testcase classname="keyroute.conformance.${xml(suite)}" name="${xml(r.id)}" time="${r.seconds.toFixed(6)}"`
      if (r.outcome === 'passed') lines.push(`${open}/>`)
      else if (r.outcome === 'skipped') lines.push(`${open}><skipped message="spec_toml: for the keyroute command only"/></testcase>`)
      else lines.push(`${open}><failure message="${xml(r.message.split('\n')[0])}">${xml(r.message)}</failure></testcase>`)
    }
    lines.push('  </testsuite>')
  }
  lines.push('</testsuites>', '')
  return lines.join('\n')
}

async function main(argv) {
  const opts = parseArgs(argv)
  if (opts.help) {
    console.log(USAGE)
    return 0
  }
  // `addon` insists on the native addon: loading fails, with the reason, where it is missing.
  if (opts.backend === 'addon') process.env.KEYROUTE_BACKEND = 'native'
  const api = await import(opts.backend === 'wasm' ? '../lib/wasm.js' : '../lib/index.js')
  if (opts.backend === 'auto') opts.backend = api.backend === 'native' ? 'addon' : 'wasm'
  const kinds = new Map(api.ALGORITHMS.map((a) => [a.name, a.kind]))
  for (const [flag, names, kind] of [['--algorithm', opts.algorithms, 'native'], ['--preset', opts.presets, 'preset']]) {
    for (const name of names) {
      if (kinds.get(name) !== kind) {
        const known = api.ALGORITHMS.filter((a) => a.kind === kind).map((a) => a.name)
        throw new UsageError(`${flag} ${JSON.stringify(name)} is not a ${kind === 'native' ? 'native algorithm' : 'peer preset'} (${known.join(', ')})`)
      }
    }
  }
  const wanted = [...opts.algorithms, ...opts.presets]
  const dir = corpusDir(opts.dir)
  let names
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.json')).sort()
  } catch (e) {
    throw new UsageError(`cannot read the corpus folder ${dir}: ${e.message}`)
  }
  if (names.length === 0) throw new UsageError(`no vector files in ${dir}`)
  if (opts.files.length > 0) {
    for (const pattern of opts.files) {
      if (!names.some((n) => fileMatches(n, pattern))) throw new UsageError(`--file ${JSON.stringify(pattern)} matches no vector file in ${dir}`)
    }
    names = names.filter((n) => opts.files.some((p) => fileMatches(n, p)))
  }

  const { runFile } = caseRunner(api)
  const suites = []
  const failures = []
  for (const name of names) {
    let doc
    let results
    try {
      doc = JSON.parse(readFileSync(join(dir, name), 'utf8'))
      const only = wanted.length === 0 ? () => true : (c) => wanted.includes(caseAlgorithm(c, doc))
      if (wanted.length > 0 && !doc.cases.some(only)) continue
      results = runFile({ name, doc }, only)
    } catch (e) {
      // A file that cannot be read, or whose spec does not build, fails as one case.
      results = [{ id: '(file)', outcome: 'failed', message: `${name}: ${e?.message ?? e}`, seconds: 0 }]
    }
    suites.push({ name, results })
    const failed = results.filter((r) => r.outcome === 'failed')
    failures.push(...failed.map((r) => r.message))
    if (!opts.quiet) {
      const passed = results.filter((r) => r.outcome === 'passed').length
      console.log(`${failed.length ? 'FAIL' : 'ok  '} ${name}: ${passed}/${results.length} passed`)
    }
  }
  const total = suites.reduce((n, s) => n + s.results.length, 0)
  if (total === 0) throw new UsageError('no case matches the filters')
  if (opts.junit) {
    const path = resolve(opts.junit)
    mkdirSync(dirname(path), { recursive: true })
    writeFileSync(path, junitReport(opts.backend, suites))
  }
  for (const message of failures.slice(0, 50)) console.error(`mismatch: ${message}`)
  if (failures.length > 50) console.error(`… and ${failures.length - 50} more mismatches`)
  const all = suites.flatMap((s) => s.results)
  const passed = all.filter((r) => r.outcome === 'passed').length
  const skipped = all.filter((r) => r.outcome === 'skipped').length
  console.log(
    `keyroute conformance (${opts.backend}, keyroute ${packageVersion()}): ${suites.length} files, ` +
      `${passed} passed, ${failures.length} failed, ${skipped} not for this surface`,
  )
  return failures.length === 0 ? 0 : 1
}

function packageVersion() {
  const pkg = join(dirname(fileURLToPath(import.meta.url)), '..', 'package.json')
  return JSON.parse(readFileSync(pkg, 'utf8')).version
}

main(process.argv.slice(2)).then(
  (status) => {
    process.exitCode = status
  },
  (e) => {
    if (e instanceof UsageError) {
      console.error(`keyroute-conformance: ${e.message}\n\n${USAGE}`)
      process.exitCode = 2
    } else {
      console.error(`keyroute-conformance: ${e?.stack ?? e}`)
      process.exitCode = 1
    }
  },
)
