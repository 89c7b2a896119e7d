#!/usr/bin/env bash
# check-install.sh DIR BACKEND: uses the keyroute package installed in the folder DIR
# (DIR/node_modules/keyroute) as its users do, with nothing from the source tree. `keyroute` must
# be on BACKEND, `native` (its platform package, or a checkout's addon, is installed) or `wasm`
# (it is not: the fallback, announced by one line on stderr, once per process). Every vector of
# the corpus the package carries is routed through `keyroute` and through `keyroute/wasm`, each
# from CommonJS and from ES modules; the hashring drop-in and bounded loads; then
# `npx keyroute-conformance` on the backend `keyroute` chose and on WebAssembly, with JUnit
# reports. node/test.sh runs it after installing from a path and from the tarballs, and
# scripts/dist/test-npm.sh after installing the release tarballs; scripts/dist/run-platforms.sh
# on arm64 (qemu) and Windows (wine), with that platform's `node` first on PATH. There,
# KEYROUTE_CHECK_BIN=node runs the package's bin with `node` instead of npx: npx starts a bin
# through its .cmd shim on Windows, and wine's cmd.exe does not run npm's shims.
set -euo pipefail
cd "$1"
want=${2:?usage: check-install.sh DIR native|wasm}
[[ $want == native || $want == wasm ]] || { echo "check-install: BACKEND is native or wasm, not $want" >&2; exit 2; }

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
# KEYROUTE_BACKEND must not leak in from the caller: the choice is the package's own.
unset KEYROUTE_BACKEND
node -e "$route_all"'
  const k = require("keyroute")
  if (k.backend !== process.argv[1]) throw new Error(`keyroute is on ${k.backend}, not ${process.argv[1]}`)
  routeAll(k, `CommonJS, keyroute on ${k.backend}`)
  routeAll(require("keyroute/wasm"), "CommonJS, keyroute/wasm")
  const HashRing = require("keyroute/hashring")
  if (new HashRing(["a:1"]).get("k") !== "a:1" || HashRing.default !== HashRing) throw new Error("the hashring drop-in")
' "$want" 2>stderr.txt
node --input-type=module -e "
  import { createRequire } from 'node:module'
  const require = createRequire(process.cwd() + '/')
  $route_all"'
  const k = await import("keyroute")
  routeAll(k, `ES module, keyroute on ${k.backend}`)
  routeAll(await import("keyroute/wasm"), "ES module, keyroute/wasm")
  if (require("keyroute").Router !== k.Router) throw new Error("require and import give different classes")
  console.log("  require and import share one module")
' 2>>stderr.txt
# The fallback says so once per process (two processes above), and nothing else is on stderr.
lines=$(grep -c 'keyroute: using the WebAssembly backend' stderr.txt || true)
others=$(grep -vc 'keyroute: using the WebAssembly backend' stderr.txt || true)
expected_lines=$([[ $want == wasm ]] && echo 2 || echo 0)
if [[ $lines != "$expected_lines" || $others != 0 ]]; then
  echo "check-install: stderr had $lines fallback line(s) (expected $expected_lines) and $others other line(s):" >&2
  cat stderr.txt >&2
  exit 1
fi
[[ $want == wasm ]] && echo "  the fallback to WebAssembly is announced once per process: $(head -n 1 stderr.txt)"
backends=(wasm)
[[ $want == native ]] && backends=(addon wasm)
for backend in "${backends[@]}"; do
  if [[ ${KEYROUTE_CHECK_BIN:-npx} == node ]]; then
    node node_modules/keyroute/bin/keyroute-conformance.js --backend "$backend" --junit "report-$backend.xml" --quiet 2>/dev/null | sed 's/^/  /'
  else
    npx --no-install keyroute-conformance --backend "$backend" --junit "report-$backend.xml" --quiet 2>/dev/null | sed 's/^/  /'
  fi
  grep -q '<testsuites name="keyroute conformance ('"$backend"')" tests="[1-9][0-9]*" failures="0"' "report-$backend.xml"
done
if [[ $want == wasm ]]; then
  # Asking for the addon where there is none fails, with the reason.
  if KEYROUTE_BACKEND=native node -e 'require("keyroute")' 2>native.txt; then
    echo "check-install: KEYROUTE_BACKEND=native loaded without an addon" >&2
    exit 1
  fi
  grep -q 'no native addon for' native.txt || { cat native.txt >&2; exit 1; }
  echo "  KEYROUTE_BACKEND=native without the addon: $(grep -o 'no native addon for [a-z0-9-]*' native.txt)"
fi
