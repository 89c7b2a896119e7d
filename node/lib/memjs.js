// `keyroute/memjs`: memcached through a live view with memjs, with dual reads during a rollout.
// memjs picks a server by its own hash of the key; a fleet that routes with keyroute makes one
// memjs client per node (`memjs.Client.create('host:port')`) and lets `ViewClient` choose among
// them with the view in effect. The rules are those of docs/views.md ("Writes during a
// rollout"), the same as the Python package's `keyroute.pymemcache.ViewClient`.

import { InvalidTypeError } from './generated/errors.js'

/**
 * memcached through a `LiveView`. `clients` maps each node id of the views to a memjs `Client`
 * (or anything with memjs's promise API: `get` resolving to `{ value }`, `set`, `add`,
 * `delete`), as an object, a `Map`, or a function that makes a node's client (called once per
 * id). Every command routes with the view in effect:
 *
 * - `get`: the key's owner; during a rollout, on a miss for a key that has cut over, its
 *   previous owner, and a hit there is copied to the owner with `add` (which never overwrites a
 *   value written meanwhile), expiring after `warmExpires` seconds (0: never);
 * - `set` and `add`: the owner, and during a rollout the key is deleted from the other end's
 *   owner, so an instance at another progress never reads an older copy there;
 * - `delete`: the owner and both ends' owners.
 */
export class ViewClient {
  #view
  #make
  #made = new Map()
  #warmExpires

  constructor(view, clients, options = {}) {
    if (typeof view?.routeWithFallback !== 'function' || typeof view?.ends !== 'function') {
      throw new InvalidTypeError('ViewClient needs a keyroute LiveView')
    }
    this.#view = view
    this.#warmExpires = options?.warmExpires ?? 0
    if (typeof clients === 'function') {
      this.#make = clients
    } else if (clients instanceof Map) {
      this.#make = (node) => clients.get(node)
    } else if (clients !== null && typeof clients === 'object') {
      this.#make = (node) => (Object.hasOwn(clients, node) ? clients[node] : undefined)
    } else {
      throw new InvalidTypeError('clients must be an object or Map of node ids to memjs clients, or a function making one')
    }
  }

  /** The live view this client routes with. */
  get view() {
    return this.#view
  }

  /** The client of node `node`. */
  client(node) {
    let made = this.#made.get(node)
    if (made === undefined) {
      made = this.#make(node)
      if (made === undefined || made === null) throw new InvalidTypeError(`no memcached client for node ${JSON.stringify(node)}`)
      this.#made.set(node, made)
    }
    return made
  }

  /** The value of `key` (a Buffer), or null when no copy has it. */
  async get(key) {
    const { owner, previous } = this.#view.routeWithFallback(key)
    const { value } = await this.client(owner).get(key)
    if (value !== null && value !== undefined) return value
    if (previous === null) return null
    const old = (await this.client(previous).get(key)).value
    if (old === null || old === undefined) return null
    await this.client(owner).add(key, old, { expires: this.#warmExpires })
    return old
  }

  /** Stores `value` on the owner of `key` and drops the other end's copy; resolves to memjs's answer. */
  async set(key, value, options = {}) {
    const owner = this.#view.routeWithFallback(key).owner
    const stored = await this.client(owner).set(key, value, options)
    for (const other of this.#others(key, owner)) await this.client(other).delete(key)
    return stored
  }

  /** Stores `value` on the owner if it holds none (and then drops the other end's copy). */
  async add(key, value, options = {}) {
    const owner = this.#view.routeWithFallback(key).owner
    const added = await this.client(owner).add(key, value, options)
    if (added) for (const other of this.#others(key, owner)) await this.client(other).delete(key)
    return added
  }

  /** Deletes `key` from its owner, its previous owner and both ends' owners. */
  async delete(key) {
    const { owner, previous } = this.#view.routeWithFallback(key)
    const nodes = new Set([owner, ...(previous === null ? [] : [previous]), ...this.#others(key, owner)])
    for (const node of nodes) await this.client(node).delete(key)
  }

  // The owners of `key` at the rollout's two ends, other than `owner`.
  #others(key, owner) {
    const { from, to } = this.#view.ends(key)
    return [...new Set([from, to])].filter((n) => n !== null && n !== owner)
  }
}
