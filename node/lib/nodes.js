// The node forms the constructors take, turned into a spec's `nodes` list (shapes only: the
// native layer validates everything), and the spec a constructor builds. Hand-written: this is
// what is idiomatic to JavaScript; the constructors themselves are generated from the registry.

import { InvalidSpecError, InvalidTypeError, TooManyNodesError } from './generated/errors.js'

export const isPlainObject = (v) => v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype

/** `{id: weight}`, a `Map` of id to weight, or an iterable of ids and node objects. */
export function nodeList(nodes) {
  if (nodes instanceof Map) return Array.from(nodes, ([id, weight]) => ({ id, weight }))
  if (isPlainObject(nodes)) return Object.entries(nodes).map(([id, weight]) => ({ id, weight }))
  if (typeof nodes === 'string' || nodes == null || typeof nodes[Symbol.iterator] !== 'function') {
    throw new InvalidTypeError(`nodes must be an object of id to weight, a Map or an iterable of nodes, not ${describe(nodes)}`)
  }
  return Array.from(nodes, (n) => (typeof n === 'string' ? { id: n } : isPlainObject(n) ? { ...n } : n))
}

/**
 * Bucket algorithms also take a count `n`: buckets with ids `"0"` … `"n-1"`. A count above
 * `maxNodes` (the node limit the router is built under) is refused before any bucket is made,
 * so `new Jump(1e9)` fails at once instead of building a billion objects first.
 */
export function bucketList(nodes, maxNodes = Infinity) {
  if (typeof nodes === 'number') {
    if (!Number.isInteger(nodes) || nodes < 0) {
      throw new InvalidSpecError(`a bucket count must be an integer ≥ 0, not ${nodes}`)
    }
    if (nodes > maxNodes) {
      throw new TooManyNodesError(`${nodes} buckets, above the limit of ${maxNodes} nodes (limits.max_nodes)`)
    }
    return Array.from({ length: nodes }, (_, i) => ({ id: String(i) }))
  }
  return nodeList(nodes)
}

/**
 * The node limit a router is built under, for `bucketList`: `limits.max_nodes` when it is a
 * valid limit, the default when `limits` does not set it, and the ceiling when it is malformed
 * (the native layer then refuses it with `invalid_parameter`, and the count stays bounded).
 */
export function nodeLimit(limits, defaults, ceiling) {
  if (limits === undefined || limits === null) return defaults.max_nodes
  if (!isPlainObject(limits)) return ceiling.max_nodes
  const n = limits.max_nodes
  if (n === undefined) return defaults.max_nodes
  return Number.isSafeInteger(n) && n >= 0 && n <= ceiling.max_nodes ? n : ceiling.max_nodes
}

/** Memcached-style servers: addresses (`"host:port"`, `"host"`, `"[v6]:port"`) with weights. */
export function serverList(servers, parseServer) {
  const server = (address, weight) => {
    if (typeof address !== 'string') throw new InvalidSpecError(`a server address must be a string, not ${describe(address)}`)
    const [host, port] = parseServer(address)
    return { id: address, host, port, weight }
  }
  if (servers instanceof Map) return Array.from(servers, ([a, w]) => server(a, w))
  if (isPlainObject(servers)) return Object.entries(servers).map(([a, w]) => server(a, w))
  return nodeList(servers).map((n) => (isPlainObject(n) && Object.keys(n).length === 1 && typeof n.id === 'string' ? server(n.id, 1) : n))
}

/** Slot owners: `{id: [[first, last], …]}` (inclusive ranges), a `Map`, or node objects with `slots`. */
export function slotList(slots) {
  const entry = ([id, ranges]) => ({ id, slots: Array.from(ranges, (r) => Array.from(r)) })
  if (slots instanceof Map) return Array.from(slots, entry)
  if (isPlainObject(slots)) return Object.entries(slots).map(entry)
  return nodeList(slots)
}

/**
 * `Router`'s arguments for a constructor's: the spec (nodes by `form`, options by `makeSpec`)
 * and `{ limits }`. The options are checked first, and `form` sees the limits (`bucketList`).
 */
export function routerArgs(algorithm, form, nodes, keywords, options) {
  options = checkOptions(options)
  const limits = options.limits ?? undefined
  return [makeSpec(algorithm, form(nodes, limits), keywords, options), { limits }]
}

function checkOptions(options) {
  if (options === undefined || options === null) return {}
  if (!isPlainObject(options)) throw new InvalidTypeError(`options must be an object, not ${describe(options)}`)
  return options
}

/**
 * The spec a constructor builds. Options map to parameters by the registry's keywords;
 * `undefined` and `null` leave a parameter to its default; `limits` is not a parameter (it goes
 * to `Router`); an unknown option goes through as it is, so the spec layer refuses it
 * (`invalid_spec`) instead of ignoring a typo.
 */
export function makeSpec(algorithm, nodes, keywords, options) {
  options = checkOptions(options)
  const params = Object.create(null)
  let version = 0
  for (const [key, value] of Object.entries(options)) {
    if (key === 'version') {
      if (value !== undefined && value !== null) version = value
      continue
    }
    if (key === 'limits') continue
    if (value === undefined || value === null) continue
    params[Object.hasOwn(keywords, key) ? keywords[key] : key] = value
  }
  return { algorithm, params, nodes, version }
}

export function describe(v) {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'an array'
  if (typeof v === 'object') return v.constructor?.name ? `a ${v.constructor.name}` : 'an object'
  return `a ${typeof v}`
}
