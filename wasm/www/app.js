// The playground: keyroute's JavaScript API on its WebAssembly build, in a static page. Every
// figure comes from the library (ownership, diff, pieces of the hash space), so it is the one
// `keyroute plan` and every other surface compute; this file only draws.

import { ALGORITHMS, Modulo, Router, diff } from '../../node/lib/browser.js'

const $ = (id) => document.getElementById(id)
const COLORS = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac']
const color = (i) => COLORS[i % COLORS.length]
const pct = (x) => `${(x * 100).toFixed(2)}%`

let baseline = null // the spec changes are compared with
let spec = null // the spec shown

function showError(e) {
  $('error').textContent = e ? `${e.name}${e.code ? ` (${e.code})` : ''}: ${e.message}` : ''
}

/** Builds the current spec's router; on a bad spec, shows the error and keeps the last one. */
function build(candidate) {
  try {
    const router = new Router(candidate)
    showError(null)
    return router
  } catch (e) {
    showError(e)
    return null
  }
}

function setSpec(next, { asBaseline = false } = {}) {
  const router = build(next)
  if (!router) return
  spec = router.spec
  if (asBaseline || baseline === null) baseline = spec
  render(router)
}

function renderNodes() {
  const body = $('nodes').querySelector('tbody')
  body.replaceChildren()
  spec.nodes.forEach((node, i) => {
    const row = document.createElement('tr')
    const weight = document.createElement('input')
    weight.type = 'number'
    weight.min = '0'
    weight.value = String(node.weight ?? 1)
    weight.addEventListener('change', () => {
      const nodes = structuredClone(spec.nodes)
      nodes[i].weight = Number(weight.value)
      setSpec({ ...spec, nodes })
    })
    const remove = document.createElement('button')
    remove.textContent = 'remove'
    remove.addEventListener('click', () => setSpec({ ...spec, nodes: spec.nodes.filter((_, j) => j !== i) }))
    const id = document.createElement('td')
    id.innerHTML = `<i style="display:inline-block;width:.7rem;height:.7rem;background:${color(i)}"></i> `
    id.append(node.id)
    const w = document.createElement('td')
    w.append(weight)
    const r = document.createElement('td')
    r.append(remove)
    row.append(id, w, r)
    body.append(row)
  })
}

function arc(r, a0, a1) {
  const p = (a) => `${(r * Math.sin(a)).toFixed(3)} ${(-r * Math.cos(a)).toFixed(3)}`
  return `M ${p(a0)} A ${r} ${r} 0 ${a1 - a0 > Math.PI ? 1 : 0} 1 ${p(a1)}`
}

function renderView(router) {
  const svg = $('ring')
  const own = router.ownership()
  const pieces = router.pieces()
  let paths = ''
  if (pieces && pieces.starts.length <= 50_000) {
    // The hash space as a circle: each piece an arc in its owner's colour.
    const space = 2 ** Math.min(pieces.bits, 64)
    const n = pieces.starts.length
    for (let i = 0; i < n; i++) {
      const a0 = (Number(pieces.starts[i]) / space) * 2 * Math.PI
      const a1 = i + 1 < n ? (Number(pieces.starts[i + 1]) / space) * 2 * Math.PI : 2 * Math.PI
      if (a1 - a0 < 1e-9) continue
      paths += `<path d="${arc(100, a0, a1)}" stroke="${color(pieces.owners[i])}" stroke-width="22" fill="none"/>`
    }
    paths += '<text x="0" y="5" text-anchor="middle" font-size="11">the key-hash space</text>'
  } else {
    // No ring: the share each node owns, as bars.
    const shares = [...own.shares.values()]
    const top = Math.max(...shares, 1e-9)
    const w = 220 / shares.length
    shares.forEach((s, i) => {
      const h = (s / top) * 200
      paths += `<rect x="${-110 + i * w}" y="${100 - h}" width="${Math.max(w - 2, 1)}" height="${h}" fill="${color(i)}"/>`
    })
  }
  svg.innerHTML = paths
  $('legend').innerHTML = router.nodes
    .map((id, i) => `<span><i style="background:${color(i)}"></i>${escape(id)} ${pct(own.shares.get(id))}</span>`)
    .join('')
  $('balance').textContent = `balance: CV ${pct(own.balance.cv)}, max/mean ${own.balance.maxOverMean.toFixed(3)} (${own.method})`
}

function renderChange(router) {
  const before = new Router(baseline)
  const d = diff(before, router)
  const moved = $('moved')
  moved.dataset.moved = String(d.moved)
  moved.textContent = `${pct(d.moved)} of keys move (the least any router could move: ${pct(d.idealMoved)}; ${d.method})`
  const body = $('flows').querySelector('tbody')
  body.replaceChildren()
  for (const f of d.flows.filter((f) => f.source !== f.target).sort((a, b) => b.share - a.share)) {
    const row = document.createElement('tr')
    for (const text of [f.source, f.target, pct(f.share)]) {
      const cell = document.createElement('td')
      cell.textContent = text
      row.append(cell)
    }
    body.append(row)
  }
  try {
    const m = diff(new Modulo(baseline.nodes.map((n) => n.id)), new Modulo(router.nodes))
    $('modulo').textContent = `For contrast, hash mod n over the same node ids moves ${pct(m.moved)}.`
  } catch (e) {
    $('modulo').textContent = `hash mod n: ${e.message}`
  }
  $('spec-before').textContent = JSON.stringify(baseline)
  $('spec-after').textContent = JSON.stringify(spec)
}

function renderKey(router) {
  const key = $('key').value
  try {
    const owner = router.route(key)
    let text = `"${key}" → ${owner}`
    try {
      text += `; replicas: ${router.replicas(key, Math.min(3, router.size)).join(', ')}`
    } catch (e) {
      if (e.code !== 'KR_REPLICAS_UNSUPPORTED') throw e
    }
    $('route').textContent = text
  } catch (e) {
    $('route').textContent = `${e.name}: ${e.message}`
  }
}

function render(router) {
  $('spec').value = JSON.stringify(spec, null, 2)
  $('algorithm').value = spec.algorithm
  renderNodes()
  renderView(router)
  renderChange(router)
  renderKey(router)
}

function escape(s) {
  return s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`)
}

function init() {
  const select = $('algorithm')
  for (const a of ALGORITHMS) {
    const option = document.createElement('option')
    option.value = a.name
    option.textContent = `${a.name} — ${a.origin}`
    select.append(option)
  }
  select.addEventListener('change', () => {
    const example = ALGORITHMS.find((a) => a.name === select.value).example
    setSpec(example, { asBaseline: true })
  })
  $('add').addEventListener('click', () => {
    const ids = new Set(spec.nodes.map((n) => n.id))
    let i = spec.nodes.length
    while (ids.has(`cache-${String.fromCharCode(97 + (i % 26))}${i >= 26 ? i : ''}`)) i++
    const id = `cache-${String.fromCharCode(97 + (i % 26))}${i >= 26 ? i : ''}`
    const last = spec.nodes.at(-1) ?? {}
    const node = { id, weight: 1 }
    if (last.host !== undefined) Object.assign(node, { id: `10.0.9.${i}:11211`, host: `10.0.9.${i}`, port: 11211 })
    setSpec({ ...spec, nodes: [...spec.nodes, node] })
  })
  $('baseline').addEventListener('click', () => setSpec(spec, { asBaseline: true }))
  $('apply').addEventListener('click', () => {
    try {
      setSpec(JSON.parse($('spec').value))
    } catch (e) {
      showError(e)
    }
  })
  $('key').addEventListener('input', () => renderKey(new Router(spec)))
  const ring = ALGORITHMS.find((a) => a.name === 'ring').example
  setSpec(ring, { asBaseline: true })
  document.body.dataset.status = 'ready'
}

init()
