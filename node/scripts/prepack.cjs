// `npm pack`'s prepack step: puts in the package folder what the tarball carries from outside
// it: the licenses, and the conformance corpus (conformance/vectors/v1/*.json, as
// `conformance/`) that `keyroute-conformance` runs. Both are ignored by git in node/.

'use strict'
const fs = require('node:fs')
const path = require('node:path')

const pkgDir = path.resolve(__dirname, '..')
const root = path.resolve(pkgDir, '..')
for (const f of ['LICENSE-MIT', 'LICENSE-APACHE']) fs.copyFileSync(path.join(root, f), path.join(pkgDir, f))

const from = path.join(root, 'conformance', 'vectors', 'v1')
const to = path.join(pkgDir, 'conformance')
const names = fs.readdirSync(from).filter((n) => n.endsWith('.json'))
if (names.length === 0) {
  console.error(`keyroute: no vector files in ${from}`)
  process.exit(1)
}
fs.rmSync(to, { recursive: true, force: true })
fs.mkdirSync(to)
for (const n of names) fs.copyFileSync(path.join(from, n), path.join(to, n))
