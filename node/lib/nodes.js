// The node forms the constructors take, turned into a spec's `nodes` list (shapes only: the
// native layer validates everything), and the spec a constructor builds. Hand-written: this is
// what is idiomatic to JavaScript; the constructors themselves are generated from the registry.

import { InvalidSpecError, InvalidTypeError } from './generated/errors.js'

const isPlainObject = (v) => v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype

/** `{id: weight}`, a `Map` of id to weight, or an iterable of ids and node objects. */
export function nodeList(nodes) {
  if (nodes instanceof Map) return Array.from(nodes, ([id, weight]) => ({ id, weight }))
  if (isPlainObject(nodes)) return Object.entries(nodes).map(([id, weight]) => ({ id, weight }))
  if (typeof nodes === 'string' || nodes == null || typeof nodes[Symbol.iterator] !== 'function') {
    throw new InvalidTypeError(`nodes must be an object of id to weight, a Map or an iterable of nodes, not ${describe(nodes)}`)
  }
  return Array.from(nodes, (n) => (typeof n === 'string' ? { id: n } : isPlainObject(n) ? { ...n } : n))
}

/** Bucket algorithms also take a count `n`: buckets with ids `"0"` … `"n-1"`. */
export function bucketList(nodes) {
  if (typeof nodes === 'number') {
    if (!Number.isSafeInteger(nodes) || nodes < 0) {
      throw new InvalidSpecError(`a bucket count must be an integer ≥ 0, not ${nodes}`)
    }
    return Array.from({ length: nodes }, (_, i) => ({ id: String(i) }))
  }
  return nodeList(nodes)
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
 * The spec a constructor builds. Options map to parameters by the registry's keywords;
 * `undefined` and `null` leave a parameter to its default; an unknown option goes through
 * as it is, so the spec layer refuses it (`invalid_spec`) instead of ignoring a typo.
 */
export function makeSpec(algorithm, nodes, keywords, options) {
  if (options === undefined || options === null) options = {}
  if (!isPlainObject(options)) throw new InvalidTypeError(`options must be an object, not ${describe(options)}`)
  const params = Object.create(null)
  let version = 0
  for (const [key, value] of Object.entries(options)) {
    if (key === 'version') {
      if (value !== undefined && value !== null) version = value
      continue
    }
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
