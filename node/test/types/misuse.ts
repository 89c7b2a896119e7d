// Misuse the declarations must catch: every line marked `// E` is a type error (node/test.sh
// checks that tsc reports exactly these lines).

import { BoundedLoad, HotKeys, Lease, Libmemcached, LIMITS, LiveView, publishView, Ring, Router, splitKeys } from 'keyroute'

const ring = new Ring(['a'])
ring.route(42) // E
ring.replicas('k', '2') // E
new Ring(['a'], { points: '160' }) // E
new Libmemcached(['h:1'], {}) // E
new Libmemcached(['h:1'], { distribution: 'modula' }) // E
const n: number = ring.route('k') // E
new Ring(['a'], { limits: { max_point: 10 } }) // E
new Router('{}', { limits: { max_nodes: '10' } }) // E
new Router(new Uint16Array(2)) // E
LIMITS.max_nodes = 1 // E
const f: number = ring.fingerprint // E
new BoundedLoad(ring, '1.25') // E
new BoundedLoad({}) // E
new Lease() // E
new BoundedLoad(ring).load(0) // E
new HotKeys({ size: 10 }) // E
new HotKeys().isHot('k', { count: 1, share: 0.5 }) // E
new HotKeys().isHot('k') // E
ring.spread('k', 2, 42) // E
const part: number = splitKeys('k', 2)[0] // E
new LiveView().publish(42) // E
const wrongVersion: string | null = new LiveView().version // E
publishView('x.json', '{}') // E
console.log(n, f, part)
