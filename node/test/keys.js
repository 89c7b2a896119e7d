// Test keys shared by the test files.

/** Deterministic random keys: ASCII, Latin, CJK and astral characters, braces for hash tags. */
export function randomKeys(n, seed = 1) {
  let s = seed >>> 0
  const next = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0)
  const alphabets = ['abcdefghijklmnopqrstuvwxyz0123456789:_-.', 'éèçüßñøåæœ', '日本語中文한국어', '😀🚀🎉𝄞']
  const keys = []
  for (let i = 0; i < n; i++) {
    const len = 1 + (next() % 24)
    const alphabet = Array.from(alphabets[i % 5 === 4 ? 1 + (next() % 3) : 0])
    let k = ''
    for (let j = 0; j < len; j++) k += alphabet[next() % alphabet.length]
    const head = (n) => Array.from(k).slice(0, n).join('')
    if (i % 11 === 0) k = `{${head(3)}}${k}`
    if (i % 13 === 0) k = `${k}{}{${head(2)}}`
    keys.push(k)
  }
  return keys
}
