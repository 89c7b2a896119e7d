// `node:assert/strict` in Chromium: the assertions the shared test files use, with the same
// meaning (strict equality, deep equality of arrays, typed arrays, Maps, Sets and plain objects).

export class AssertionError extends Error {}

const fail = (message, fallback) => {
  throw new AssertionError(message ?? fallback)
}

function deepEqual(a, b) {
  if (Object.is(a, b)) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false
  if (a instanceof Map) return a.size === b.size && [...a].every(([k, v]) => b.has(k) && deepEqual(v, b.get(k)))
  if (a instanceof Set) return a.size === b.size && [...a].every((v) => b.has(v))
  if (ArrayBuffer.isView(a)) return a.length === b.length && Array.prototype.every.call(a, (v, i) => Object.is(v, b[i]))
  const ka = Object.keys(a)
  const kb = Object.keys(b)
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]))
}

const show = (v) => {
  try {
    return JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? `${x}n` : x))?.slice(0, 200)
  } catch {
    return String(v)
  }
}

function matches(e, expected) {
  if (expected === undefined) return true
  if (typeof expected === 'function' && expected.prototype !== undefined && e instanceof expected) return true
  if (typeof expected === 'function' && expected.prototype === undefined) return expected(e) === true
  if (typeof expected === 'function') return expected(e) === true
  return false
}

const assert = {
  ok: (v, message) => v || fail(message, `expected a truthy value, got ${show(v)}`),
  equal: (a, b, message) => Object.is(a, b) || fail(message, `${show(a)} !== ${show(b)}`),
  notEqual: (a, b, message) => !Object.is(a, b) || fail(message, `${show(a)} === ${show(b)}`),
  deepEqual: (a, b, message) => deepEqual(a, b) || fail(message, `${show(a)} is not deep-equal to ${show(b)}`),
  match: (s, re, message) => re.test(s) || fail(message, `${show(s)} does not match ${re}`),
  throws(fn, expected, message) {
    try {
      fn()
    } catch (e) {
      if (!matches(e, expected)) fail(typeof message === 'string' ? message : undefined, `unexpected error: ${e?.stack ?? e}`)
      return
    }
    fail(typeof expected === 'string' ? expected : message, 'expected the function to throw')
  },
  async rejects(promise, expected, message) {
    try {
      await (typeof promise === 'function' ? promise() : promise)
    } catch (e) {
      if (!matches(e, expected)) fail(typeof message === 'string' ? message : undefined, `unexpected rejection: ${e?.stack ?? e}`)
      return
    }
    fail(typeof expected === 'string' ? expected : message, 'expected the promise to reject')
  },
  fail: (message) => fail(message, 'failed'),
}
assert.strictEqual = assert.equal
assert.deepStrictEqual = assert.deepEqual
assert.AssertionError = AssertionError

export default assert
export const { ok, equal, notEqual, deepEqual: deepStrictEqual, match, throws, rejects } = assert
