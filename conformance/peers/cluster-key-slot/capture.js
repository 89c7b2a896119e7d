#!/usr/bin/env node
// Capture Redis Cluster key slots by running the real npm `cluster-key-slot` package.
// Run via capture.sh (installs the pinned version into conformance/peers/.work/cluster-key-slot
// and sets NODE_PATH). Writes conformance/vectors/v1/cluster-key-slot-*.json. Deterministic.
'use strict';

const fs = require('fs');
const path = require('path');
const keySlot = require('cluster-key-slot');

const HERE = __dirname;
const PEERS = path.dirname(HERE);
const OUT = path.join(path.dirname(PEERS), 'vectors', 'v1');
const CAPTURED_BY = 'conformance/peers/cluster-key-slot/capture.sh';
const VERSION = require('cluster-key-slot/package.json').version;
const RUNTIME = `Node ${process.versions.node}`;

// The standard 3-master layout; the node of a case is derived from the captured slot via this
// table (cluster-key-slot itself only computes slots).
const NODES = [
  { id: 'node-0', slots: [[0, 5460]] },
  { id: 'node-1', slots: [[5461, 10922]] },
  { id: 'node-2', slots: [[10923, 16383]] },
];
// The package's hash-tag rule differs from Redis on keys like "foo{}{bar}" (see README-python-npm.md).
const SPEC = { algorithm: 'redis-cluster', params: { tag_rule: 'cluster_key_slot' }, nodes: NODES };

function nodeOf(slot) {
  for (const n of NODES) {
    for (const [a, b] of n.slots) if (slot >= a && slot <= b) return n.id;
  }
  throw new Error(`slot ${slot} not covered`);
}

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

function write(fileId, description, cases) {
  const ids = new Set(cases.map((c) => c.id));
  if (ids.size !== cases.length) throw new Error(`duplicate case ids in ${fileId}`);
  const doc = {
    id: fileId,
    description,
    provenance: { kind: 'peer', peer: 'cluster-key-slot', version: VERSION, captured_by: CAPTURED_BY },
    spec: SPEC,
    cases,
  };
  fs.writeFileSync(path.join(OUT, fileId + '.json'), fmt(doc) + '\n');
  console.log(`${(fileId + '.json').padEnd(40)} ${String(cases.length).padStart(5)} cases`);
}

function slotOf(bytes) {
  // The package accepts a Buffer (any indexable byte array) and hashes its exact bytes.
  const slot = keySlot(bytes);
  // Self-check: the string path (its own UTF-8 encoder) must agree for valid UTF-8 keys.
  const viaString = keySlot(bytes.toString('utf8'));
  if (viaString !== slot) throw new Error(`Buffer/string slot mismatch for ${bytes.toString('hex')}`);
  return slot;
}

function main() {
  fs.mkdirSync(OUT, { recursive: true });
  const cases = loadKeys().map(({ i, tag, bytes }) => {
    const slot = slotOf(bytes);
    return Object.assign({ id: `${tag}-${String(i).padStart(3, '0')}` }, keyFields(bytes),
      { node: nodeOf(slot), slot });
  });
  const desc = `npm cluster-key-slot ${VERSION}: generate(Buffer of the key bytes) for every key of `
    + 'peers/keys.json. `slot` is the peer\'s output; `node` is NOT computed by the peer but derived '
    + 'from the slot through the 3-node slot table in spec.nodes (0-5460, 5461-10922, 10923-16383). '
    + `Captured on ${RUNTIME}. Known peer divergence from redis-server: for a key whose first {} pair is `
    + 'empty and that has a later non-empty pair (foo{}{bar}, case brace-032), cluster-key-slot hashes the '
    + 'bytes after the first "{" up to the next "}" ("{bar" -> 4015), while Redis hashes the whole key '
    + '(8363); the value here is the peer\'s.';
  write('cluster-key-slot-3', desc, cases);

  // Cross-check with upstream test values (PEERS.md#redis-cluster) (redis.io / Dragonfly [V-tests] and [S] values).
  const expect = [
    ['somekey', 11058], ['foo{hash_tag}', 2515], ['bar{hash_tag}', 2515], ['{user1}.following', 8106],
    ['foo', 12182], ['123456789', 12739], ['{user1000}.following', 3443], ['{user1000}.followers', 3443],
    ['foo{}{bar}', 8363], ['foo{{bar}}zap', 4015], ['foo{bar}{zap}', 5061], ['', 0],
  ];
  const mismatches = [];
  const up = expect.map(([k, want], j) => {
    const slot = slotOf(Buffer.from(k, 'utf8'));
    if (slot !== want) mismatches.push(`${JSON.stringify(k)}: peer slot ${slot}, upstream ${want}`);
    return Object.assign({ id: `upstream-${String(j).padStart(2, '0')}` }, keyFields(Buffer.from(k)),
      { node: nodeOf(slot), slot });
  });
  write('cluster-key-slot-upstream',
    `npm cluster-key-slot ${VERSION}: the keys of upstream test values (PEERS.md#redis-cluster) (redis.io CLUSTER KEYSLOT `
    + 'examples, Dragonfly docs, and the [S] hash-tag edge cases), slots as computed by the peer; '
    + `node derived from the slot via spec.nodes. Captured on ${RUNTIME}. upstream-08 (foo{}{bar}) is `
    + 'the peer\'s 4015, which differs from Redis (8363, upstream test values (PEERS.md#redis-cluster) and redis-server 7.0.15).', up);
  if (mismatches.length) {
    console.log('MISMATCHES vs upstream test values (PEERS.md) (peer values were written as captured):');
    for (const m of mismatches) console.log('  ' + m);
  } else {
    console.log('cross-check: all upstream test values (PEERS.md#redis-cluster) vectors matched');
  }
}

main();
