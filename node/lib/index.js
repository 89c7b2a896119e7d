// keyroute's API in Node.js, for `import 'keyroute'`: on the native addon (node/src, napi-rs) when
// it is installed for this platform, on WebAssembly otherwise (lib/auto.js chooses).
// Every entry point exports the same names (test/entries.test.js checks them against each other
// and index.d.ts): the hand-written API below, then the generated lists (lib/generated/): the
// constructor of every algorithm and preset, ALGORITHMS, the defaults and the error classes.

import * as backend from './auto.js'
import { apiOf } from './face.js'

export const { Router, Transition, diff, redisSlot, errorTable, LIMITS, LIMITS_CEILING } = apiOf(backend)
export const { BoundedLoad, Lease, HotKeys, splitKeys, splitKey } = apiOf(backend)
export const { LiveView, Watch, watch, publishView, fleetStatus, converged } = apiOf(backend)

export { name as backend } from './auto.js'
export * from './generated/presets-auto.js'
export { ALGORITHMS } from './generated/algorithms.js'
export * from './generated/defaults.js'
export * from './generated/errors.js'
