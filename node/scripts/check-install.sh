#!/usr/bin/env bash
# Uses the keyroute package installed in the folder DIR (DIR/node_modules/keyroute) as its users
# do, with nothing from the source tree: every vector of the corpus the package carries routed
# through the native addon and through `keyroute/wasm`, each from CommonJS and from ES modules;
# the hashring drop-in and bounded loads; then `npx keyroute-conformance` on both backends with
# JUnit reports. node/test.sh runs it after installing from a path and from the tarball, and
# scripts/dist/test-npm.sh after installing the release tarball.
set -euo pipefail
cd "$1"

route_all='
  const fs = require("node:fs"), path = require("node:path")
  // The corpus the package carries, or the repository'"'"'s when it is installed from a checkout.
  const pkg = path.dirname(require.resolve("keyroute/package.json"))
  const inSource = fs.existsSync(path.join(pkg, "Cargo.toml"))
  const corpus = inSource ? path.join(pkg, "..", "conformance", "vectors", "v1") : path.join(pkg, "conformance")
  function routeAll(k, what) {
    let files = 0, cases = 0
    for (const name of fs.readdirSync(corpus).filter((n) => n.endsWith(".json"))) {
      const doc = JSON.parse(fs.readFileSync(path.join(corpus, name), "utf8"))
      if (!doc.spec) continue
      const router = new k.Router(doc.spec)
      for (const c of doc.cases) {
        if (!("key" in c && "node" in c) || "spec" in c || "limits" in c) continue
        const got = router.route(c.key)
        if (got !== c.node) throw new Error(`${what}: ${name} ${c.id}: expected ${c.node}, got ${got}`)
        cases++
      }
      files++
    }
    if (files < 100 || cases < 20000) throw new Error(`${what}: only ${cases} cases in ${files} files`)
    const bounded = new k.BoundedLoad(new k.Ring(["a", "b"]))
    const lease = bounded.acquire("k")
    if (bounded.total !== 1 || !lease.release() || bounded.total !== 0) throw new Error(`${what}: bounded loads`)
    console.log(`  ${what}: ${cases} vectors of ${files} files routed`)
  }
'
node -e "$route_all"'
  routeAll(require("keyroute"), "CommonJS, native addon")
  routeAll(require("keyroute/wasm"), "CommonJS, WebAssembly")
  const HashRing = require("keyroute/hashring").default
  if (new HashRing(["a:1"]).get("k") !== "a:1") throw new Error("the hashring drop-in")
'
node --input-type=module -e "
  import { createRequire } from 'node:module'
  const require = createRequire(process.cwd() + '/')
  $route_all"'
  routeAll(await import("keyroute"), "ES module, native addon")
  routeAll(await import("keyroute/wasm"), "ES module, WebAssembly")
  if (require("keyroute").Router !== (await import("keyroute")).Router) throw new Error("require and import give different classes")
  console.log("  require and import share one module")
'
for backend in addon wasm; do
  npx --no-install keyroute-conformance --backend "$backend" --junit "report-$backend.xml" --quiet | sed 's/^/  /'
  grep -q '<testsuites name="keyroute conformance ('"$backend"')" tests="[1-9][0-9]*" failures="0"' "report-$backend.xml"
done
