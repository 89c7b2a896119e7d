// A static file server for the browser tests and the playground: the repository, read-only, on
// 127.0.0.1 only, plus /corpus-index.json (the vector files' names, which a browser cannot list).

import { createServer } from 'node:http'
import { readFile, readdir } from 'node:fs/promises'
import { extname, join, normalize } from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
}

/** Starts serving; resolves to `{url, close}`. `port` 0 picks a free one. */
export async function serve(port = 0) {
  const server = createServer(async (req, res) => {
    try {
      const path = decodeURIComponent(new URL(req.url, 'http://x').pathname)
      if (path === '/corpus-index.json') {
        const names = (await readdir(join(ROOT, 'conformance/vectors/v1'))).filter((n) => n.endsWith('.json')).sort()
        res.writeHead(200, { 'content-type': TYPES['.json'] }).end(JSON.stringify(names))
        return
      }
      const file = normalize(join(ROOT, path.endsWith('/') ? `${path}index.html` : path))
      if (!file.startsWith(ROOT)) {
        res.writeHead(403).end()
        return
      }
      const body = await readFile(file)
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(body)
    } catch {
      res.writeHead(404).end('not found')
    }
  })
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) }
}

/** Headless Chromium (Debian's), with the flags this closed network needs. */
export async function launchChromium() {
  const { chromium } = await import('playwright-core')
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
}
