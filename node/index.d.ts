// keyroute: which node owns this key? Types of the JavaScript API, the same for the Node addon
// (`keyroute`) and the WebAssembly build (`keyroute/wasm`, and `keyroute` in browsers). The
// constructors of the algorithms and presets, and the error classes, are generated from the
// registry and the error table (lib/generated/).

export * from './lib/generated/errors.js'
export * from './lib/generated/algorithms.js'
export * from './lib/generated/defaults.js'

/**
 * A key: text (routed as its UTF-8; a lone surrogate is refused with `InvalidUtf8Error`), or bytes
 * as given (`Buffer`, `Uint8Array`).
 */
export type Key = string | Uint8Array

/** One node of a spec; only `id` is required (which algorithms read which field: VECTORS.md). */
export interface NodeSpec {
  id: string
  weight?: number
  zone?: string
  host?: string
  port?: number
  name?: string
  slots?: Array<[number, number]>
}

/** A topology spec, the JSON document every keyroute surface accepts. */
export interface Spec {
  algorithm: string
  params?: Record<string, unknown>
  nodes: NodeSpec[]
  version?: number
}

/**
 * What a spec may ask of the process that builds it (conformance/SPEC.md, Limits). Pass only the
 * limits to change; the others keep their defaults (`LIMITS`), and none may exceed
 * `LIMITS_CEILING` (else `InvalidParameterError`). A spec over one is refused before anything is
 * built: `SpecTooLargeError`, `TooManyNodesError`, `TooManyPointsError`,
 * `TableSizeOutOfRangeError`.
 */
export interface Limits {
  /** Largest spec document, in bytes (UTF-8). Default 8 MiB. */
  max_spec_bytes?: number
  /** Most nodes. Default 16,384. */
  max_nodes?: number
  /** Most ring points over all nodes and weights (ring-based algorithms and presets). */
  max_points?: number
  /** Most bytes hashed to place those points (long node ids cannot multiply the work). */
  max_hashed_bytes?: number
  /** Most entries of a lookup table (Maglev's table, a slot table). */
  max_table_entries?: number
}

/**
 * Which backend this entry routes on: `'native'` (the addon of the installed
 * `keyroute-<platform>` package, or a checkout's build) or `'wasm'` (WebAssembly: `keyroute/wasm`,
 * browsers, and Node.js where no addon is installed or `KEYROUTE_BACKEND=wasm`).
 */
export declare const backend: 'native' | 'wasm'

/** The default limits (frozen). */
export declare const LIMITS: Readonly<Required<Limits>>
/** The most each limit can be raised to (frozen). */
export declare const LIMITS_CEILING: Readonly<Required<Limits>>

/** Options of `Router`. */
export interface RouterOptions {
  /** The limits to change for this router (see `LIMITS`). */
  limits?: Limits
}

/** Nodes: `{id: weight}`, a `Map` of id to weight, or an iterable of ids, `[id, weight]` pairs and node objects. */
export type Nodes = Record<string, number> | Map<string, number> | Iterable<string | [string, number] | NodeSpec>

/** Memcached-style servers: `{'host:port': weight}`, a `Map`, or addresses, `[address, weight]` pairs and node objects. */
export type Servers = Record<string, number> | Map<string, number> | Iterable<string | [string, number] | NodeSpec>

/** Slot owners: `{id: [[first, last], …]}` (inclusive ranges), a `Map`, or node objects with `slots`. */
export type SlotRanges =
  | Record<string, Iterable<readonly [number, number]>>
  | Map<string, Iterable<readonly [number, number]>>
  | Iterable<NodeSpec>

/** How a figure was obtained. */
export type Method = 'exact' | 'slot_share' | 'expected' | 'sampled'

/** How evenly keys spread, relative to each node's fair share (weight / total). */
export interface Balance {
  /** Coefficient of variation of share / fair share over nodes with weight. */
  cv: number
  /** Largest share / fair share. */
  maxOverMean: number
  /** Smallest share / fair share. */
  minOverMean: number
}

/** The share of keys each node owns (shares sum to 1). */
export interface Ownership {
  shares: Map<string, number>
  balance: Balance
  method: Method
  /** Keys routed, when `method` is `'sampled'`. */
  sampleKeys: number | null
}

/** A share of all keys that goes from node `source` (in A) to node `target` (in B). */
export interface Flow {
  source: string
  target: string
  share: number
}

/** A moved piece of the key-hash space, `start` to `end` inclusive (exact diffs only). */
export interface MovedArc {
  start: bigint
  end: bigint
  source: string
  target: string
}

/** What changing from router A to router B does. */
export interface Diff {
  /** Share of keys whose owner (by node id) changes. */
  moved: number
  /** The least any router could move for this change of nodes and weights. */
  idealMoved: number
  /** Every (source, target) pair with a positive share, staying keys included. */
  flows: Flow[]
  /** The moved pieces of the hash space, in hash order (exact diffs only; else empty). */
  movedArcs: MovedArc[]
  method: Method
  sampleKeys: number | null
}

/**
 * A router: which node owns a key. Immutable. Build one from a spec (an object, its JSON text,
 * or that text's bytes), or with the constructors `Ring`, `Jump`, `Maglev`, … and the peer
 * presets (`Libmemcached`, `NpmHashring`, …), which are subclasses.
 */
export declare class Router {
  /**
   * A router from `spec`: an object, JSON text, or its bytes (a `Buffer` or `Uint8Array`: the
   * size is checked before the encoding), under `options.limits`.
   */
  constructor(spec: Spec | string | Uint8Array, options?: RouterOptions)
  /** The id of the node that owns `key`. */
  route(key: Key): string
  /** The position (in `nodes`) of the node that owns `key`. */
  routeIndex(key: Key): number
  /** `n` distinct node ids for `key`, in preference order (zones first when nodes have zones). */
  replicas(key: Key, n: number): string[]
  /**
   * Read spreading for a hot key: the id of one of its first `r` replicas (its owner first).
   * With `client` (any stable id of the caller) the same client always reads the same copy;
   * without, each call picks one at random. Writes must reach all `r` copies.
   */
  spread(key: Key, r: number, client?: Key | null): string
  /** The slot `key` falls in, for slot-table routers (`slots`, `redis-cluster`); else null. */
  slot(key: Key): number | null
  /** The 64-bit number this router routes `key` on (ring, jump, Maglev, modulo and their presets). */
  keyHash(key: Key): bigint
  /** The id of the node that owns every key whose `keyHash` is `hash`. */
  routeHash(hash: bigint): string
  /** The owner of each key. An error names the failing key (`keyIndex`). */
  routeMany(keys: Iterable<Key>): string[]
  /** The owners' positions (in `nodes`) of each key. */
  routeIndices(keys: Iterable<Key>): Uint32Array
  /**
   * Routes keys packed into one buffer, read in place: key `i` is
   * `data.subarray(offsets[i], offsets[i + 1])`. Returns node positions in `out`, or in a new
   * array of `offsets.length - 1`.
   */
  routeBatch(data: Uint8Array, offsets: Uint32Array, out?: Uint32Array): Uint32Array
  /** The node ids, in spec order (routes answer positions in this array). */
  readonly nodes: readonly string[]
  /** Number of nodes. */
  readonly size: number
  /** The algorithm or preset the spec names. */
  readonly algorithm: string
  /** The view's version from the spec (0 when unversioned). */
  readonly version: number
  /** XXH3-64 of `canonicalJson`: equal for two processes holding the same view. */
  readonly fingerprint: bigint
  /** The spec in canonical form: every default filled in, keys sorted, no whitespace. */
  readonly canonicalJson: string
  /** The spec in canonical form, as a new object. */
  readonly spec: Spec
  /** Whether `other` is a router of the same canonical spec. */
  equals(other: unknown): boolean
  toJSON(): Spec
  /** The share of keys each node owns, with the balance figures. */
  ownership(): Ownership
  /**
   * The key-hash space as pieces, each owned by one node (rings, Maglev, hash slots; null for the
   * other algorithms): `starts[i]` is the first hash of piece `i`, `owners[i]` its owner's
   * position in `nodes`; the space holds `2 ** bits` hashes.
   */
  pieces(): { bits: number; starts: BigUint64Array; owners: Uint32Array } | null
  /**
   * A token (a number) another worker thread gives to `Router.fromShared` to route through
   * this router without copying its table (Node addon; the WebAssembly build cannot share memory
   * between workers and throws). Valid while this router is alive.
   */
  share(): number
  /** The router a `share()` token names. */
  static fromShared(token: number): Router
  /**
   * The router a spec file describes: JSON, or TOML when its name ends in `.toml`, under
   * `options.limits`. The Node addon only: the WebAssembly build reads no files and throws an
   * `IoError` (read the file yourself and pass its text to `new Router`).
   */
  static fromFile(path: string, options?: RouterOptions): Router
}

/** What changing from router `a` to router `b` moves; nodes are matched by id. */
export declare function diff(a: Router, b: Router): Diff

/** A change from router A to router B, part way done (conformance/SPEC.md, transition-v1). */
export declare class Transition {
  /** `progress` 0 routes exactly as `from`, 1 exactly as `to`; raising it only moves keys to B. */
  constructor(from: Router, to: Router, progress?: number)
  /** The same change at another progress. */
  withProgress(progress: number): Transition
  /** The id of the node that owns `key` now. */
  route(key: Key): string
  /** The position (in `nodes`) of the node that owns `key` now. */
  routeIndex(key: Key): number
  /** The owner now, and where to read on a miss while data migrates (or null). */
  routeWithFallback(key: Key): { owner: string; previous: string | null }
  /** Whether `key` has cut over to its owner in B. */
  hasCutOver(key: Key): boolean
  /** Both sides' node ids: B's in order, then A's that B lacks. */
  readonly nodes: readonly string[]
  readonly progress: number
  readonly from: Router
  readonly to: Router
  /** Both views and the progress, fingerprints as 16 hex digits. */
  describe(): {
    from: { version: number; fingerprint: string }
    to: { version: number; fingerprint: string }
    progress: number
  }
}

/**
 * The Redis Cluster slot of `key`: Redis's own hash-tag rule by default, or npm
 * `cluster-key-slot`'s (`rule: 'cluster_key_slot'`), which differs on keys like `foo{}{bar}`.
 */
export declare function redisSlot(key: Key, options?: { rule?: 'redis' | 'cluster_key_slot' }): number

/** `[code, name, category, description]` of every kind of the error table. */
export declare function errorTable(): Array<[number, string, string, string]>

/** Where `BoundedLoad.pick` would place a key now. */
export interface Pick {
  /** The node's id. */
  node: string
  /** Its position in the key's preference order: 0 is the key's owner. */
  rank: number
  /** Whether the key would be served by its owner. */
  isHome: boolean
}

/**
 * Consistent hashing with bounded loads: each request goes to the first node of its key's
 * preference order serving fewer than ⌈c · (total + 1) · weight / total weight⌉ requests, so no
 * node takes more than `c` times its share, and keys go home as load falls. The router needs a
 * replica order (jump and modulo have none: `ReplicasUnsupportedError`).
 */
export declare class BoundedLoad {
  /** Bounded loads over `router` with balance factor `c` (1 to 1000; `DEFAULT_BALANCE_FACTOR`). */
  constructor(router: Router, c?: number)
  /** Where `key` would go now, without taking a slot. */
  pick(key: Key): Pick
  /** Places `key` and takes a slot on its node until the lease is released. */
  acquire(key: Key): Lease
  /** Requests in flight on `node` (an id; `NodeOutOfRangeError` for another). */
  load(node: string): number
  /** The most requests `node` may serve once one more arrives. */
  capacity(node: string): number
  /** Requests in flight over all nodes. */
  readonly total: number
  /** The balance factor `c`, as kept (three decimals). */
  readonly factor: number
  /** The router it wraps. */
  readonly router: Router
}

/**
 * A slot on a node from `BoundedLoad.acquire`: `release()` gives it back once (later calls return
 * false), as does a `using` declaration; the garbage collector releases a forgotten one.
 */
export declare class Lease {
  private constructor()
  /** The id of the node serving the request. */
  readonly node: string
  /** Its position in the key's preference order (0: the key's owner). */
  readonly rank: number
  /** Whether the key is served by its owner. */
  readonly isHome: boolean
  /** Whether the slot is still held. */
  readonly held: boolean
  /** Gives the slot back: true the first time, false after. */
  release(): boolean
  [Symbol.dispose](): void
}

/** `HotKeys`' sizes; each defaults to `HOT_KEYS_DEFAULTS`. */
export interface HotKeysOptions {
  /** Sketch counters a row (rounded up to a power of two). */
  width?: number
  /** Candidate keys kept for `top`. */
  capacity?: number
  /** Parts, each behind its own lock (1 to 256). */
  shards?: number
}

/**
 * Which keys are hot, in fixed memory: a sketch (an estimate is never below the true count) and
 * the most counted keys as candidates. `decay()` halves every count.
 */
export declare class HotKeys {
  constructor(options?: HotKeysOptions)
  /** Counts one observation of `key`; returns its estimate after it. */
  observe(key: Key): number
  /** The estimate of `key`'s decayed count (never below the true count). */
  heat(key: Key): number
  /** Whether `key` was seen at least `count` times, or makes at least `share` of the traffic. */
  isHot(key: Key, by: { count: number; share?: undefined } | { share: number; count?: undefined }): boolean
  /** The `k` most counted keys, most counted first (text when the key's bytes are UTF-8). */
  top(k: number): Array<{ key: string | Uint8Array; count: number }>
  /** Halves every count. */
  decay(): void
  /** Observations counted (decayed with the counts). */
  readonly total: number
  /** Bytes the detector holds. */
  readonly memoryBytes: number
}

/**
 * The `r` derived keys (`key#1` … `key#r`) a hot key is written under when the cache keeps no
 * replicas: text for a text key, bytes for bytes.
 */
export declare function splitKeys(key: string, r: number): string[]
export declare function splitKeys(key: Uint8Array, r: number): Uint8Array[]
/** The derived key to read a split hot key from: the same for the same `client`, else random. */
export declare function splitKey(key: string, r: number, client?: Key | null): string
export declare function splitKey(key: Uint8Array, r: number, client?: Key | null): Uint8Array

/**
 * A view document: a topology at a version, optionally rolling out to another (docs/views.md).
 * `fingerprint`, when present, must match what the spec builds to (16 hex digits).
 */
export interface ViewDocument {
  version: number
  spec: Spec
  rollout?: {
    to: Spec
    progress?: number
    schedule?: { start_unix_ms: number; duration_ms: number }
  }
  fingerprint?: string
}

/** A refused document: its version (null when it could not be read), and the error. */
export interface Refusal {
  version: number | null
  code: number
  error: string
  message: string
  at_unix_ms: number
}

/**
 * The view in effect for this process. A newer version applies atomically and a lookup never
 * waits; a document that does not build, or is not newer, is refused (thrown, and recorded)
 * while the last good view stays. Routing before a first view throws `NoViewError`.
 */
export declare class LiveView {
  constructor(options?: RouterOptions)
  /** Applies `document` if it is newer and builds; returns its version. */
  publish(document: ViewDocument | string | Uint8Array): number
  /** The id of the node that owns `key` in the view in effect. */
  route(key: Key): string
  /** The owner, and during a rollout the previous owner of a key that has cut over (or null). */
  routeWithFallback(key: Key): { owner: string; previous: string | null }
  /** The owners at the rollout's two ends (`to` null for a plain view): where writes must go. */
  ends(key: Key): { from: string; to: string | null }
  readonly version: number | null
  /** 16 lowercase hex digits, as in every document and the census. */
  readonly fingerprint: string | null
  readonly progress: number | null
  readonly appliedAt: Date | null
  readonly refusals: number
  readonly lastRefusal: Refusal | null
  /** The view in effect as a canonical view document (JSON text). */
  documentJson(): string | null
}

/** A running watch of a source. */
export declare class Watch {
  /** Stops the watch and leaves the census; the live view keeps its view. */
  stop(): Promise<void>
  [Symbol.asyncDispose](): Promise<void>
  readonly running: boolean
  readonly url: string
  readonly instance: string | null
}

export interface WatchOptions {
  /** Seconds between reads where the source does not notify (default 1). */
  pollInterval?: number
  /** Read by polling only (default false). */
  pollOnly?: boolean
  /** Register in the source's census (default: on for etcd, off for files). */
  census?: boolean | null
  /** The census id (default `HOST-PID`). */
  instance?: string | null
  /** Seconds an entry outlives an instance that died without stopping (default 10). */
  censusTtl?: number
  /** Seconds `watch` waits for the first read (default 5; 0: none). */
  first?: number
}

/**
 * Feeds `view` from `source` (`file:///…`, a path, or `etcd://HOST:PORT/KEY`) until the watch
 * is stopped. The Node addon only (the WebAssembly build rejects with `IoError`).
 */
export declare function watch(source: string, view: LiveView, options?: WatchOptions): Promise<Watch>

/**
 * Publishes `document` to `source` if the source holds `expectVersion` (0: none), a
 * compare-and-swap (`VersionConflictError` for the loser of a race). The Node addon only.
 */
export declare function publishView(
  source: string,
  document: ViewDocument | string | Uint8Array,
  options: { expectVersion: number | bigint; limits?: Limits },
): Promise<number>

/** One instance in a census. */
export interface CensusEntry {
  standing: 'sync' | 'behind' | 'stale' | 'refused' | 'diverged'
  behind_ms: number | null
  instance: string
  surface: string
  keyroute_version: string
  host: string
  pid: number
  started_unix_ms: number
  ttl_ms: number
  view_version: number | null
  fingerprint: string | null
  progress: number | null
  applied_unix_ms: number | null
  refusal: Refusal | null
  refusals: number
}

/** A source's census against its view, as `keyroute fleet status --json` prints it. */
export interface FleetStatus {
  source: string
  version: number | null
  fingerprint: string | null
  published_unix_ms: number | null
  /** Why the source's document does not build, when it does not. */
  problem: Refusal | null
  deadline_ms: number
  instances: CensusEntry[]
  /** Census entries that could not be read. */
  unreadable: Array<{ instance: string; message: string }>
}

/** The census of `source` against its view. The Node addon only. */
export declare function fleetStatus(source: string, options?: { deadline?: number; limits?: Limits }): Promise<FleetStatus>

/** Whether every registered instance routes with the source's view (and there is one). */
export declare function converged(status: FleetStatus): boolean
