// `make playground`: serves the repository on 127.0.0.1 and prints the playground's address.
// Static files only; the page computes everything with keyroute's WebAssembly build.

import { serve } from '../node/test/browser/server.mjs'

const port = Number(process.env.PORT ?? 8080)
const { url } = await serve(port)
console.log(`keyroute playground: ${url}/wasm/www/  (Ctrl-C stops it)`)
