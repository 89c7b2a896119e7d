// keyroute in Node.js against npm hashring 3.2.0 and consistent-hash 1.2.2, the WebAssembly
// build against the addon, and both against the Rust core's own batch, all in one run; then
// bounded loads, hot keys and read spreading per call, against a plain route.
//
//   node node/bench.js [--quick] [--runs N] [--hot] [--views] [--keyroute-only] [--baseline DIR]
//
// after node/test.sh, or `npm ci` in node/ and wasm/build.sh. --quick: 100,000 keys, 3 passes;
// --runs: passes per figure (7 by default); --hot: only the hot-key table; --views: only the
// live-view table (a route through a LiveView against the plain router's); --keyroute-only:
// without the npm peers and the hot-key table; --baseline: also the per-key route, routeMany
// and packed routeBatch of the package built in DIR (another checkout's node/ folder), in the
// same run, for before and after.
//
// Keys: 1,000,000 distinct 11-byte "user:NNNNNN" in a scrambled order (the same set the core's
// and the C benchmarks use); rings of N = 10, 100, 1000 nodes × 160 points. Per-call figures
// time a plain loop over the keys, so every contender pays the same loop; batches are per key.
// Every figure is the median of several passes, in CPU time (user + system of the process, so a
// busy machine's waits do not count), ns per key.

import { execFileSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

import * as native from './lib/index.js'
import * as wasm from './lib/wasm.js'

const require = createRequire(import.meta.url)
const HashRing = require('hashring')
const ConsistentHash = require('consistent-hash')

const quick = process.argv.includes('--quick')
const baselineAt = process.argv.indexOf('--baseline')
const baselineDir = baselineAt > 0 ? process.argv[baselineAt + 1] : undefined
const baseline = baselineDir && {
  native: await import(pathToFileURL(resolve(baselineDir, 'lib/index.js')).href),
  wasm: await import(pathToFileURL(resolve(baselineDir, 'lib/wasm.js')).href),
}
const KEYS = quick ? 100_000 : 1_000_000
const runsAt = process.argv.indexOf('--runs')
const RUNS = runsAt > 0 ? Number(process.argv[runsAt + 1]) : quick ? 3 : 7
const SIZES = [10, 100, 1000]

const keys = Array.from({ length: KEYS }, (_, i) => `user:${String((i * 611953 + 12345) % 1_000_000).padStart(6, '0')}`)
const enc = new TextEncoder()
const offsets = new Uint32Array(KEYS + 1)
const data = new Uint8Array(KEYS * 11)
keys.forEach((k, i) => {
  enc.encodeInto(k, data.subarray(i * 11))
  offsets[i + 1] = (i + 1) * 11
})

/** CPU time of this process so far, in ns. */
const cpu = () => {
  const { user, system } = process.cpuUsage()
  return (user + system) * 1000
}

/** Median CPU ns per key of `runs` passes of `pass` (which handles every key once). */
function time(pass, runs = RUNS) {
  pass()
  const t = []
  for (let r = 0; r < runs; r++) {
    const start = cpu()
    pass()
    t.push((cpu() - start) / KEYS)
  }
  return t.sort((a, b) => a - b)[t.length >> 1]
}

/**
 * `a` and `b` (each a pass over every key) timed alternately, `runs` times each: their median
 * CPU ns per key, and the median of the per-pair ratios b/a, which a busy machine disturbs
 * less than a ratio of two medians taken apart.
 */
function paired(a, b, runs = RUNS) {
  a()
  b()
  const [ta, tb, ratios] = [[], [], []]
  for (let r = 0; r < runs; r++) {
    for (const [pass, out] of [[a, ta], [b, tb]]) {
      const start = cpu()
      pass()
      out.push((cpu() - start) / KEYS)
    }
    ratios.push(tb[r] / ta[r])
  }
  const median = (t) => t.sort((x, y) => x - y)[t.length >> 1]
  return { a: median(ta), b: median(tb), ratio: median(ratios) }
}

let sink = 0
const loop = (route) => () => {
  for (let i = 0; i < KEYS; i++) sink += route(keys[i]).length
}
const perCall = (route) =>
  time(() => {
    for (let i = 0; i < KEYS; i++) sink += route(keys[i]).length
  })

function coreBatch(n) {
  const bin = new URL('../target/release/examples/bench_core', import.meta.url).pathname
  execFileSync('cargo', ['build', '-q', '--release', '--locked', '-p', 'keyroute-ffi', '--example', 'bench_core'], { stdio: 'inherit' })
  const out = execFileSync(bin, [String(RUNS), String(n)], { encoding: 'utf8' })
  const line = out.split('\n').find((l) => l.startsWith('rust route_batch '))
  return Number(line.split(' ')[2])
}

const hotOnly = process.argv.includes('--hot')
const viewsOnly = process.argv.includes('--views')
const keyrouteOnly = process.argv.includes('--keyroute-only')
const rows = []
for (const n of hotOnly || viewsOnly ? [] : SIZES) {
  const ids = Array.from({ length: n }, (_, i) => `cache-${i}`)
  const core = coreBatch(n)
  const kr = new native.Ring(ids, { points: 160 })
  const kw = new wasm.Ring(ids, { points: 160 })
  const hr = new HashRing(ids, 'md5', { 'vnode count': 40 })
  const ch = new ConsistentHash({ weight: 160, distribution: 'uniform' })
  ids.forEach((id) => ch.add(id))
  const out = new Uint32Array(KEYS)
  rows.push({
    n,
    core,
    hashring: keyrouteOnly ? NaN : perCall((k) => hr.get(k)),
    consistentHash: keyrouteOnly ? NaN : perCall((k) => ch.get(k)),
    route: perCall((k) => kr.route(k)),
    routeWasm: perCall((k) => kw.route(k)),
    many: time(() => (sink += kr.routeMany(keys).length)),
    manyWasm: time(() => (sink += kw.routeMany(keys).length)),
    packed: time(() => (sink += kr.routeBatch(data, offsets, out)[0])),
    packedWasm: time(() => (sink += kw.routeBatch(data, offsets, out)[0])),
    // The same two batches in alternate passes: the ratio a busy machine disturbs least.
    packedPair: paired(
      () => (sink += kr.routeBatch(data, offsets, out)[0]),
      () => (sink += kw.routeBatch(data, offsets, out)[0]),
    ),
    before: baseline && beforeFigures(ids, out),
  })
}

/** The baseline build's per-key route, routeMany and packed routeBatch, addon and wasm. */
function beforeFigures(ids, out) {
  const kr = new baseline.native.Ring(ids, { points: 160 })
  const kw = new baseline.wasm.Ring(ids, { points: 160 })
  return {
    route: perCall((k) => kr.route(k)),
    routeWasm: perCall((k) => kw.route(k)),
    many: time(() => (sink += kr.routeMany(keys).length)),
    manyWasm: time(() => (sink += kw.routeMany(keys).length)),
    packed: time(() => (sink += kr.routeBatch(data, offsets, out)[0])),
    packedWasm: time(() => (sink += kw.routeBatch(data, offsets, out)[0])),
  }
}

const f = (x) => `${x.toFixed(1).padStart(7)} ns`
const r = (x) => `${x.toFixed(2).padStart(6)}×`
console.log(`node ${process.version}, ${KEYS.toLocaleString('en')} keys, median of ${RUNS} passes, ns per key\n`)
if (!hotOnly && !viewsOnly) console.log('    N | hashring get | consistent-hash | route (addon) | vs hashring | vs c-hash | route (wasm) | wasm/addon')
for (const x of rows) {
  console.log(
    `${String(x.n).padStart(5)} | ${f(x.hashring)}   | ${f(x.consistentHash)}      | ${f(x.route)}    | ${r(x.hashring / x.route)}     | ${r(x.route / x.consistentHash)}   | ${f(x.routeWasm)}   | ${r(x.routeWasm / x.route)}`,
  )
}
if (!hotOnly && !viewsOnly) {
  console.log('\n    N | core batch | routeMany (addon) | /core  | packed (addon) | /core  | routeMany (wasm) | packed (wasm) | /core   | /addon packed, paired')
}
for (const x of rows) {
  console.log(
    `${String(x.n).padStart(5)} | ${f(x.core)} | ${f(x.many)}        | ${r(x.many / x.core)} | ${f(x.packed)}     | ${r(x.packed / x.core)} | ${f(x.manyWasm)}       | ${f(x.packedWasm)}    | ${r(x.packedWasm / x.core)} | ${r(x.packedPair.ratio)}`,
  )
}
if (baseline) {
  console.log(`\nBefore (${baselineDir}) and after (this checkout), the same run; wasm goals: routeMany ≤ 0.5× route, packed ≤ 3× core`)
  // The core's batch comes from bench_core in wall-clock time; the addon's packed batch (the core's
  // batch behind one call, reading the keys in place) is timed here in CPU time, as wasm is.
  console.log('    N | build  | route addon | routeMany addon | packed addon | route wasm | routeMany wasm | /route | packed wasm | /core  | /addon packed')
  for (const x of rows) {
    for (const [name, y] of [['before', x.before], ['after', x]]) {
      console.log(
        `${String(x.n).padStart(5)} | ${name.padEnd(6)} | ${f(y.route)}  | ${f(y.many)}      | ${f(y.packed)}   | ${f(y.routeWasm)} | ${f(y.manyWasm)}     | ${r(y.manyWasm / y.routeWasm)} | ${f(y.packedWasm)}  | ${r(y.packedWasm / x.core)} | ${r(y.packedWasm / y.packed)}`,
      )
    }
  }
}
// Hot keys and overload, per call on a ring of 100 nodes, against a plain route in the same run.
if (!keyrouteOnly && !viewsOnly) console.log('\nN = 100 | route | acquire + release | pick | HotKeys observe | spread (client) — ns per call, ×route')
for (const [name, api] of keyrouteOnly || viewsOnly ? [] : [['addon', native], ['wasm', wasm]]) {
  const ring = new api.Ring(Array.from({ length: 100 }, (_, i) => `cache-${i}`), { points: 160 })
  const bounded = new api.BoundedLoad(ring)
  // About 1,000 requests in flight while timing, as a busy proxy has.
  const held = keys.slice(0, 1000).map((k) => bounded.acquire(k))
  const hot = new api.HotKeys()
  const route = perCall((k) => ring.route(k))
  const acquire = perCall((k) => {
    const lease = bounded.acquire(k)
    lease.release()
    return lease.node
  })
  const pick = perCall((k) => bounded.pick(k).node)
  const observe = perCall((k) => String(hot.observe(k)))
  const spread = perCall((k) => ring.spread(k, 3, 'web-1'))
  for (const lease of held) lease.release()
  const cell = (x) => `${f(x)} ${r(x / route)}`
  console.log(`${name.padEnd(7)} | ${f(route)} | ${cell(acquire)} | ${cell(pick)} | ${cell(observe)} | ${cell(spread)}`)
}
// Views: a route through a LiveView against a route on the plain router of the same spec, timed
// in alternate passes (goal: ≤ 1.1×), and during a rollout against the Transition it routes as.
// The ratio is the median of the passes' ratios.
if (!keyrouteOnly || viewsOnly) console.log('\nN = 100 | Router.route | LiveView.route | ×route | Transition.route | LiveView.route (rollout) | ×transition — ns per call')
for (const [name, api] of keyrouteOnly && !viewsOnly ? [] : [['addon', native], ['wasm', wasm]]) {
  const ids = Array.from({ length: 100 }, (_, i) => `cache-${i}`)
  const spec = (n) => ({ algorithm: 'ring', params: { points_per_weight: 160 }, nodes: ids.slice(0, n).map((id) => ({ id })) })
  const ring = new api.Router(spec(100))
  const view = new api.LiveView()
  view.publish({ version: 1, spec: spec(100) })
  const plain = paired(loop((k) => ring.route(k)), loop((k) => view.route(k)))
  const t = new api.Transition(new api.Router(spec(99)), ring, 0.5)
  const rollout = new api.LiveView()
  rollout.publish({ version: 1, spec: spec(99), rollout: { to: spec(100), progress: 0.5 } })
  const moving = paired(loop((k) => t.route(k)), loop((k) => rollout.route(k)))
  console.log(`${name.padEnd(7)} | ${f(plain.a)} | ${f(plain.b)} | ${r(plain.ratio)} | ${f(moving.a)} | ${f(moving.b)} | ${r(moving.ratio)}`)
}
if (sink === 42) console.log('')
