// `test/setup.js` in Chromium (the page's import map puts it in place of the Node one): the
// WebAssembly build through the browser entry point, and the corpus fetched from the test
// server, which lists the vector files at /corpus-index.json.

export const backend = 'wasm'
export const inBrowser = true
export const keyroute = await import('/node/lib/browser.js')

export async function loadCorpus() {
  const names = await (await fetch('/corpus-index.json')).json()
  return Promise.all(
    names.map(async (name) => ({ name, doc: await (await fetch(`/conformance/vectors/v1/${name}`)).json() })),
  )
}
