// The JavaScript conformance runner's core, shared by the package's test suite
// (node/test/conformance.test.js) and the `keyroute-conformance` command (bin/): one vector
// file's cases through the JS API (specs as objects, as JSON text and as bytes, under the
// case's limits; keys as strings, bytes, UTF-16 text and values of other types). Cases only the
// CLI reads (`spec_toml`) are not for this surface. No Node built-ins: it runs in browsers too.

/** Keys of the types a dynamic surface must refuse (`key_type`). */
const KEY_TYPES = { int: 42, float: 1.5, null: null, list: [], object: {}, bool: true }

/** A case that does not give what its file says. */
export class Mismatch extends Error {
  constructor(message) {
    super(message)
    this.name = 'Mismatch'
  }
}

function check(ok, message) {
  if (!ok) throw new Mismatch(message)
}

/** Bytes from hex text. */
export function hexBytes(hex) {
  const out = new Uint8Array(hex.length / 2)
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16)
  return out
}

/**
 * `head` + `unit` × `times` + `tail` (absent parts are empty), for documents and keys too large
 * to store: text as a string, or bytes (a Uint8Array) when `hex` is true.
 */
function repeat(r) {
  if (!r.hex) return (r.head ?? '') + (r.unit ?? '').repeat(r.times ?? 0) + (r.tail ?? '')
  const [head, unit, tail] = [r.head, r.unit, r.tail].map((h) => hexBytes(h ?? ''))
  const times = r.times ?? 0
  const out = new Uint8Array(head.length + unit.length * times + tail.length)
  out.set(head, 0)
  for (let i = 0, at = head.length; i < times; i++, at += unit.length) out.set(unit, at)
  out.set(tail, head.length + unit.length * times)
  return out
}

/**
 * The case's key as a JavaScript value: text, bytes, UTF-16 text (maybe ill-formed), a long
 * repeated key, or a value of another type; undefined when the case has none.
 */
export function caseKey(c) {
  if ('key' in c) return c.key
  if ('key_hex' in c) return hexBytes(c.key_hex)
  if ('key_utf16' in c) return String.fromCharCode(...c.key_utf16)
  if ('key_repeat' in c) return repeat(c.key_repeat)
  if ('key_type' in c) {
    check(Object.hasOwn(KEY_TYPES, c.key_type), `unknown key_type ${c.key_type}`)
    return KEY_TYPES[c.key_type]
  }
  return undefined
}

/**
 * The case's own spec as the JS API takes it: an object (`spec`), JSON text (`spec_json`, or
 * `spec_repeat` as text), or raw bytes (`spec_hex`, `spec_repeat` as hex: not UTF-8 on purpose,
 * so never decoded to a string, which would replace the bad bytes); undefined for the file's.
 */
export function caseSpec(c) {
  if ('spec' in c) return c.spec
  if ('spec_json' in c) return c.spec_json
  if ('spec_hex' in c) return hexBytes(c.spec_hex)
  if ('spec_repeat' in c) return repeat(c.spec_repeat)
  return undefined
}

/** Whether a case is for this surface (`spec_toml` cases are the CLI's). */
export const forThisSurface = (c) => !('spec_toml' in c)

/**
 * The runner over one keyroute API (`keyroute` or `keyroute/wasm`): `runCase(fileRouter, c,
 * where)` runs one case and throws a `Mismatch` (or what the API threw unexpectedly) when it
 * does not give what the file says; false when the case is not for this surface.
 */
export function caseRunner({ Router, KeyrouteError }) {
  function expectError(c, e, where) {
    check(e instanceof KeyrouteError, `${where}: expected ${c.error}, got a foreign error: ${e?.stack ?? e}`)
    check(e.kind === c.error, `${where}: expected ${c.error}, got ${e.kind}: ${e.message}`)
    check(e.errno === c.code, `${where}: expected errno ${c.code}, got ${e.errno}`)
  }

  function throwsExpected(c, fn, where) {
    try {
      fn()
    } catch (e) {
      expectError(c, e, where)
      return
    }
    throw new Mismatch(`${where}: expected ${c.error}, nothing was thrown`)
  }

  /** Builds the case's spec under its limits, or throws what the constructor threw. */
  const build = (spec, c) => ('limits' in c ? new Router(spec, { limits: c.limits }) : new Router(spec))

  function runCase(fileRouter, c, where) {
    if (!forThisSurface(c)) return false
    let router = fileRouter
    const spec = caseSpec(c)
    if (spec !== undefined) {
      try {
        router = build(spec, c)
      } catch (e) {
        if (!('error' in c)) throw e
        expectError(c, e, where)
        // JSON text gives the same verdict as its UTF-8 bytes.
        if (typeof spec === 'string' && spec.length < 1 << 16) {
          throwsExpected(c, () => build(new TextEncoder().encode(spec), c), `${where} (bytes)`)
        }
        return true
      }
      if (typeof spec === 'string' && spec.length < 1 << 16) {
        check(router.equals(build(new TextEncoder().encode(spec), c)), `${where}: the spec's bytes build another router`)
      }
    }
    check(router, `${where}: no spec`)
    const key = caseKey(c)
    check(key !== undefined, `${where}: no key`)
    if ('replicas_count' in c) {
      throwsExpected(c, () => router.replicas(key, c.replicas_count), where)
      return true
    }
    let node
    try {
      node = router.route(key)
    } catch (e) {
      if (!('error' in c)) throw new Mismatch(`${where}: expected ${c.node}, got ${e?.code ?? 'an error'}: ${e?.message ?? e}`)
      expectError(c, e, where)
      return true
    }
    check(!('error' in c), `${where}: expected ${c.error}, got ${node}`)
    check(node === c.node, `${where}: expected ${c.node}, got ${node}`)
    if ('slot' in c) {
      const slot = router.slot(key)
      check(slot === c.slot, `${where}: expected slot ${c.slot}, got ${slot}`)
    }
    if ('replicas' in c) {
      const got = router.replicas(key, c.replicas.length)
      check(got.join('\u0000') === c.replicas.join('\u0000') && got.length === c.replicas.length, `${where}: expected replicas ${JSON.stringify(c.replicas)}, got ${JSON.stringify(got)}`)
    }
    return true
  }

  /**
   * Every case of one vector file `{name, doc}` (the file's spec must build), each as
   * `{id, outcome: 'passed' | 'failed' | 'skipped', message, seconds}`; `only` selects cases.
   */
  function runFile({ name, doc }, only = () => true) {
    const results = []
    let fileRouter = null
    if (doc.spec) {
      fileRouter = new Router(doc.spec)
      check(fileRouter.equals(new Router(JSON.stringify(doc.spec))), `${name}: object and text specs differ`)
    }
    const ids = new Set()
    for (const c of doc.cases) {
      check(!ids.has(c.id), `${name}: case id ${c.id} is not unique`)
      ids.add(c.id)
      if (!only(c)) continue
      const start = performance.now()
      let outcome
      let message = ''
      try {
        outcome = runCase(fileRouter, c, `${name} ${c.id}`) ? 'passed' : 'skipped'
      } catch (e) {
        outcome = 'failed'
        message = e?.message ?? String(e)
      }
      results.push({ id: c.id, outcome, message, seconds: (performance.now() - start) / 1000 })
    }
    return results
  }

  return { runCase, runFile }
}
