// The name of this platform's native addon, shared by the loader (lib/native.js) and the
// checkout's build command (scripts/build-native.cjs), so the file one writes is the file the
// other reads: `linux-x64-gnu`, `linux-x64-musl`, `linux-arm64-gnu`, `win32-x64-gnu` (built
// with mingw), `darwin-arm64`, … — napi-rs's names. The addon is `keyroute.<name>.node` in the
// package folder (a checkout's build), or the npm package `keyroute-<name>` (an
// optionalDependency of the published package).

'use strict'

/** `gnu` or `musl` on Linux (a glibc runtime reports its version), null elsewhere. */
function libc() {
  if (process.platform !== 'linux') return null
  const header = process.report?.getReport?.()?.header
  return header?.glibcVersionRuntime ? 'gnu' : 'musl'
}

/** This platform's addon name. */
function platformName() {
  const { platform, arch } = process
  if (platform === 'linux') return `linux-${arch}-${libc()}`
  if (platform === 'win32') return `win32-${arch}-gnu`
  return `${platform}-${arch}`
}

module.exports = { platformName }
