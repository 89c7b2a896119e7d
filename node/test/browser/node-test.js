// `node:test` in Chromium: the `test(name, [options,] fn)` the shared test files use (of the
// options, `skip`), run in order once the page has imported them (see index.html), with results
// for the runner to read.

const tests = []

export default function test(name, options, fn) {
  if (typeof options === 'function') [options, fn] = [{}, options]
  tests.push({ name, fn: options?.skip ? () => {} : fn })
}
export { test }

/** Runs every registered test; returns `[{name, ok, error}]`. */
export async function runAll() {
  const results = []
  for (const { name, fn } of tests) {
    try {
      await fn()
      results.push({ name, ok: true })
    } catch (e) {
      results.push({ name, ok: false, error: String(e?.stack ?? e) })
    }
  }
  return results
}
