#!/usr/bin/env python3
"""nginx `hash $http_x_key consistent` capture.

  capture.py conf WORKDIR      write WORKDIR/nginx.conf (+ topologies.json)
  capture.py run  WORKDIR ...  send every key through each front server, write vector files

Backends are one nginx server block listening on many addresses, answering "$server_addr:$server_port".
Fronts (one listen port per topology) proxy to an upstream with `hash $http_x_key consistent;` and
echo $upstream_addr and $http_x_key back in response headers, so the capture checks both which
peer was chosen and exactly which bytes nginx hashed.
"""
import bisect
import os
import socket
import subprocess
import sys
import zlib

FRONT_BASE = 27090


def topologies():
    lo = "127.0.0.1"
    t = []
    t.append(("nginx-3", "3 servers 127.0.0.1:27081-27083, weight 1",
              [("%s:%d" % (lo, p), 1) for p in (27081, 27082, 27083)]))
    t.append(("nginx-4", "scale-out of nginx-3: 127.0.0.1:27081-27084, weight 1",
              [("%s:%d" % (lo, p), 1) for p in (27081, 27082, 27083, 27084)]))
    t.append(("nginx-5-weighted", "5 servers 127.0.0.1:27081-27085 with weight=1..5",
              [("%s:%d" % (lo, p), w) for w, p in enumerate((27081, 27082, 27083, 27084, 27085), 1)]))
    t.append(("nginx-noport", "mix of host:port tokens and a token without a port (`server 127.0.0.2;` = port 80; nginx hashes \"127.0.0.2\\0\" with an empty port)",
              [("127.0.0.1:27081", 1), ("127.0.0.2", 1), ("127.0.0.1:27083", 1)]))
    t.append(("nginx-hostname", "a hostname token (`server localhost:27086;`, resolves to 127.0.0.1 only here) next to IP tokens; the token text is hashed, not the address",
              [("localhost:27086", 1), ("127.0.0.1:27082", 1), ("127.0.0.1:27083", 2)]))
    t.append(("nginx-60", "60 servers 127.0.0.1:27100-27159, weight 1",
              [("%s:%d" % (lo, p), 1) for p in range(27100, 27160)]))
    return t


def token_addr(tok):
    host, _, port = tok.rpartition(":")
    if not host or not port.isdigit():
        host, port = tok, "80"
    if host == "localhost":
        host = "127.0.0.1"
    return "%s:%s" % (host, port)


def conf(work):
    topo = topologies()
    backs = set()
    for _, _, servers in topo:
        for tok, _ in servers:
            backs.add(token_addr(tok))
    L = []
    L.append("daemon off;")
    L.append("worker_processes 1;")
    L.append("pid %s/nginx.pid;" % work)
    L.append("error_log %s/error.log info;" % work)
    L.append("events { worker_connections 512; }")
    L.append("http {")
    L.append("  access_log %s/access.log;" % work)
    for d in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
        L.append("  %s_temp_path %s/tmp_%s;" % (d, work, d))
    L.append("  server {")
    for a in sorted(backs):
        L.append("    listen %s;" % a)
    L.append('    location / { default_type text/plain; return 200 "$server_addr:$server_port"; }')
    L.append("  }")
    for i, (name, _, servers) in enumerate(topo):
        up = name.replace("-", "_")
        L.append("  upstream %s {" % up)
        L.append("    hash $http_x_key consistent;")
        for tok, w in servers:
            L.append("    server %s%s;" % (tok, "" if w == 1 else " weight=%d" % w))
        L.append("  }")
        L.append("  server {")
        L.append("    listen 127.0.0.1:%d;" % (FRONT_BASE + i))
        L.append("    location / {")
        L.append("      proxy_pass http://%s;" % up)
        L.append("      add_header X-Upstream-Addr $upstream_addr always;")
        L.append("      add_header X-Seen-Key $http_x_key always;")
        L.append("    }")
        L.append("  }")
    L.append("}")
    with open(os.path.join(work, "nginx.conf"), "w") as f:
        f.write("\n".join(L) + "\n")
    print("\n".join(sorted(backs, key=lambda a: (a.split(":")[0], int(a.split(":")[1])))))


def http_get(port, key):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    req = b"GET / HTTP/1.0\r\nHost: keyroute\r\n"
    if key is not None:
        req += b"X-Key: " + key + b"\r\n"
    s.sendall(req + b"\r\n")
    data = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    s.close()
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    status = int(lines[0].split()[1])
    hdr = {}
    for ln in lines[1:]:
        k, _, v = ln.partition(b":")
        hdr[k.strip().lower().decode()] = v.strip()
    return status, hdr, body


# ---- independent model of upstream test values (PEERS.md#nginx), used only as a cross-check ----
def model_ring(servers):
    pts = []
    for tok, w in servers:
        if tok.lower().startswith("unix:"):
            host, port = tok[5:], ""
        else:
            i = len(tok)
            while i > 0 and tok[i - 1].isdigit():
                i -= 1
            if i > 0 and tok[i - 1] == ":" and i < len(tok):
                host, port = tok[:i - 1], tok[i:]
            else:
                host, port = tok, ""
        base = zlib.crc32(host.encode() + b"\0" + port.encode())
        prev = 0
        for _ in range(160 * w):
            prev = zlib.crc32(prev.to_bytes(4, "little"), base)
            pts.append((prev, tok))
    pts.sort(key=lambda p: p[0])  # stable: earliest server first on ties
    out = []
    for p in pts:
        if not out or out[-1][0] != p[0]:
            out.append(p)
    return out


def model_lookup(ring, key):
    h = zlib.crc32(key)
    i = bisect.bisect_left([p[0] for p in ring], h)
    return ring[i % len(ring)][1]


def run(work, keys_path, vec_dir):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # conformance/peers/vecio.py
    from vecio import dpkg_version, key_field, load_keys, write_vector
    ver = subprocess.run(["nginx", "-v"], capture_output=True, text=True).stderr.strip()
    version = "%s (Debian nginx %s, nginx-light %s; `nginx -v`: %s)" % (
        ver.split("/")[-1], dpkg_version("nginx"), dpkg_version("nginx-light"), ver)
    keys = load_keys(keys_path)
    keys = [(b, t) for b, t in keys if b != b""]
    for i, (name, desc, servers) in enumerate(topologies()):
        port = FRONT_BASE + i
        addr2tok = {token_addr(tok): tok for tok, _ in servers}
        cases, mism = [], []
        ring = model_ring(servers)
        for b, tags in keys:
            st, hdr, body = http_get(port, b)
            assert st == 200, (name, b, st)
            assert hdr["x-seen-key"] == b, (name, b, hdr.get("x-seen-key"))
            got = body.decode()
            assert hdr["x-upstream-addr"].decode() == got, (hdr, got)
            node = addr2tok[got]
            if model_lookup(ring, b) != node:
                mism.append(b)
            c = {"id": tags}
            c.update(key_field(b))
            c["node"] = node
            cases.append(c)
        doc = {
            "id": name,
            "description": "nginx upstream `hash $http_x_key consistent;`: %s. Key sent as the X-Key request header; nginx echoed the header bytes back unchanged for every case. The empty key is not a case (nginx sends it to round-robin)." % desc,
            "provenance": {"kind": "peer", "peer": "nginx", "version": version,
                           "captured_by": "conformance/peers/nginx/capture.sh"},
            "spec": {"algorithm": "nginx",
                     "nodes": [{"id": tok, "weight": w} for tok, w in servers]},
            "cases": cases,
        }
        out = os.path.join(vec_dir, name + ".json")
        write_vector(out, doc)
        print("%s: %d cases, %d points in model, model mismatches %d %r" % (out, len(cases), len(ring), len(mism), mism[:3]))
    # Empty key: round-robin, not hashing. Show it.
    seq = [http_get(FRONT_BASE, b"")[2].decode() for _ in range(6)]
    seq2 = [http_get(FRONT_BASE, None)[2].decode() for _ in range(6)]
    print("empty X-Key on nginx-3 ->", seq)
    print("absent X-Key on nginx-3 ->", seq2)
    # upstream test values (PEERS.md#nginx) vectors, on the model (their ports 1808x are outside the allowed range)
    for servers, exp in [
        ([("127.0.0.1:18081", 1), ("127.0.0.1:18082", 1), ("127.0.0.1:18083", 1)],
         {b"a": "127.0.0.1:18082", b"b": "127.0.0.1:18083", b"foo": "127.0.0.1:18081", b"user42": "127.0.0.1:18083"}),
        ([("127.0.0.1:18081", 2), ("127.0.0.2:18082", 1), ("127.0.0.1:18083", 3)],
         {b"a": "127.0.0.1:18083", b"b": "127.0.0.1:18083", b"foo": "127.0.0.2:18082", b"user42": "127.0.0.1:18083"}),
        ([("127.0.0.1", 1), ("127.0.0.1:18082", 1)],
         {b"a": "127.0.0.1:18082", b"b": "127.0.0.1", b"foo": "127.0.0.1", b"user42": "127.0.0.1:18082"}),
    ]:
        r = model_ring(servers)
        res = {k: model_lookup(r, k) == v for k, v in exp.items()}
        print("upstream test values (PEERS.md#nginx) vectors on the model (%d points):" % len(r), res)


if __name__ == "__main__":
    if sys.argv[1] == "conf":
        conf(sys.argv[2])
    else:
        run(sys.argv[2], sys.argv[3], sys.argv[4])
