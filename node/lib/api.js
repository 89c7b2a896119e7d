// keyroute's JavaScript API, written once for both backends: the Node addon (napi-rs, `node/src`)
// and WebAssembly (wasm-bindgen, `wasm/src`), which expose the same low-level classes. Every
// decision (parsing, validation, the key text policy, hashing, lookup, analysis) is made there,
// in keyroute-bindings; this layer only turns JavaScript values into specs and results into
// JavaScript values, and native errors into the generated `KeyrouteError` classes.

import { definePresets } from './generated/algorithms.js'
import { DEFAULT_BALANCE_FACTOR, HOT_KEYS_DEFAULTS } from './generated/defaults.js'
import * as errors from './generated/errors.js'
import { describe, isPlainObject, nodeArgs, routerArgs } from './nodes.js'

const { fromNative, InvalidParameterError, InvalidSpecError, InvalidTypeError, IoError, NodeOutOfRangeError } = errors

/** Keys per native call in `routeMany` (bounds the joined string a batch builds). */
const CHUNK = 1 << 16

/** Only `BoundedLoad.acquire` makes a `Lease`. */
const LEASE = Symbol('keyroute.lease')

/** A random read-spreading selector (a client id gives a stable one instead). */
const randomSelector = () => Math.floor(Math.random() * 0x1_0000_0000)

// The intrinsic typed-array accessors: they read internal slots, so no Proxy trap, prototype or
// own property of the argument runs or fakes them.
const TypedArray = Object.getPrototypeOf(Uint8Array.prototype)
const typedArrayName = Object.getOwnPropertyDescriptor(TypedArray, Symbol.toStringTag).get
const typedArrayLength = Object.getOwnPropertyDescriptor(TypedArray, 'length').get

/**
 * The length of `view`, a Uint32Array whose memory is there; else a typed error naming `what`:
 * `invalid_type` for anything else (a Proxy of one included), `invalid_parameter` for a view
 * whose buffer was detached or shrank below it (both read as length 0, as an empty view does;
 * `at` tells them apart, throwing for them only).
 */
function uint32s(view, what) {
  const name = typedArrayName.call(view)
  if (name !== 'Uint32Array') {
    const got = name ? `a ${name}` : view === null ? 'null' : typeof view === 'object' ? 'an object that is not one' : `a ${typeof view}`
    throw new InvalidTypeError(`${what} must be a Uint32Array, not ${got}`)
  }
  const length = typedArrayLength.call(view)
  if (length === 0) {
    try {
      TypedArray.at.call(view, 0)
    } catch {
      throw new InvalidParameterError(`${what} has no memory: its buffer is detached, or shrank below the view`)
    }
  }
  return length
}

/** Bytes as the text they encode when they are UTF-8, else the bytes themselves. */
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })
function textOrBytes(bytes) {
  try {
    return utf8.decode(bytes)
  } catch {
    return bytes
  }
}

/** What a live view's per-key call returns when its version is not the one in effect. */
const OTHER_VERSION = 0xffffffff

/**
 * `f` with the native errors it throws (plain `Error`s whose `code` is `KR_…`) turned into the
 * generated `KeyrouteError` classes (`fromNative`); anything else it throws passes unchanged.
 * The one place the API wraps errors. Four arguments cover every method of the API (passing
 * `undefined` for a missing one is what a default or `?? null` expects anyway).
 */
function typed(f) {
  const wrapped = {
    [f.name](a, b, c, d) {
      try {
        return f.call(this, a, b, c, d)
      } catch (e) {
        throw fromNative(e)
      }
    },
  }[f.name]
  Object.defineProperty(wrapped, 'length', { value: f.length })
  return wrapped
}

/** Every method of `cls` (its prototype's and its static ones) through `typed`. */
function typedMethods(cls) {
  for (const target of [cls.prototype, cls]) {
    for (const name of Object.getOwnPropertyNames(target)) {
      const d = Object.getOwnPropertyDescriptor(target, name)
      if (name === 'constructor' || name === 'prototype' || typeof d.value !== 'function') continue
      Object.defineProperty(target, name, { ...d, value: typed(d.value) })
    }
  }
}

/**
 * The API over one backend: `{ NativeRouter, NativeTransition, NativeBoundedLoad,
 * NativeHotKeys, diff, errorTable, limitTable, parseServer, redisSlot, specNodes, splitKeys, splitKey,
 * routeIndex, handleOf }` from the addon or the WebAssembly module (`routeIndex(handle, key)`
 * is the per-key call; the addon makes it a plain Node-API function over a handle).
 */
export function makeApi(backend) {
  const { NativeRouter, NativeTransition, NativeBoundedLoad, NativeHotKeys, routeIndex, handleOf } = backend
  const { NativeLiveView, viewRouteAt, viewHandleOf } = backend
  // Native errors become `KeyrouteError` classes in one place, `typed`: it wraps the backend's
  // constructors (`construct`) and free functions here, and every method of the classes below
  // once they are defined (`typedMethods`).
  const construct = typed(function construct(Native, a, b, c) {
    return new Native(a, b, c)
  })
  const [nativeDiff, nativeSplitKeys, nativeSplitKey, nativeRedisSlot, specNodes] = [backend.diff, backend.splitKeys, backend.splitKey, backend.redisSlot, backend.specNodes].map(typed)
  // A spec the caller gave as an object: errors name its fields, not a line of our JSON.
  const fromSerialized = typed((text, limits) => NativeRouter.fromSerialized(text, limits))
  // Spec files: the addon only (the WebAssembly build reads no files).
  const fromFile = NativeRouter.fromFile ? typed((path, limits) => NativeRouter.fromFile(path, limits)) : undefined
  const table = backend.limitTable()
  /** The default limits, and the most each can be raised to (keyroute-bindings' `Limits`). */
  const LIMITS = Object.freeze(Object.fromEntries(table.map(([name, value]) => [name, value])))
  const LIMITS_CEILING = Object.freeze(Object.fromEntries(table.map(([name, , ceiling]) => [name, ceiling])))
  /** The native router of a `Router` (for `Transition` and `diff`), set by Router's static block. */
  let nativeOf
  /** The native live view of a `LiveView` (for `watch`), set by LiveView's static block. */
  let liveOf

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
        const text = typeof spec === 'string' || typedArrayName.call(spec) === 'Uint8Array'
        const limits = limitsJson(options)
        this.#n = text ? construct(NativeRouter, spec, limits) : fromSerialized(specJson(spec), limits)
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
      return this.#nodes[routeIndex(this.#h, key)]
    }

    /** The position (in `nodes`) of the node that owns `key`. */
    routeIndex(key) {
      return routeIndex(this.#h, key)
    }

    /** `n` distinct node ids for `key`, in preference order. */
    replicas(key, n) {
      return Array.from(this.#n.replicaIndices(key, n), (i) => this.#nodes[i])
    }

    /**
     * Read spreading for a hot key: the id of one of its first `r` replicas (its owner and the
     * next nodes of its preference order). With `client` (any stable id of the caller, a
     * string or bytes) the same client always reads the same copy; without, each call picks
     * one at random. Writes must reach all `r` copies (write or invalidate each), or a copy
     * left behind serves stale reads; caches that keep no replicas can split the key instead
     * (`splitKeys`, `splitKey`).
     */
    spread(key, r, client) {
      return this.#nodes[this.#n.spreadIndex(key, r, client ?? null, randomSelector())]
    }

    /** The slot `key` falls in, for slot-table routers (`slots`, `redis-cluster`); else null. */
    slot(key) {
      return this.#n.slot(key)
    }

    /** The 64-bit number (a bigint) this router routes `key` on. */
    keyHash(key) {
      return this.#n.keyHash(key)
    }

    /** The id of the node that owns every key whose `keyHash` is `hash`. */
    routeHash(hash) {
      return this.#nodes[this.#n.routeHash(hash)]
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
      const count = Math.max(uint32s(offsets, 'offsets') - 1, 0)
      if (out === undefined) out = new Uint32Array(count)
      else uint32s(out, 'out')
      this.#n.routeBatchInto(data, offsets, out)
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
      return this.#n.share()
    }

    /** The router a `share()` token names. */
    /**
     * The router a spec file describes: JSON, or TOML when its name ends in `.toml`, under
     * `options.limits`. A file that cannot be read is an `IoError` naming the path. The Node
     * addon only: the WebAssembly build reads no files (read the file yourself and pass its text).
     */
    static fromFile(path, options) {
      if (fromFile === undefined) {
        throw new IoError('Router.fromFile needs the Node addon; the WebAssembly build reads no files (pass the file\'s text to new Router)')
      }
      if (typeof path !== 'string') throw new InvalidTypeError(`a file path must be a string, not ${describe(path)}`)
      return new Router(fromFile(path, limitsJson(options)))
    }

    static fromShared(token) {
      return new Router(NativeRouter.fromShared(token))
    }
  }

  /** What changing from router `a` to router `b` moves; nodes are matched by id. */
  function diff(a, b) {
    const d = nativeDiff(nativeOf(a), nativeOf(b))
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
        this.#t = construct(NativeTransition, nativeOf(from), nativeOf(to), progress)
        this.#from = from
        this.#to = to
      }
      this.#nodes = Object.freeze(this.#t.nodeIds)
    }

    /** The same change at another progress. */
    withProgress(progress) {
      return new Transition(this.#t.withProgress(progress), [this.#from, this.#to])
    }

    /** The id of the node that owns `key` now. */
    route(key) {
      return this.#nodes[this.routeIndex(key)]
    }

    /** The position (in `nodes`) of the node that owns `key` now. */
    routeIndex(key) {
      return this.#t.routeIndex(key)
    }

    /** `{owner, previous}`: `previous` is where to read on a miss while data migrates, or null. */
    routeWithFallback(key) {
      const placed = this.#t.routeWithFallback(key)
      return { owner: this.#nodes[placed[0]], previous: placed.length > 1 ? this.#nodes[placed[1]] : null }
    }

    /** Whether `key` has cut over to its owner in B. */
    hasCutOver(key) {
      return this.#t.hasCutOver(key)
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
   * Consistent hashing with bounded loads: each request goes to the first node of its key's
   * preference order serving fewer than ⌈c · (total + 1) · weight / total weight⌉ requests,
   * `total` being the requests in flight, so no node takes more than `c` times its share, and
   * a key is served by its owner whenever the owner has room (keys go home as load falls).
   * The router must have a replica order (jump and modulo have none:
   * `ReplicasUnsupportedError`); its table is shared, not copied.
   */
  class BoundedLoad {
    #b
    #router
    #index

    constructor(router, c = DEFAULT_BALANCE_FACTOR) {
      const native = nativeOf(router)
      if (typeof c !== 'number') throw new InvalidTypeError(`the balance factor must be a number, not ${describe(c)}`)
      this.#b = construct(NativeBoundedLoad, native, c)
      this.#router = router
      this.#index = new Map(router.nodes.map((id, i) => [id, i]))
    }

    #position(node) {
      const i = this.#index.get(node)
      if (i === undefined) {
        if (typeof node !== 'string') throw new InvalidTypeError(`a node id must be a string, not ${describe(node)}`)
        throw new NodeOutOfRangeError(`no node ${JSON.stringify(node)} in this router`)
      }
      return i
    }

    /** `{node, rank, isHome}`: where `key` would go now, without taking a slot (rank 0: home). */
    pick(key) {
      const placed = this.#b.pick(key)
      return { node: this.#router.nodes[placed[0]], rank: placed[1], isHome: placed[1] === 0 }
    }

    /** Places `key` and takes a slot on its node: the `Lease` gives it back on `release()`. */
    acquire(key) {
      const lease = this.#b.acquire(key)
      return new Lease(LEASE, lease, this.#router.nodes[lease.node])
    }

    /** Requests in flight on `node` (an id). */
    load(node) {
      return this.#b.load(this.#position(node))
    }

    /** The most requests `node` (an id) may serve once one more arrives. */
    capacity(node) {
      return this.#b.capacity(this.#position(node))
    }

    /** Requests in flight over all nodes. */
    get total() {
      return this.#b.total
    }

    /** The balance factor `c`, as kept (three decimals). */
    get factor() {
      return this.#b.factor
    }

    /** The router it wraps. */
    get router() {
      return this.#router
    }
  }

  /**
   * A slot on a node, from `BoundedLoad.acquire`. `release()` gives it back (once: later calls
   * return false); so does a `using` declaration, and, as a last resort, the garbage collector.
   */
  class Lease {
    #l
    #node

    constructor(token, native, node) {
      if (token !== LEASE) throw new InvalidTypeError('a Lease comes from BoundedLoad.acquire')
      this.#l = native
      this.#node = node
    }

    /** The id of the node serving the request. */
    get node() {
      return this.#node
    }

    /** Its position in the key's preference order (0: the key's owner). */
    get rank() {
      return this.#l.rank
    }

    /** Whether the key is served by its owner. */
    get isHome() {
      return this.#l.rank === 0
    }

    /** Whether the slot is still held. */
    get held() {
      return this.#l.held
    }

    /** Gives the slot back: true the first time, false after. */
    release() {
      return this.#l.release()
    }
  }
  if (typeof Symbol.dispose === 'symbol') {
    Object.defineProperty(Lease.prototype, Symbol.dispose, {
      value() {
        this.release()
      },
      writable: true,
      configurable: true,
    })
  }

  /**
   * Which keys are hot, in fixed memory: a sketch of `width` counters a row (an estimate is
   * never below the true count) and the `capacity` most counted keys as candidates for
   * `top`, in `shards` parts. `decay()` halves every count: call it once a window and counts
   * become recent traffic.
   */
  class HotKeys {
    #h

    constructor(options) {
      const { width, capacity, shards } = hotKeysOptions(options)
      this.#h = construct(NativeHotKeys, width, capacity, shards)
    }

    /** Counts one observation of `key`; returns its estimate after it. */
    observe(key) {
      return this.#h.observe(key)
    }

    /** The estimate of `key`'s decayed count (never below the true count). */
    heat(key) {
      return this.#h.heat(key)
    }

    /**
     * Whether `key` was seen at least `count` times, or makes at least `share` (0 to 1) of the
     * observations (decayed): give exactly one of `{ count }` and `{ share }`.
     */
    isHot(key, by) {
      if (by !== undefined && by !== null && !isPlainObject(by)) {
        throw new InvalidTypeError(`isHot takes { count } or { share }, not ${describe(by)}`)
      }
      const { count, share } = by ?? {}
      if (count !== undefined && share === undefined) {
        if (typeof count !== 'number') throw new InvalidTypeError(`count must be a number, not ${describe(count)}`)
        if (!(Number.isInteger(count) && count >= 0 && count <= 0xffff_ffff)) {
          throw new InvalidParameterError(`count must be an integer from 0 to 2^32 - 1, not ${count}`)
        }
        return this.#h.isHot(key, count)
      }
      if (share !== undefined && count === undefined) {
        if (typeof share !== 'number') throw new InvalidTypeError(`share must be a number, not ${describe(share)}`)
        if (!(share >= 0 && share <= 1)) throw new InvalidParameterError(`share must be from 0 to 1, not ${share}`)
        return this.#h.isHotShare(key, share)
      }
      throw new InvalidParameterError('give exactly one of { count } and { share }')
    }

    /**
     * The `k` most counted keys, most counted first: `{key, count}`, the key as text when its
     * bytes are UTF-8 (every string key is), else as a Uint8Array.
     */
    top(k) {
      const [keys, counts] = this.#h.top(k)
      return keys.map((key, i) => ({ key: textOrBytes(key), count: counts[i] }))
    }

    /** Halves every count. */
    decay() {
      this.#h.decay()
    }

    /** Observations counted (decayed with the counts). */
    get total() {
      return this.#h.total
    }

    /** Bytes the detector holds. */
    get memoryBytes() {
      return this.#h.memoryBytes
    }
  }

  /**
   * The `r` derived keys a hot key is written under when the cache keeps no replicas,
   * `key#1` … `key#r` (text for a text key, else bytes); each routes on its own.
   */
  function splitKeys(key, r) {
    const keys = nativeSplitKeys(key, r)
    return typeof key === 'string' ? keys.map((k) => utf8.decode(k)) : keys
  }

  /**
   * The derived key to read a split hot key from: one of `splitKeys(key, r)`, the same for the
   * same `client` (a string or bytes), random without one.
   */
  function splitKey(key, r, client) {
    const derived = nativeSplitKey(key, r, client ?? null, randomSelector())
    return typeof key === 'string' ? utf8.decode(derived) : derived
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
    return nativeRedisSlot(key, rule === 'redis' ? 0 : 1)
  }

  /**
   * The view in effect for this process: route through it, feed it with `watch` (the addon) or
   * `publish` documents yourself (any backend, e.g. a page handing in what its server sent).
   * A newer version applies atomically and a lookup never waits; a document that does not
   * build, or is not newer, is refused (thrown, and recorded in `lastRefusal`) while the last
   * good view stays. Routing before any view is applied throws `NoViewError`.
   */
  class LiveView {
    #v
    #h
    // The node ids of the version the last routeFresh handed over (the native side keeps
    // that version, and routes for it).
    #ids = []

    /** A live view with no view yet; documents are read under `options.limits`. */
    constructor(options) {
      this.#v = construct(NativeLiveView, limitsJson(options))
      this.#h = viewHandleOf(this.#v)
    }

    static {
      liveOf = (view) => {
        if (!(view instanceof LiveView)) throw new InvalidTypeError(`expected a LiveView, not ${describe(view)}`)
        return view.#v
      }
    }

    /**
     * Applies a view document — `{version, spec, rollout?}`, its JSON text or that text's
     * bytes — if its version is newer than the one in effect and it builds; returns the version.
     */
    publish(document) {
      return this.#v.publish(documentText(document))
    }

    /** The id of the node that owns `key` in the view in effect. */
    route(key) {
      const i = viewRouteAt(this.#h, key)
      return i !== OTHER_VERSION ? this.#ids[i] : this.#fresh(key)
    }

    // A newer view than the one whose node ids this object keeps: route and take its ids at once.
    #fresh(key) {
      const { index, ids } = this.#v.routeFresh(key)
      this.#ids = Object.freeze(ids)
      return ids[index]
    }

    /**
     * `{owner, previous}` ids: during a rollout, `previous` is the node that owned a key which
     * has cut over (read there on a miss), else null.
     */
    routeWithFallback(key) {
      const [owner, previous = null] = this.#v.routeWithFallback(key)
      return { owner, previous }
    }

    /**
     * `{from, to}`: the owners of `key` at the two ends of the rollout in effect (`to` null for
     * a plain view), the copies a write or a delete during a rollout must reach.
     */
    ends(key) {
      const [from, to = null] = this.#v.ends(key)
      return { from, to }
    }

    /** The version in effect, or null before the first. */
    get version() {
      return this.#v.status().version
    }

    /** The view in effect's fingerprint as text (16 lowercase hex digits), or null. */
    get fingerprint() {
      return this.#v.status().fingerprint
    }

    /** The rollout's progress now (0 to 1), or null for a plain view. */
    get progress() {
      return this.#v.status().progress
    }

    /** When the view in effect was applied, as a `Date`, or null. */
    get appliedAt() {
      const ms = this.#v.status().appliedUnixMs
      return ms === null ? null : new Date(ms)
    }

    /** How many documents this live view has refused. */
    get refusals() {
      return this.#v.status().refusals
    }

    /** The last refusal, `{version, code, error, message, at_unix_ms}`, or null. */
    get lastRefusal() {
      const text = this.#v.status().lastRefusal
      return text === null ? null : JSON.parse(text)
    }

    /** The view in effect as a canonical view document (JSON text), or null. */
    documentJson() {
      return this.#v.documentJson()
    }
  }

  // Sources (a file or directory, etcd) and the census: the addon only.
  const sources = backend.watchSource !== undefined
  const needsAddon = (what) => {
    if (!sources) {
      throw new IoError(`${what} needs the Node addon; the WebAssembly build has no files or sockets (publish documents to a LiveView yourself)`)
    }
  }
  // A promise of the addon resolves to an Error when its work failed (node/src/view.rs).
  const settle = async (promise) => {
    const value = await promise
    if (value instanceof Error) throw fromNative(value)
    return value
  }

  /** A running watch of a source (`watch`): `stop()` it, or `await using` it. */
  class Watch {
    #w

    constructor(native) {
      this.#w = native
    }

    /** Stops the watch and leaves the census; the live view keeps the view it has. */
    stop() {
      return settle(this.#w.stop()).then(() => undefined)
    }

    [Symbol.asyncDispose]() {
      return this.stop()
    }

    /** Whether the watch runs. */
    get running() {
      return this.#w.running
    }

    /** The source's URL. */
    get url() {
      return this.#w.url
    }

    /** The id this watch registered in the census as, or null. */
    get instance() {
      return this.#w.instance ?? null
    }
  }

  /**
   * Feeds `view` from `source` (`file:///…`, a path, or `etcd://HOST:PORT/KEY`) until the
   * returned `Watch` is stopped: its current document now, then every change, seen at once
   * where the source notifies (inotify, etcd's watch stream) and at the latest every
   * `pollInterval` seconds. With `census` (on by default for etcd) the instance registers in
   * the source's census as `instance` (default `HOST-PID`), surface `node`, its entry outliving
   * it by `censusTtl` seconds. Resolves once the first read is applied or refused, or after
   * `first` seconds (0: at once). The addon only.
   */
  async function watch(source, view, options = {}) {
    needsAddon('watch')
    const o = viewOptions(options, { pollInterval: 1, pollOnly: false, census: null, instance: null, censusTtl: 10, first: 5 })
    const live = liveOf(view)
    const { version, refusals } = live.status()
    const native = await settle(
      backend.watchSource(text(source, 'source'), live, o.pollInterval, o.pollOnly, o.census, o.instance, o.censusTtl),
    )
    const deadline = Date.now() + o.first * 1000
    for (;;) {
      const now = live.status()
      if (now.version !== version || now.refusals !== refusals || Date.now() >= deadline) break
      await new Promise((resolve) => setTimeout(resolve, 2))
    }
    return new Watch(native)
  }

  /**
   * Publishes a view document (an object, JSON text or bytes) to `source` if it holds
   * `expectVersion` (0 for none), as `keyroute view publish` does: of two publishers expecting
   * the same version exactly one wins, the other gets `VersionConflictError`. A document that
   * does not build is never written. Resolves to the version published. The addon only.
   */
  async function publishView(source, document, options = {}) {
    needsAddon('publishView')
    const o = viewOptions(options, { expectVersion: undefined, limits: undefined })
    if (o.expectVersion === undefined) throw new InvalidParameterError('publishView needs options.expectVersion (0 when the source holds no view)')
    const expect = typeof o.expectVersion === 'bigint' ? Number(o.expectVersion) : o.expectVersion
    if (typeof expect !== 'number') throw new InvalidTypeError(`expectVersion must be a number, not ${describe(o.expectVersion)}`)
    return settle(backend.publishView(text(source, 'source'), documentText(document), expect, limitsJson({ limits: o.limits })))
  }

  /**
   * The census of `source` against its view, as `keyroute fleet status --json` prints it:
   * `version`, `fingerprint`, `problem`, and one entry per instance with its `standing`
   * (`sync`, `behind`, `stale` — behind for longer than `deadline` seconds —, `refused` or
   * `diverged`). The addon only.
   */
  async function fleetStatus(source, options = {}) {
    needsAddon('fleetStatus')
    const o = viewOptions(options, { deadline: 30, limits: undefined })
    return JSON.parse(await settle(backend.fleetStatus(text(source, 'source'), o.deadline, limitsJson({ limits: o.limits }))))
  }

  /**
   * Whether every registered instance of a `fleetStatus` result routes with the source's view
   * (and there is at least one): the gate a rollout step waits for.
   */
  function converged(status) {
    const instances = status?.instances ?? []
    return instances.length > 0 && status.problem == null && !status.unreadable?.length && instances.every((i) => i.standing === 'sync')
  }

  for (const cls of [Router, Transition, BoundedLoad, Lease, HotKeys, LiveView]) typedMethods(cls)

  const presets = definePresets(Router, {
    nodes: (nodes, limits) => nodeArgs('nodes', nodes, limits, specNodes),
    buckets: (nodes, limits) => nodeArgs('buckets', nodes, limits, specNodes),
    servers: (nodes, limits) => nodeArgs('servers', nodes, limits, specNodes),
    slot_ranges: (nodes, limits) => nodeArgs('slot_ranges', nodes, limits, specNodes),
    args: routerArgs,
  })

  return {
    Router,
    Transition,
    BoundedLoad,
    Lease,
    HotKeys,
    LiveView,
    Watch,
    watch,
    publishView,
    fleetStatus,
    converged,
    diff,
    redisSlot,
    splitKeys,
    splitKey,
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

/** A view document (an object, JSON text, or bytes) as the native layer takes it. */
function documentText(document) {
  if (typeof document === 'string' || ArrayBuffer.isView(document)) return document
  if (!isPlainObject(document)) throw new InvalidTypeError(`a view document must be an object, JSON text or bytes, not ${describe(document)}`)
  try {
    return JSON.stringify(document)
  } catch (e) {
    throw new InvalidTypeError(`the view document cannot be written as JSON: ${e.message}`)
  }
}

/** `value` when it is a string, else `InvalidTypeError` naming `what`. */
function text(value, what) {
  if (typeof value !== 'string') throw new InvalidTypeError(`${what} must be a string, not ${describe(value)}`)
  return value
}

/** Options of a view function: only the names in `defaults`, which fill what is left out. */
function viewOptions(options, defaults) {
  if (options === undefined || options === null) return defaults
  if (!isPlainObject(options)) throw new InvalidTypeError(`options must be an object, not ${describe(options)}`)
  for (const key of Object.keys(options)) {
    if (!Object.hasOwn(defaults, key)) {
      throw new InvalidParameterError(`unknown option ${JSON.stringify(key)} (${Object.keys(defaults).join(', ')})`)
    }
  }
  return { ...defaults, ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) }
}

/** `HotKeys`' options (`{ width, capacity, shards }`) with the defaults filled in. */
function hotKeysOptions(options) {
  if (options === undefined || options === null) return HOT_KEYS_DEFAULTS
  if (!isPlainObject(options)) throw new InvalidTypeError(`options must be an object, not ${describe(options)}`)
  for (const key of Object.keys(options)) {
    if (!Object.hasOwn(HOT_KEYS_DEFAULTS, key)) {
      throw new InvalidParameterError(`unknown HotKeys option ${JSON.stringify(key)} (width, capacity, shards)`)
    }
  }
  return { ...HOT_KEYS_DEFAULTS, ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) }
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
