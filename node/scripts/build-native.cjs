// The package's install script: in a source checkout, build the addon with cargo and put it
// where the loader looks (`keyroute.linux-x64-gnu.node`); in a published tarball, keep the
// prebuilt binary it carries. Node built-ins only, and no napi CLI: `npm install /path/to/node`
// runs this script but installs none of the package's dependencies, so it can rely on nothing
// else. Set KEYROUTE_SKIP_NATIVE_BUILD=1 to skip (e.g. when only the WebAssembly build is used).

'use strict'
const { spawnSync } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')

const pkgDir = path.resolve(__dirname, '..')
const out = path.join(pkgDir, `keyroute.${process.platform}-${process.arch}-gnu.node`)
const fail = (message) => {
  console.error(`keyroute: ${message}`)
  process.exit(1)
}

if (process.env.KEYROUTE_SKIP_NATIVE_BUILD) process.exit(0)
const inSource = fs.existsSync(path.join(pkgDir, 'Cargo.toml'))
if (!inSource) {
  if (fs.existsSync(out)) process.exit(0)
  fail(`no prebuilt addon for ${process.platform}-${process.arch}; install from a source checkout, or use 'keyroute/wasm'`)
}

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
