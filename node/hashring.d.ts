// `keyroute/hashring`: npm hashring 3.x's HashRing API, routing exactly as hashring does.

/**
 * Servers: `'host:port'`, an array of them, or `{ 'host:port': weight }`. A weight is read as
 * hashring reads it (`+weight || 1`); a negative, infinite, fractional or too large one is
 * refused (`InvalidParameterError`), and one that is not a number (`null`, a BigInt)
 * with `InvalidTypeError`.
 */
export type HashRingServers = string | string[] | Record<string, number | { weight?: number }>

export interface HashRingOptions {
  'vnode count'?: number
  'default port'?: number
  compatibility?: 'hash_ring' | string
  replicas?: number
  /** Accepted and unused: keyroute needs no cache. */
  'max cache size'?: number
}

/**
 * `require('keyroute/hashring')` returns this class itself (as `require('hashring')` does),
 * with `HashRing.HashRing` and `HashRing.default` on it.
 */
export default class HashRing {
  /** The hashring release whose API and routes this module reproduces ('3.2.0'). */
  static readonly version: string
  static readonly HashRing: typeof HashRing
  static readonly default: typeof HashRing
  constructor(servers?: HashRingServers, algorithm?: 'md5', options?: HashRingOptions)
  servers: Array<{ host: string; port: number; string: string; weight: number }>
  readonly vnode: number
  readonly replicas: number
  readonly defaultport: number | null
  readonly algorithm: 'md5'
  /** The server for `key` (`String(key)` is hashed), or undefined for an empty ring. */
  get(key: unknown): string | undefined
  /** Up to `size` distinct servers for `key`, clockwise from its point. */
  range(key: unknown, size?: number, unique?: true): string[]
  add(servers: HashRingServers): this
  remove(server: string): this
  swap(from: string, to: string): this
  has(server: string): boolean
  reset(): this
  end(): this
  continuum(): this
  /** Refused with `InvalidParameterError`: the ring's points live in the native router. */
  find(hashValue: number): never
  /** Refused with `InvalidParameterError`: the ring's points live in the native router. */
  points(servers?: string[]): never
  /** Refused with `InvalidParameterError`: the ring's points live in the native router. */
  hashValue(key: unknown): never
}
export { HashRing }
