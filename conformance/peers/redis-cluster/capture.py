#!/usr/bin/env python3
"""Capture Redis Cluster key->slot->node vectors from a running cluster.

Talks RESP over a plain socket (any key bytes are fine). For every key: CLUSTER KEYSLOT gives
the slot, and a real GET sent to the first node gives the owner (the node answers, or replies
-MOVED <slot> <host:port>). CLUSTER SLOTS gives the slot->node table written into the spec.
"""
import argparse
import os
import socket
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # conformance/peers/vecio.py
from vecio import case_key, dpkg_version, extra_id, key_field, load_keys, write_vector  # noqa: E402


class Resp:
    def __init__(self, host, port):
        self.s = socket.create_connection((host, port), timeout=5)
        self.f = self.s.makefile("rb")

    def cmd(self, *args):
        out = [b"*%d\r\n" % len(args)]
        for a in args:
            if isinstance(a, str):
                a = a.encode()
            elif isinstance(a, int):
                a = str(a).encode()
            out.append(b"$%d\r\n%s\r\n" % (len(a), a))
        self.s.sendall(b"".join(out))
        return self.read()

    def read(self):
        line = self.f.readline()
        if not line.endswith(b"\r\n"):
            raise IOError("connection closed")
        t, body = line[:1], line[1:-2]
        if t == b"+":
            return body.decode()
        if t == b"-":
            return RespError(body.decode())
        if t == b":":
            return int(body)
        if t == b"$":
            n = int(body)
            if n < 0:
                return None
            data = self.f.read(n + 2)
            return data[:-2]
        if t == b"*":
            n = int(body)
            return None if n < 0 else [self.read() for _ in range(n)]
        raise IOError("bad reply %r" % line)


class RespError(str):
    pass


def crc16_xmodem(data):
    crc = 0
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
            crc &= 0xFFFF
    return crc


def model_slot(k):
    s = k.find(b"{")
    if s >= 0:
        e = k.find(b"}", s + 1)
        if e > s + 1:
            k = k[s + 1:e]
    return crc16_xmodem(k) & 0x3FFF


# Extra hash-tag cases beyond keys.json (ids are the key text; stable).
EXTRA_BRACE = [
    b"{user1}.following", b"{user1000}", b"user1000", b"{}{a}", b"a{b}c{d}", b"{{}}", b"}{a}",
    b"{a", b"a}b{c}", b"x{}y", b"{ }", b"{somekey}", b"{foo}bar", b"foo{bar}", b"{bar}",
    b"bar", b"{\xc3\xa9t\xc3\xa9}x", b"\xc3\xa9t\xc3\xa9", b"{a}{b}", b"{{a}", b"{}}", b"{\x00}z", b"\x00",
]


def version():
    v = subprocess.run(["redis-server", "--version"], capture_output=True, text=True).stdout.strip()
    short = v.split("v=")[1].split()[0]
    return "%s (Debian redis-server %s; `redis-server --version`: %s)" % (short, dpkg_version("redis-server"), v)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--keys", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--id", required=True)
    ap.add_argument("--description", required=True)
    ap.add_argument("--ports", required=True, help="comma list; first one is asked every GET")
    ap.add_argument("--workdir", required=True)
    a = ap.parse_args()
    ports = [int(p) for p in a.ports.split(",")]
    conns = {p: Resp("127.0.0.1", p) for p in ports}
    c0 = conns[ports[0]]
    info = c0.cmd("CLUSTER", "INFO").decode()
    assert "cluster_state:ok" in info, info
    with open(os.path.join(a.workdir, a.id + ".cluster-nodes.txt"), "wb") as f:
        f.write(c0.cmd("CLUSTER", "NODES"))
    # slot -> node table from CLUSTER SLOTS
    table = {}
    for ent in c0.cmd("CLUSTER", "SLOTS"):
        first, last, master = ent[0], ent[1], ent[2]
        nid = "%s:%d" % (master[0].decode(), master[1])
        table.setdefault(nid, []).append([first, last])
    nodes = []
    for p in ports:
        nid = "127.0.0.1:%d" % p
        nodes.append({"id": nid, "slots": sorted(table.get(nid, []))})
    covered = sum(l - f + 1 for n in nodes for f, l in n["slots"])
    assert covered == 16384, covered

    def owner_of_slot(s):
        for n in nodes:
            for f, l in n["slots"]:
                if f <= s <= l:
                    return n["id"]

    keys = load_keys(a.keys)
    have = {b for b, _ in keys}
    for b in EXTRA_BRACE:
        if b not in have:
            keys.append((b, extra_id(b)))
            have.add(b)
    cases, ids = [], set()
    model_mismatch = []
    for b, tags in keys:
        slot = c0.cmd("CLUSTER", "KEYSLOT", b)
        assert isinstance(slot, int), (b, slot)
        r = c0.cmd("GET", b)
        if isinstance(r, RespError):
            parts = r.split()
            assert parts[0] == "MOVED", r
            assert int(parts[1]) == slot, (r, slot)
            node = parts[2]
            # confirm the redirect target really owns it (answers without MOVED)
            r2 = conns[int(node.rsplit(":", 1)[1])].cmd("GET", b)
            assert not isinstance(r2, RespError), (b, r2)
        else:
            node = "127.0.0.1:%d" % ports[0]
        assert node == owner_of_slot(slot), (b, node, slot)
        if model_slot(b) != slot:
            model_mismatch.append((b, slot, model_slot(b)))
        cid = tags
        assert cid not in ids, cid
        ids.add(cid)
        c = {"id": cid}
        c.update(key_field(b))
        c["slot"] = slot
        c["node"] = node
        cases.append(c)
    doc = {
        "id": a.id,
        "description": a.description,
        "provenance": {"kind": "peer", "peer": "redis-server (Redis Cluster)", "version": version(),
                       "captured_by": "conformance/peers/redis-cluster/capture.sh"},
        "spec": {"algorithm": "redis-cluster", "nodes": nodes},
        "cases": cases,
    }
    write_vector(a.out, doc)
    print("%s: %d cases, model (upstream test values (PEERS.md#redis-cluster)) mismatches: %d %r" % (a.out, len(cases), len(model_mismatch), model_mismatch[:5]))
    # spec vectors cross-check
    spec = {b"somekey": 11058, b"foo{hash_tag}": 2515, b"bar{hash_tag}": 2515, b"{user1}.following": 8106,
            b"foo": 12182, b"123456789": 12739, b"{user1000}.following": 3443, b"{user1000}.followers": 3443,
            b"foo{}{bar}": 8363, b"foo{{bar}}zap": 4015, b"foo{bar}{zap}": 5061, b"": 0}
    got = {case_key(c): c["slot"] for c in cases}
    for k, v in spec.items():
        print("  crosscheck %-24r spec %5d server %5d %s" % (k, v, got[k], "OK" if got[k] == v else "MISMATCH"))


if __name__ == "__main__":
    main()
