// `keyroute/hashring`: npm `hashring` 3.x's `HashRing` API over keyroute's `npm-hashring` preset,
// which routes every key exactly as hashring does (vectors captured from hashring 3.2.0, and a
// live comparison in the tests). What it does not cover is refused with a keyroute error rather
// than approximated: custom hash algorithms, per-server `vnodes`, fractional, negative or
// infinite weights (`weightOf`), more than 4 replicas, `range(key, size, false)`, the point-level
// methods `find`, `points` and `hashValue` (each throws `InvalidParameterError`: the ring's points
// live in the native router), and keys whose text holds a lone surrogate (hashring hashes those
// as U+FFFD; keyroute refuses them, see conformance/SPEC.md).
//
// Like hashring, the module is the constructor: `require('keyroute/hashring')` returns
// `HashRing` itself (code written for `var HashRing = require('hashring')` works unchanged),
// with `HashRing.HashRing` and `HashRing.default` on it, and `import HashRing from
// 'keyroute/hashring'` gives the same class. `HashRing.version` is the hashring release whose
// API and routes this module reproduces ('3.2.0'), as hashring's own `version` is its release.

import { InvalidParameterError, InvalidTypeError, NpmHashring } from './index.js'

/**
 * A weight as hashring reads it, `+weight || 1` (so a missing, zero, `NaN` or non-numeric
 * weight is 1, and a numeric string its number), then checked: a negative or infinite weight,
 * which hashring turns into a broken ring (no points at all for Infinity, a loop until out of
 * memory when a negative weight brings the total to 0, a server without points otherwise), a
 * fractional one and one above 2^32 - 1 are refused with `InvalidParameterError`; a weight
 * JavaScript cannot make a number of (a BigInt, a Symbol, an object whose `valueOf` throws),
 * which hashring lets throw a bare `TypeError`, with `InvalidTypeError`.
 */
function weightOf(raw) {
  const weight = toNumber(raw, 'a hashring weight') || 1
  if (!Number.isInteger(weight) || weight < 0 || weight > 0xffffffff) {
    throw new InvalidParameterError(
      `hashring weights must be whole numbers from 1 to 4294967295 for keyroute/hashring (got ${weight})`,
    )
  }
  return weight
}

/** `+raw`, with `InvalidTypeError` where JavaScript throws (a BigInt, a Symbol, a throwing `valueOf`). */
function toNumber(raw, what) {
  try {
    return +raw
  } catch (cause) {
    throw new InvalidTypeError(`${what} must be a number or numeric text (got ${typeof raw})`, { cause })
  }
}

/** `{host, port, string, weight}`, as hashring's server parser gives them. */
function server(string, value) {
  if (typeof string !== 'string') {
    throw new InvalidTypeError('hashring servers are strings ("host:port") or objects of them')
  }
  if (value === null) {
    // hashring reads `null.weight` here (a bare TypeError).
    throw new InvalidTypeError(`hashring server ${string}: a weight or {weight} object, not null`)
  }
  const object = typeof value === 'object'
  if (object && 'vnodes' in value && (toNumber(value.vnodes, 'vnodes') || 0) !== 0) {
    throw new InvalidParameterError('per-server vnodes are not supported by keyroute/hashring')
  }
  const weight = weightOf(object ? value.weight : value)
  const [host, port] = string.split(':')
  return { host, port: +port, string, weight }
}

/** hashring's `connection-parse`: a string, an array of strings, or `{server: weight | {weight}}`. */
function parse(servers) {
  if (Array.isArray(servers)) return servers.map((s) => server(s))
  if (servers !== null && typeof servers === 'object') return Object.keys(servers).map((s) => server(s, servers[s]))
  if (servers) return [server(servers)]
  return []
}

/** The point-level methods keyroute/hashring refuses: the ring's points live in the native router. */
function pointLevel(method) {
  return new InvalidParameterError(
    `HashRing#${method} is not supported by keyroute/hashring: the ring's points live in keyroute's native router (get, range and has answer from it)`,
  )
}

export default class HashRing {
  /** The hashring release whose API and routes this module reproduces. */
  static version = '3.2.0'

  #options
  #router = null
  /** Internal node id → the name `get` reports (differs only after `swap`, until a rebuild). */
  #names = null
  #owners = null

  /**
   * `new HashRing(servers, algorithm = 'md5', options)`: `servers` is `'host:port'`, an array of
   * them, or `{ 'host:port': weight }`; options are hashring's (`'vnode count'`,
   * `'default port'`, `compatibility`, `replicas`; `'max cache size'` is accepted and unused,
   * as keyroute needs no cache).
   */
  constructor(servers, algorithm, options) {
    options = options || {}
    if (algorithm !== undefined && algorithm !== null && algorithm !== 'md5') {
      throw new InvalidParameterError('keyroute/hashring reproduces hashring with its md5 algorithm only')
    }
    let replicas = options.compatibility
      ? options.compatibility === 'hash_ring'
        ? 3
        : 4
      : 'replicas' in options
        ? +options.replicas
        : 4
    if (replicas <= 0) replicas = 1
    const defaultPort = options['default port'] || null
    this.vnode = 'vnode count' in options ? options['vnode count'] : 40
    this.replicas = replicas
    this.defaultport = defaultPort
    this.algorithm = 'md5'
    this.#options = {
      vnodeCount: this.vnode,
      replicas,
      // hashring compares the option with a numeric port (===): a string option never matches.
      defaultPort: typeof defaultPort === 'number' ? defaultPort : undefined,
    }
    this.servers = parse(servers)
    this.continuum()
  }

  /** Rebuilds the ring from `servers` (hashring's continuum). */
  continuum() {
    this.#names = null
    this.#owners = null
    this.#router = this.servers.length
      ? new NpmHashring(
          this.servers.map((s) => ({ id: s.string, weight: s.weight })),
          this.#options,
        )
      : null
    return this
  }

  /** The server for `key` (its text: `String(key)`, as hashring hashes `key + ''`). */
  get(key) {
    if (this.#router === null) return undefined
    const id = this.#router.route(String(key))
    return this.#names ? this.#names.get(id) : id
  }

  /** Up to `size` distinct servers for `key`, clockwise from its point (`unique` must be true). */
  range(key, size, unique) {
    if (this.#router === null) return []
    size = size || this.servers.length
    if (!(unique || unique === undefined)) {
      throw new InvalidParameterError('keyroute/hashring has range(key, size, unique) with unique servers only')
    }
    const owning = this.#owning()
    const ids = this.#router.replicas(String(key), Math.min(size, owning.size))
    return this.#names ? ids.map((id) => this.#names.get(id)) : ids
  }

  /** hashring's position of a hash value on the ring: refused (`InvalidParameterError`). */
  find() {
    throw pointLevel('find')
  }

  /** hashring's ring points per server: refused (`InvalidParameterError`). */
  points() {
    throw pointLevel('points')
  }

  /** hashring's numeric hash of a key: refused (`InvalidParameterError`). */
  hashValue() {
    throw pointLevel('hashValue')
  }

  /** Adds servers (ones already present are kept as they are) and rebuilds the ring. */
  add(servers) {
    const known = new Set(this.servers.map((s) => s.string))
    for (const s of parse(servers)) {
      if (known.has(s.string)) continue
      known.add(s.string)
      this.servers.push(s)
    }
    this.reset()
    return this.continuum()
  }

  /** Removes a server and rebuilds the ring. */
  remove(serverString) {
    const gone = parse(serverString).pop()?.string
    this.servers = this.servers.filter((s) => s.string !== gone)
    this.reset()
    return this.continuum()
  }

  /**
   * Replaces server `from` by `to` without rebuilding: keys keep their points (named after
   * `from`) and are reported as `to`, until the next rebuild names the points after `to`.
   */
  swap(from, to) {
    const replacement = server(to)
    if (this.#router !== null) {
      const names = this.#names ?? new Map(this.#router.nodes.map((id) => [id, id]))
      for (const [id, name] of names) if (name === from) names.set(id, to)
      this.#names = names
    }
    for (const s of this.servers) {
      if (s.string === from) Object.assign(s, { string: to, host: replacement.host, port: replacement.port })
    }
    return this
  }

  /** Whether `server` owns some point of the ring. */
  has(name) {
    if (this.#router === null) return false
    for (const [id, share] of this.#owning()) {
      if ((this.#names ? this.#names.get(id) : id) === name && share > 0) return true
    }
    return false
  }

  /** Empties the ring (`get` answers undefined) but keeps the servers; `continuum()` rebuilds. */
  reset() {
    this.#router = null
    this.#names = null
    this.#owners = null
    return this
  }

  /** Empties the ring and forgets the servers. */
  end() {
    this.reset()
    this.servers = []
    return this
  }

  /** The servers that own points, with their shares (computed once per ring). */
  #owning() {
    this.#owners ??= new Map([...this.#router.ownership().shares].filter(([, share]) => share > 0))
    return this.#owners
  }
}

// `require('keyroute/hashring')` returns the constructor (Node's require(esm) returns the export
// named 'module.exports' when there is one), with the ES module's named and default exports on it.
HashRing.HashRing = HashRing
HashRing.default = HashRing

export { HashRing, HashRing as 'module.exports' }
