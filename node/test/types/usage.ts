// Typed use of the package as a TypeScript user writes it: `tsc --strict --noEmit` must pass
// (node/test.sh), against the shipped declarations (index.d.ts, resolved through "exports").

import { ViewClient } from 'keyroute/memjs'
import {
  BoundedLoad,
  LiveView,
  converged,
  fleetStatus,
  publishView,
  watch,
  type FleetStatus,
  type Watch,
  DEFAULT_BALANCE_FACTOR,
  HotKeys,
  type Lease,
  type Pick,
  splitKey,
  splitKeys,
  diff,
  type Diff,
  InvalidUtf8Error,
  Jump,
  KeyrouteError,
  LIMITS,
  LIMITS_CEILING,
  type Limits,
  Libmemcached,
  type Ownership,
  redisSlot,
  Ring,
  Router,
  Transition,
} from 'keyroute'
import HashRing from 'keyroute/hashring'

const ring: Ring = new Ring({ 'cache-a': 1, 'cache-b': 2 }, { points: 160, version: 3 })
const id: string = ring.route('user:42')
const bytes: string = ring.route(new Uint8Array([1, 2, 3]))
const replicas: string[] = ring.replicas('user:42', 2)
const many: string[] = ring.routeMany(['a', 'b', Buffer.from('c')])
const packed: Uint32Array = ring.routeBatch(new Uint8Array(2), new Uint32Array([0, 1, 2]))
const fp: bigint = ring.fingerprint
const hash: bigint = ring.keyHash('k')
const node: string = ring.routeHash(hash)
const slot: number | null = ring.slot('k')
const own: Ownership = ring.ownership()
const share: number | undefined = own.shares.get('cache-a')
const d: Diff = diff(ring, new Router({ algorithm: 'ring', nodes: [{ id: 'cache-a' }] }))
const moved: number = d.moved + d.idealMoved
const t = new Transition(ring, new Jump(4), 0.5)
const placed: { owner: string; previous: string | null } = t.routeWithFallback('k')
const lm = new Libmemcached(['10.0.0.1:11211'], { distribution: 'ketama_weighted', hash: 'md5' })
const s: number = redisSlot('{user}.x', { rule: 'cluster_key_slot' })
const raised: Limits = { max_points: LIMITS.max_points * 4, max_nodes: LIMITS_CEILING.max_nodes }
const big = new Ring(['a', 'b'], { points: 40, limits: raised })
const fromBytes = new Router(Buffer.from('{"algorithm":"ring","nodes":[{"id":"a"}]}'), { limits: { max_spec_bytes: 1024 } })
const buckets = new Jump(100000, { limits: { max_nodes: 100000 } })
const hr = new HashRing({ 'a:1': 2 }, 'md5', { 'vnode count': 40 })
const got: string | undefined = hr.get('k')
const hashringVersion: string = HashRing.version
const SameRing: typeof HashRing = HashRing.HashRing

try {
  ring.route('\ud800')
} catch (e) {
  if (e instanceof InvalidUtf8Error) {
    const code: string = e.code
    const errno: number = e.errno
    console.log(code, errno)
  }
  if (e instanceof KeyrouteError) console.log(e.kind, e.category, e.keyIndex)
}

const bounded = new BoundedLoad(ring, DEFAULT_BALANCE_FACTOR)
const lease: Lease = bounded.acquire('user:42')
const leaseNode: string = lease.node
const released: boolean = lease.release()
const pick: Pick = bounded.pick(Buffer.from('k'))
const load: number = bounded.load(pick.node) + bounded.capacity('cache-a') + bounded.total + bounded.factor
const hot = new HotKeys({ width: 4096 })
const estimate: number = hot.observe('k') + hot.heat(new Uint8Array(1))
const isHot: boolean = hot.isHot('k', { count: 10 }) || hot.isHot('k', { share: 0.1 })
const top: Array<{ key: string | Uint8Array; count: number }> = hot.top(10)
const spread: string = ring.spread('k', 2, 'web-1') + ring.spread('k', 2)
const parts: string[] = splitKeys('k', 3)
const partBytes: Uint8Array[] = splitKeys(new Uint8Array(1), 3)
const part: string = splitKey('k', 3, 'web-1')

console.log(id, bytes, replicas, many, packed, fp, node, slot, share, moved, placed, lm, s, got, big, fromBytes, buckets, hashringVersion, SameRing)
console.log(leaseNode, released, load, estimate, isHot, top, spread, parts, partBytes, part, hot.total, hot.memoryBytes)

// Views: a live view fed by a watch, published to and gated on by the census.
const live = new LiveView({ limits: { max_nodes: 100 } })
const applied: number = live.publish({ version: 1, spec: { algorithm: 'ring', nodes: [{ id: 'a' }] } })
const owner: string = live.route('k')
const fallback: string | null = live.routeWithFallback('k').previous
const ends: string | null = live.ends('k').to
const liveVersion: number | null = live.version
const liveFp: string | null = live.fingerprint
const refused: string | undefined = live.lastRefusal?.error
async function rollout(): Promise<void> {
  const w: Watch = await watch('etcd://127.0.0.1:2379/keyroute/cache', live, { censusTtl: 10, instance: 'web-1' })
  const version: number = await publishView('file:///etc/keyroute/cache.json', '{}', { expectVersion: 1n })
  const status: FleetStatus = await fleetStatus('etcd://127.0.0.1:2379/keyroute/cache', { deadline: 30 })
  const gate: boolean = converged(status) && status.instances.every((i) => i.standing === 'sync')
  console.log(version, gate, w.instance, live.appliedAt?.getTime())
  await w.stop()
}
console.log(applied, owner, fallback, ends, liveVersion, liveFp, refused, rollout)
const viewClient = new ViewClient(live, (node: string) => ({
  get: async (key: string) => ({ value: Buffer.from(node + key) }),
  set: async () => true,
  add: async () => true,
  delete: async () => true,
}))
async function dualRead(): Promise<Buffer | null> {
  await viewClient.set('k', 'v', { expires: 60 })
  return viewClient.get('k')
}
console.log(dualRead)
