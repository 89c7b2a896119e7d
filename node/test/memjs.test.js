// keyroute/memjs on real memcached servers (Debian's memcached, started here on 127.0.0.1) with
// memjs 1.3.2 clients, one per node: writes land where the view routes, dual reads during a
// rollout lose no key and warm the new owner, and the write rules keep instances at different
// progress values from reading an older copy. Requests wait up to 10 s (memjs waits 0.5 s by
// default), so a loaded machine slows the test instead of failing it.

import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { createConnection, createServer } from 'node:net'
import test from 'node:test'
import { createRequire } from 'node:module'

import { ViewClient } from '../lib/memjs.js'
import { backend, keyroute } from './setup.js'

const memjs = createRequire(import.meta.url)('memjs')

const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })

const listening = (port) =>
  new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port }, () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })

async function startMemcached(n) {
  const servers = []
  for (let i = 0; i < n; i++) {
    const port = await freePort()
    const args = ['-l', '127.0.0.1', '-p', String(port), '-U', '0', '-m', '64']
    if (process.getuid?.() === 0) args.push('-u', 'nobody') // memcached refuses to run as root
    const proc = spawn('memcached', args, { stdio: 'ignore' })
    servers.push({ port, proc })
  }
  for (const { port } of servers) {
    const deadline = Date.now() + 30_000
    while (!(await listening(port))) {
      if (Date.now() > deadline) throw new Error(`memcached did not listen on ${port} (node/test.sh installs it)`)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
  return servers
}

const spec = (nodes) => ({ algorithm: 'ring', nodes: nodes.map((id) => ({ id })) })

test(`memjs through a live view: dual reads and the write rules during a rollout (${backend})`, async () => {
  const servers = await startMemcached(4)
  const names = servers.map((s) => `127.0.0.1:${s.port}`)
  const direct = Object.fromEntries(names.map((n) => [n, memjs.Client.create(n, { retries: 0, timeout: 10, conntimeout: 10, logger: { log() {} } })]))
  try {
    const view = new keyroute.LiveView()
    view.publish({ version: 1, spec: spec(names.slice(0, 3)) })
    const vc = new ViewClient(view, direct)
    const keys = Array.from({ length: 2000 }, (_, i) => `user:${i}`)
    for (const k of keys) assert.equal(await vc.set(k, k), true)
    for (const k of keys) assert.equal(String((await direct[view.route(k)].get(k)).value), k, 'each key on its owner')
    // Half way to four servers: keys that cut over miss on their new owner…
    view.publish({ version: 2, spec: spec(names.slice(0, 3)), rollout: { to: spec(names), progress: 0.5 } })
    const moved = keys.filter((k) => view.routeWithFallback(k).previous !== null)
    assert.ok(moved.length > 0)
    let plainHits = 0
    for (const k of keys) if ((await direct[view.route(k)].get(k)).value !== null) plainHits++
    assert.equal(plainHits, keys.length - moved.length)
    // …and ViewClient reads their previous owner and warms the new one: no key is lost.
    for (const k of keys) assert.equal(String(await vc.get(k)), k)
    for (const k of moved) assert.equal(String((await direct[view.route(k)].get(k)).value), k, 'warmed on the new owner')
    // An instance still at progress 0 writes a moved key: it writes the old owner and drops the
    // new owner's copy, so the instance at 0.5 reads the new value, not the warmed old one.
    const behind = new keyroute.LiveView()
    behind.publish({ version: 2, spec: spec(names.slice(0, 3)), rollout: { to: spec(names), progress: 0 } })
    await new ViewClient(behind, (node) => direct[node]).set(moved[0], 'new')
    assert.equal(String(await vc.get(moved[0])), 'new')
    await vc.delete(moved[1])
    for (const n of names) assert.equal((await direct[n].get(moved[1])).value, null, 'a delete reaches both ends')
    assert.equal(await vc.add(moved[1], 'again'), true)
    assert.equal(await vc.add(moved[1], 'twice'), false)
    assert.throws(() => new ViewClient({}, direct), keyroute.InvalidTypeError)
    await assert.rejects(new ViewClient(view, {}).get('k'), keyroute.InvalidTypeError)
    console.log(
      `views: memjs through a live view at progress 0.5: direct reads kept ${((100 * plainHits) / keys.length).toFixed(1)}% of 2,000 keys; ` +
        `ViewClient's dual reads kept 100% and warmed ${moved.length} moved keys on their new owner`,
    )
  } finally {
    for (const c of Object.values(direct)) c.close()
    for (const { proc } of servers) proc.kill('SIGTERM')
  }
})
