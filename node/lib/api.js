// keyroute's JavaScript API, written once for both backends: the Node addon (napi-rs, `node/src`)
// and WebAssembly (wasm-bindgen, `wasm/src`), which expose the same low-level classes. Every
// decision (parsing, validation, the key text policy, hashing, lookup, analysis) is made there,
// in keyroute-bindings; this layer only turns JavaScript values into specs and results into
// JavaScript values, and native errors into the generated `KeyrouteError` classes.

import { definePresets } from './generated/algorithms.js'
import * as errors from './generated/errors.js'
import { bucketList, describe, isPlainObject, nodeLimit, nodeList, routerArgs, serverList, slotList } from './nodes.js'

const { fromNative, InvalidParameterError, InvalidSpecError, InvalidTypeError } = errors

/** Keys per native call in `routeMany` (bounds the joined string a batch builds). */
const CHUNK = 1 << 16

/**
 * The API over one backend: `{ NativeRouter, NativeTransition, diff, errorTable, limitTable,
 * parseServer, redisSlot, routeIndex, handleOf }` from the addon or the WebAssembly module
 * (`routeIndex(handle, key)` is the per-key call; the addon makes it a plain Node-API function
 * over a handle).
 */
export function makeApi(backend) {
  const { NativeRouter, NativeTransition, routeIndex, handleOf } = backend
  const table = backend.limitTable()
  /** The default limits, and the most each can be raised to (keyroute-bindings' `Limits`). */
  const LIMITS = Object.freeze(Object.fromEntries(table.map(([name, value]) => [name, value])))
  const LIMITS_CEILING = Object.freeze(Object.fromEntries(table.map(([name, , ceiling]) => [name, ceiling])))
  /** The native router of a `Router` (for `Transition` and `diff`), set by Router's static block. */
  let nativeOf

  class Router {
    #n
    #h
    #nodes

    /**
     * A router from a topology spec: an object `{algorithm, params, nodes, version}`, its JSON
     * text, or that text's bytes (a Buffer or Uint8Array), built under `options.limits` (the
     * limits to change; see `LIMITS`).
     */
    constructor(spec, options) {
      if (spec instanceof NativeRouter) {
        this.#n = spec
      } else {
        const input = typeof spec === 'string' || spec instanceof Uint8Array ? spec : specJson(spec)
        const limits = limitsJson(options)
        try {
          this.#n = limits === undefined ? new NativeRouter(input) : new NativeRouter(input, limits)
        } catch (e) {
          throw fromNative(e)
        }
      }
      this.#h = handleOf(this.#n)
      this.#nodes = Object.freeze(this.#n.nodeIds)
    }

    static {
      nativeOf = (router) => {
        if (!(router instanceof Router)) throw new InvalidTypeError(`expected a Router, not ${describe(router)}`)
        return router.#n
      }
    }

    /** The id of the node that owns `key` (a string, or bytes as a Buffer or Uint8Array). */
    route(key) {
      try {
        return this.#nodes[routeIndex(this.#h, key)]
      } catch (e) {
        throw fromNative(e)
      }
    }

    /** The position (in `nodes`) of the node that owns `key`. */
    routeIndex(key) {
      try {
        return routeIndex(this.#h, key)
      } catch (e) {
        throw fromNative(e)
      }
    }

    /** `n` distinct node ids for `key`, in preference order. */
    replicas(key, n) {
      try {
        return Array.from(this.#n.replicaIndices(key, n), (i) => this.#nodes[i])
      } catch (e) {
        throw fromNative(e)
      }
    }

    /** The slot `key` falls in, for slot-table routers (`slots`, `redis-cluster`); else null. */
    slot(key) {
      try {
        return this.#n.slot(key)
      } catch (e) {
        throw fromNative(e)
      }
    }

    /** The 64-bit number (a bigint) this router routes `key` on. */
    keyHash(key) {
      try {
        return this.#n.keyHash(key)
      } catch (e) {
        throw fromNative(e)
      }
    }

    /** The id of the node that owns every key whose `keyHash` is `hash`. */
    routeHash(hash) {
      try {
        return this.#nodes[this.#n.routeHash(hash)]
      } catch (e) {
        throw fromNative(e)
      }
    }

    /** The owner of each key of an iterable of keys. Errors name the key (`keyIndex`). */
    routeMany(keys) {
      const indices = this.routeIndices(keys)
      const nodes = this.#nodes
      const out = new Array(indices.length)
      for (let i = 0; i < indices.length; i++) out[i] = nodes[indices[i]]
      return out
    }

    /** The owners' positions (a Uint32Array) of an iterable of keys. */
    routeIndices(keys) {
      if (typeof keys === 'string' || ArrayBuffer.isView(keys) || keys == null || typeof keys[Symbol.iterator] !== 'function') {
        throw new InvalidTypeError(`routeMany takes an iterable of keys, not ${keys == null ? String(keys) : typeof keys === 'string' ? 'a single key' : describe(keys)}`)
      }
      const list = Array.isArray(keys) ? keys : Array.from(keys)
      const out = new Uint32Array(list.length)
      for (let start = 0; start < list.length; start += CHUNK) {
        const end = Math.min(start + CHUNK, list.length)
        this.#routeChunk(list, start, end, out)
      }
      return out
    }

    #routeChunk(list, start, end, out) {
      const n = end - start
      const lengths = new Uint32Array(n)
      let strings = true
      for (let i = 0; i < n; i++) {
        const k = list[start + i]
        if (typeof k !== 'string') {
          strings = false
          break
        }
        lengths[i] = k.length
      }
      const into = out.subarray(start, end)
      if (strings) {
        const joined = start === 0 && end === list.length ? list.join('') : list.slice(start, end).join('')
        try {
          this.#n.routeJoinedInto(joined, lengths, into)
        } catch (e) {
          throw fromNative(e, start)
        }
        return
      }
      // Bytes among the keys: one call per key (each key's own checks, its position on error).
      for (let i = 0; i < n; i++) {
        try {
          into[i] = routeIndex(this.#h, list[start + i])
        } catch (e) {
          throw fromNative(e, start + i, true)
        }
      }
    }

    /**
     * Routes keys packed into one buffer, read in place: key `i` is
     * `data.subarray(offsets[i], offsets[i + 1])`. Returns `out` (a new Uint32Array of
     * `offsets.length - 1` node positions when not given).
     */
    routeBatch(data, offsets, out) {
      if (!(offsets instanceof Uint32Array)) throw new InvalidTypeError(`offsets must be a Uint32Array, not ${describe(offsets)}`)
      const count = Math.max(offsets.length - 1, 0)
      if (out === undefined) out = new Uint32Array(count)
      else if (!(out instanceof Uint32Array)) throw new InvalidTypeError(`out must be a Uint32Array, not ${describe(out)}`)
      try {
        this.#n.routeBatchInto(data, offsets, out)
      } catch (e) {
        throw fromNative(e)
      }
      return out
    }

    /** The node ids, in spec order (routes answer positions in this array). */
    get nodes() {
      return this.#nodes
    }

    /** Number of nodes. */
    get size() {
      return this.#nodes.length
    }

    /** The algorithm or preset the spec names. */
    get algorithm() {
      return this.#n.algorithm
    }

    /** The view's version from the spec (0 when unversioned). */
    get version() {
      return this.#n.version
    }

    /** XXH3-64 of `canonicalJson` (a bigint): equal for two processes holding the same view. */
    get fingerprint() {
      return this.#n.fingerprint
    }

    /** The spec in canonical form: every default filled in, keys sorted, no whitespace. */
    get canonicalJson() {
      return this.#n.canonicalJson
    }

    /** The spec in canonical form, as a new object. */
    get spec() {
      return JSON.parse(this.#n.canonicalJson)
    }

    /** Whether `other` is a router of the same canonical spec. */
    equals(other) {
      return other instanceof Router && other.canonicalJson === this.canonicalJson
    }

    toJSON() {
      return this.spec
    }

    /** The share of keys each node owns, with the balance figures and how they were obtained. */
    ownership() {
      const o = this.#n.ownership()
      return {
        shares: new Map(this.#nodes.map((id, i) => [id, o.shares[i]])),
        balance: { cv: o.cv, maxOverMean: o.maxOverMean, minOverMean: o.minOverMean },
        method: o.method,
        sampleKeys: o.sampleKeys ?? null,
      }
    }

    /**
     * The key-hash space as pieces, each owned by one node (rings, Maglev, hash slots; null
     * for the other algorithms): `starts[i]` (a bigint) is the first hash of piece `i`, `owners[i]`
     * its owner's position in `nodes`; the space holds `2 ** bits` hashes.
     */
    pieces() {
      return this.#n.pieces() ?? null
    }

    /**
     * A token (a number) another worker thread gives to `Router.fromShared` to route through
     * this router without copying its table. Valid while this router is alive.
     */
    share() {
      try {
        return this.#n.share()
      } catch (e) {
        throw fromNative(e)
      }
    }

    /** The router a `share()` token names. */
    static fromShared(token) {
      try {
        return new Router(NativeRouter.fromShared(token))
      } catch (e) {
        throw fromNative(e)
      }
    }
  }

  /** What changing from router `a` to router `b` moves; nodes are matched by id. */
  function diff(a, b) {
    let d
    try {
      d = backend.diff(nativeOf(a), nativeOf(b))
    } catch (e) {
      throw fromNative(e)
    }
    const [an, bn] = [a.nodes, b.nodes]
    return {
      moved: d.moved,
      idealMoved: d.idealMoved,
      flows: d.flows.map((f) => ({ source: an[f.from], target: bn[f.to], share: f.share })),
      movedArcs: d.movedArcs.map((m) => ({ start: m.start, end: m.end, source: an[m.from], target: bn[m.to] })),
      method: d.method,
      sampleKeys: d.sampleKeys ?? null,
    }
  }

  class Transition {
    #t
    #nodes
    #from
    #to

    /** A change from router `from` to router `to` at `progress` (0 = all on A, 1 = all on B). */
    constructor(from, to, progress = 0) {
      if (from instanceof NativeTransition) {
        this.#t = from
        ;[this.#from, this.#to] = to
      } else {
        try {
          this.#t = new NativeTransition(nativeOf(from), nativeOf(to), progress)
        } catch (e) {
          throw fromNative(e)
        }
        this.#from = from
        this.#to = to
      }
      this.#nodes = Object.freeze(this.#t.nodeIds)
    }

    /** The same change at another progress. */
    withProgress(progress) {
      try {
        return new Transition(this.#t.withProgress(progress), [this.#from, this.#to])
      } catch (e) {
        throw fromNative(e)
      }
    }

    /** The id of the node that owns `key` now. */
    route(key) {
      return this.#nodes[this.routeIndex(key)]
    }

    /** The position (in `nodes`) of the node that owns `key` now. */
    routeIndex(key) {
      try {
        return this.#t.routeIndex(key)
      } catch (e) {
        throw fromNative(e)
      }
    }

    /** `{owner, previous}`: `previous` is where to read on a miss while data migrates, or null. */
    routeWithFallback(key) {
      let placed
      try {
        placed = this.#t.routeWithFallback(key)
      } catch (e) {
        throw fromNative(e)
      }
      return { owner: this.#nodes[placed[0]], previous: placed.length > 1 ? this.#nodes[placed[1]] : null }
    }

    /** Whether `key` has cut over to its owner in B. */
    hasCutOver(key) {
      try {
        return this.#t.hasCutOver(key)
      } catch (e) {
        throw fromNative(e)
      }
    }

    /** Both sides' node ids: B's in order, then A's that B lacks. */
    get nodes() {
      return this.#nodes
    }

    get progress() {
      return this.#t.progress
    }

    /** The router before the change (view A). */
    get from() {
      return this.#from
    }

    /** The router after the change (view B). */
    get to() {
      return this.#to
    }

    /** `{from: {version, fingerprint}, to: {…}, progress}`, fingerprints as 16 hex digits. */
    describe() {
      return JSON.parse(this.#t.describeJson())
    }
  }

  /**
   * The Redis Cluster slot of `key`, as Redis computes it (`rule: 'redis'`, the default) or as
   * the npm `cluster-key-slot` package does (`rule: 'cluster_key_slot'`; they differ on keys
   * such as `foo{}{bar}`).
   */
  function redisSlot(key, options = {}) {
    const rule = options?.rule ?? 'redis'
    if (rule !== 'redis' && rule !== 'cluster_key_slot') {
      throw new InvalidSpecError(`rule must be "redis" or "cluster_key_slot", not ${JSON.stringify(rule)}`)
    }
    try {
      return backend.redisSlot(key, rule === 'redis' ? 0 : 1)
    } catch (e) {
      throw fromNative(e)
    }
  }

  const parseServer = (address) => {
    try {
      return backend.parseServer(address)
    } catch (e) {
      throw fromNative(e)
    }
  }

  const presets = definePresets(Router, {
    nodes: nodeList,
    buckets: (nodes, limits) => bucketList(nodes, nodeLimit(limits, LIMITS, LIMITS_CEILING)),
    servers: (s) => serverList(s, parseServer),
    slot_ranges: slotList,
    args: routerArgs,
  })

  return {
    Router,
    Transition,
    diff,
    redisSlot,
    errorTable: () => backend.errorTable(),
    LIMITS,
    LIMITS_CEILING,
    ...presets,
    ...errors,
  }
}

/**
 * `Router`'s options (`{ limits }`) as the native layer takes them: the limits to change as
 * JSON text (the native layer validates them: `invalid_parameter`), or undefined for the
 * defaults.
 */
function limitsJson(options) {
  if (options === undefined || options === null) return undefined
  if (!isPlainObject(options)) throw new InvalidTypeError(`options must be an object, not ${describe(options)}`)
  for (const key of Object.keys(options)) {
    if (key !== 'limits') throw new InvalidParameterError(`unknown Router option ${JSON.stringify(key)} (the one option is limits)`)
  }
  const { limits } = options
  if (limits === undefined || limits === null) return undefined
  if (!isPlainObject(limits)) {
    throw new InvalidTypeError(`limits must be an object of limit names to numbers, not ${describe(limits)}`)
  }
  try {
    return JSON.stringify(limits)
  } catch (e) {
    throw new InvalidTypeError(`limits cannot be written as JSON: ${e.message}`)
  }
}

/** A spec object as JSON text for the native layer, which validates it. */
function specJson(spec) {
  if (ArrayBuffer.isView(spec)) {
    throw new InvalidTypeError(`a spec's bytes must be a Buffer or Uint8Array, not ${describe(spec)}`)
  }
  if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) {
    throw new InvalidTypeError(`a spec must be an object, JSON text or bytes, not ${describe(spec)}`)
  }
  try {
    return JSON.stringify(spec)
  } catch (e) {
    throw new InvalidSpecError(`the spec cannot be written as JSON: ${e.message}`)
  }
}
