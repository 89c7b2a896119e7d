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

export default class HashRing {
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
}
export { HashRing }
