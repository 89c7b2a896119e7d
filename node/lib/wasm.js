// keyroute's API on WebAssembly in Node.js, for `import 'keyroute/wasm'`.
// Every entry point exports the same names (test/entries.test.js checks them against each other
// and index.d.ts): the hand-written API below, then the generated lists (lib/generated/): the
// constructor of every algorithm and preset, ALGORITHMS, the defaults and the error classes.

import * as backend from './wasm-node.js'
import { apiOf } from './face.js'

export const { Router, Transition, diff, redisSlot, errorTable, LIMITS, LIMITS_CEILING } = apiOf(backend)
export const { BoundedLoad, Lease, HotKeys, splitKeys, splitKey } = apiOf(backend)
export const { LiveView, Watch, watch, publishView, fleetStatus, converged } = apiOf(backend)

export { name as backend } from './wasm-node.js'
export * from './generated/presets-wasm-node.js'
export { ALGORITHMS } from './generated/algorithms.js'
export * from './generated/defaults.js'
export * from './generated/errors.js'
