// `npm run build-native`, in a source checkout: builds the addon with cargo and puts it where the
// loader looks first, `keyroute.<platform>.node` in the package folder (lib/platform.cjs names
// the platform for both). The published package has no install script: it carries no addon of
// its own and loads its platform's `keyroute-<platform>` package, or falls back to WebAssembly,
// so this is only for checkouts (`npm install /path/to/node` links the folder, addon included).
// Node built-ins only, and no napi CLI.

'use strict'
const { spawnSync } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')

const { platformName } = require('../lib/platform.cjs')

const pkgDir = path.resolve(__dirname, '..')
const out = path.join(pkgDir, `keyroute.${platformName()}.node`)
const fail = (message) => {
  console.error(`keyroute: ${message}`)
  process.exit(1)
}

if (!fs.existsSync(path.join(pkgDir, 'Cargo.toml'))) fail('build-native builds the addon in a source checkout (node/ of the repository)')

// The workspace's own release build (target/release), shared with every other release build.
const args = ['build', '--release', '--locked', '-p', 'keyroute-node', '--message-format=json-render-diagnostics']
console.error('keyroute: building the native addon from source (cargo build --release; a minute or two the first time)')
const build = spawnSync('cargo', args, { cwd: pkgDir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 28 })
if (build.error) fail(`building from source needs a Rust toolchain (cargo: ${build.error.message})`)
if (build.status !== 0) process.exit(build.status ?? 1)

let library
for (const line of build.stdout.split('\n')) {
  if (!line.startsWith('{')) continue
  const msg = JSON.parse(line)
  if (msg.reason === 'compiler-artifact' && msg.target?.name === 'keyroute_node' && msg.target.kind.includes('cdylib')) {
    library = msg.filenames.find((f) => f.endsWith('.so') || f.endsWith('.dylib') || f.endsWith('.dll'))
  }
}
if (!library) fail('cargo built no addon library')
// Copy then rename, so a process that has the old file mapped is never handed a torn one.
const tmp = `${out}.${process.pid}.tmp`
fs.copyFileSync(library, tmp)
fs.renameSync(tmp, out)
