// The node arguments the constructors take, handed to the native layer's one reading of them
// (`specNodes`), and the spec a constructor builds. Hand-written: turning JavaScript values into
// JSON is what is idiomatic to JavaScript; the constructors themselves are generated from the
// registry.

import { InvalidSpecError, InvalidTypeError } from './generated/errors.js'

export const isPlainObject = (v) => v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype

/**
 * A constructor's node argument as a spec's `nodes` list, read by keyroute-bindings'
 * `nodes::spec_nodes` (the backend's `specNodes`), the one reading every surface shares: `form`
 * is the registry's node form (`nodes`, `buckets`, `servers`, `slot_ranges`), `limits` the
 * router's (a count or list above `max_nodes` is refused before anything is built). This only
 * turns JavaScript values into JSON: a `Map` or object becomes `[key, value]` pairs in its
 * order, an iterable a list.
 */
export function nodeArgs(form, nodes, limits, specNodes) {
  // JSON has no NaN or infinity: a count that is one is refused here, as the native layer
  // refuses any other count that is not a whole number (elsewhere it is null: not nodes).
  if (form === 'buckets' && typeof nodes === 'number' && !Number.isFinite(nodes)) {
    throw new InvalidSpecError(`a bucket count must be a whole number ≥ 0, not ${nodes}`)
  }
  let text
  try {
    text = JSON.stringify(jsonable(nodes))
  } catch (e) {
    if (e instanceof InvalidTypeError) throw e
    throw new InvalidSpecError(`a node holds a value a spec cannot carry: ${e.message}`)
  }
  let limitsText
  try {
    limitsText = isPlainObject(limits) ? JSON.stringify(limits) : undefined
  } catch {
    limitsText = undefined // the router reports the limits themselves
  }
  return JSON.parse(specNodes(form, text, limitsText))
}

function jsonable(nodes) {
  if (nodes instanceof Map) return Array.from(nodes, ([id, value]) => [id, value])
  if (isPlainObject(nodes)) return Object.entries(nodes)
  if (nodes === undefined) return null
  if (nodes === null || ['string', 'number', 'boolean'].includes(typeof nodes)) return nodes
  if (typeof nodes === 'object' && typeof nodes[Symbol.iterator] === 'function') {
    return Array.from(nodes, (n) => (n instanceof Map ? Object.fromEntries(n) : n))
  }
  throw new InvalidTypeError(`nodes must be an object of id to weight, a Map or an iterable of nodes, not ${describe(nodes)}`)
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
