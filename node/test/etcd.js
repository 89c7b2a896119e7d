// One etcd member (Debian's etcd-server; node/test.sh installs it) on free ports of 127.0.0.1,
// started by a test file and stopped by it: `const etcd = await startEtcd()`, then
// `etcd.url('/key')` names a view source on it and `await etcd.stop()` ends it.

import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createConnection, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
}

function listening(port) {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port }, () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })
}

export async function startEtcd() {
  const [client, peer] = [await freePort(), await freePort()]
  const data = mkdtempSync(join(tmpdir(), 'keyroute-node-etcd-'))
  const clientUrl = `http://127.0.0.1:${client}`
  const peerUrl = `http://127.0.0.1:${peer}`
  const proc = spawn(
    'etcd',
    ['--name', 'keyroute-node', '--data-dir', data, '--listen-client-urls', clientUrl, '--advertise-client-urls', clientUrl,
      '--listen-peer-urls', peerUrl, '--initial-advertise-peer-urls', peerUrl, '--initial-cluster', `keyroute-node=${peerUrl}`],
    { stdio: 'ignore' },
  )
  let exited = null
  const ended = new Promise((resolve) => {
    proc.once('exit', (code, signal) => resolve((exited = `exit ${code ?? signal}`)))
    proc.once('error', (e) => resolve((exited = e.message)))
  })
  const stop = async () => {
    if (exited === null) proc.kill('SIGTERM')
    await ended
    rmSync(data, { recursive: true, force: true })
  }
  const deadline = Date.now() + 60_000
  while (!(await listening(client))) {
    if (exited !== null || Date.now() > deadline) {
      await stop().catch(() => {})
      throw new Error(`etcd did not listen on ${client} (${exited ?? 'timed out'}; node/test.sh installs etcd-server)`)
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return { url: (key) => `etcd://127.0.0.1:${client}${key}`, stop }
}
