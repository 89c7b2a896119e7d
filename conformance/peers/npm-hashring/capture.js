#!/usr/bin/env node
// Capture npm `hashring` key->node vectors by running the real package.
// Run via capture.sh (installs the pinned version into conformance/peers/.work/npm-hashring and
// sets NODE_PATH). Writes conformance/vectors/v1/npm-hashring-*.json. Deterministic.
'use strict';

const fs = require('fs');
const path = require('path');
const HashRing = require('hashring');

const HERE = __dirname;
const PEERS = path.dirname(HERE);
const OUT = path.join(path.dirname(PEERS), 'vectors', 'v1');
const CAPTURED_BY = 'conformance/peers/npm-hashring/capture.sh';
const VERSION = require('hashring/package.json').version;
const DEPS = ['connection-parse', 'simple-lru-cache']
  .map((d) => `${d} ${require(`${d}/package.json`).version}`).join(', ');
const RUNTIME = `Node ${process.versions.node}`;

function loadKeys() {
  const doc = JSON.parse(fs.readFileSync(path.join(PEERS, 'keys.json'), 'utf8'));
  return doc.keys.map((k, i) => ({ i, tag: k.tags, bytes: Buffer.from(k.hex, 'hex') }));
}

function keyFields(b) {
  if ([...b].every((c) => c >= 0x20 && c < 0x7f)) return { key: b.toString('latin1') };
  return { key_hex: b.toString('hex') };
}

function compact(v) {
  if (Array.isArray(v)) return '[' + v.map(compact).join(', ') + ']';
  if (v && typeof v === 'object') {
    return '{' + Object.keys(v).map((k) => JSON.stringify(k) + ': ' + compact(v[k])).join(', ') + '}';
  }
  return JSON.stringify(v);
}

function fmt(v, ind = 0) {
  const pad = '  '.repeat(ind);
  if (v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length) {
    const items = Object.keys(v).map((k) => pad + '  ' + JSON.stringify(k) + ': ' + fmt(v[k], ind + 1));
    return '{\n' + items.join(',\n') + '\n' + pad + '}';
  }
  if (Array.isArray(v) && v.length && v.every((x) => x && typeof x === 'object' && !Array.isArray(x))) {
    return '[\n' + v.map((x) => pad + '  ' + compact(x)).join(',\n') + '\n' + pad + ']';
  }
  return compact(v);
}

function write(fileId, description, spec, cases) {
  const ids = new Set(cases.map((c) => c.id));
  if (ids.size !== cases.length) throw new Error(`duplicate case ids in ${fileId}`);
  const doc = {
    id: fileId,
    description,
    provenance: { kind: 'peer', peer: 'hashring', version: VERSION, captured_by: CAPTURED_BY },
    spec,
    cases,
  };
  fs.writeFileSync(path.join(OUT, fileId + '.json'), fmt(doc) + '\n');
  console.log(`${(fileId + '.json').padEnd(48)} ${String(cases.length).padStart(5)} cases`);
}

// servers: array of [string, weight]. Equal weights -> array form; otherwise the object form
// {"host:port": weight}.
function makeRing(servers, options) {
  const weighted = servers.some(([, w]) => w !== 1);
  const arg = weighted ? Object.fromEntries(servers) : servers.map(([s]) => s);
  return new HashRing(arg, 'md5', options);
}

function specFor(ring) {
  return {
    algorithm: 'npm-hashring',
    params: { vnode_count: ring.vnode, replicas: ring.replicas, default_port: ring.defaultport },
    nodes: ring.servers.map((s) => ({ id: s.string, weight: s.weight })),
  };
}

function routeKeys(ring, keys) {
  return keys.map(({ i, tag, bytes }) => {
    // Keys are strings: the UTF-8 decoding of the bytes (all keys.json keys are valid UTF-8), so
    // crypto's update(string) hashes exactly these bytes.
    const s = bytes.toString('utf8');
    if (!Buffer.from(s, 'utf8').equals(bytes)) throw new Error(`key ${i} is not valid UTF-8`);
    return Object.assign({ id: `${tag}-${String(i).padStart(3, '0')}` }, keyFields(bytes), { node: ring.get(s) });
  });
}

function main() {
  fs.mkdirSync(OUT, { recursive: true });
  const keys = loadKeys();
  const range = (a, b) => Array.from({ length: b - a + 1 }, (_, k) => a + k);
  const cache = (n) => range(1, n).map((k) => [`cache-${k}`, 1]);
  const ip = (k) => `10.0.0.${k}:11211`;
  const plainTopologies = [
    ['1', '1 server', cache(1)],
    ['3', '3 equal servers', cache(3)],
    ['4', 'the 3-server topology scaled out by one server (cache-4 appended last)', cache(4)],
    ['5w', '5 servers with weights 1..5 (object form {"host:port": weight})', range(1, 5).map((k) => [ip(k), k])],
    ['7', '7 equal servers (floor((1/7)*40*7) = 39 vnodes each in IEEE double)', cache(7)],
    ['60', '60 equal servers', cache(60)],
  ];
  // default port 11211: some servers written with ":11211" (point names use host only), some
  // without a port, some with another port (point names use the full string).
  const dp = (k) => [`10.0.0.${k}:11211`, `10.0.0.${k}`, `10.0.0.${k}:11212`][(k - 1) % 3];
  const dpTopologies = [
    ['1', '1 server', [[dp(1), 1]]],
    ['3', '3 servers', range(1, 3).map((k) => [dp(k), 1])],
    ['4', 'the 3-server topology scaled out by one server', range(1, 4).map((k) => [dp(k), 1])],
    ['5w', '5 servers with weights 1..5 (object form)', range(1, 5).map((k) => [dp(k), k])],
    ['60', '60 servers', range(1, 60).map((k) => [dp(k), 1])],
  ];
  const modes = [
    ['default', 'new HashRing(servers, "md5") with default options', {}, plainTopologies],
    ['defaultport', 'new HashRing(servers, "md5", {"default port": 11211}); servers with and without ":11211"',
      { 'default port': 11211 }, dpTopologies],
    ['hashring-compat', 'new HashRing(servers, "md5", {compatibility: "hash_ring"}) (3 replicas)',
      { compatibility: 'hash_ring' }, plainTopologies],
  ];
  for (const [mode, mdesc, options, topologies] of modes) {
    for (const [suffix, tdesc, servers] of topologies) {
      const ring = makeRing(servers, options);
      write(`npm-hashring-${mode}-${suffix}`,
        `npm hashring ${VERSION} (${DEPS}), ${tdesc}: ${mdesc}; every key of peers/keys.json passed as `
        + `its UTF-8-decoded string to ring.get(). Captured on ${RUNTIME}.`,
        specFor(ring), routeKeys(ring, keys));
    }
  }

  // Cross-check with upstream test values (PEERS.md#npm-hashring) (upstream fixtures, first five keys).
  const mismatches = [];
  const w15 = range(1, 5).map((k) => [`0.0.0.${k}`, k]);
  const upstream = [
    ['ketama', 'weights 1..5, default options (fixture ketama/md5)', w15, {},
      ['0.0.0.4', '0.0.0.5', '0.0.0.4', '0.0.0.3', '0.0.0.5']],
    ['hashring-compat', 'weights 1..5, {compatibility: "hash_ring"} (fixture hash_ring.txt)', w15,
      { compatibility: 'hash_ring' }, ['0.0.0.4', '0.0.0.5', '0.0.0.4', '0.0.0.3', '0.0.0.5']],
    ['defaultport', 'equal servers, {"default port": 11211}',
      ['0.0.0.1:11211', '0.0.0.2:11211', '0.0.0.3', '0.0.0.4:11213', '0.0.0.5:11212'].map((s) => [s, 1]),
      { 'default port': 11211 }, ['0.0.0.4:11213', '0.0.0.5:11212', '0.0.0.5:11212', '0.0.0.3', '0.0.0.1:11211']],
  ];
  for (const [name, tdesc, servers, options, expect] of upstream) {
    const ring = makeRing(servers, options);
    const cases = expect.map((want, k) => {
      const got = ring.get(String(k));
      if (got !== want) mismatches.push(`${name} "${k}": peer ${got}, upstream ${want}`);
      return { id: String(k), key: String(k), node: got };
    });
    write(`npm-hashring-upstream-${name}`,
      `npm hashring ${VERSION}: upstream test values (PEERS.md#npm-hashring) topology (${tdesc}) and its stated keys, `
      + `captured from the peer on ${RUNTIME}.`, specFor(ring), cases);
  }
  const r7 = makeRing(cache(7), {});
  if (r7.ring.length !== 7 * 39 * 4) mismatches.push(`7-server ring has ${r7.ring.length} points, expected 1092`);
  if (mismatches.length) {
    console.log('MISMATCHES vs upstream test values (PEERS.md):');
    for (const m of mismatches) console.log('  ' + m);
  } else {
    console.log('cross-check: all upstream test values (PEERS.md#npm-hashring) vectors matched (and the 7-server 39-vnode quirk)');
  }
}

main();
