"""``keyroute.uhashring.monkey.patch_memcache`` against uhashring's own: python-memcached's
``Client`` patched by each (in a child process apiece, since the patch changes the class for the
whole process) picks the same server for every key, with weights, two servers on one address,
servers that do not connect, and ``(hash, key)`` tuples. No server is needed: each server's
``connect`` is replaced by one that answers from a list of the addresses that are down."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Dict, List, Optional

import pytest

CHILD = r'''
import json, sys
import memcache
if sys.argv[1] == "uhashring":
    from uhashring import monkey, HashRing
else:
    from keyroute.uhashring import monkey, HashRing
monkey.patch_memcache()
if sys.argv[1] == "keyroute":
    monkey.patch_memcache()  # a no-op the second time (uhashring's own patch recurses then)
down = set(filter(None, sys.argv[2].split(",")))
memcache._Host.connect = lambda self: 0 if self.ip in down else 1
client = memcache.Client([("10.0.0.1:11211", 1), ("10.0.0.2:11211", 2), "10.0.0.3:11212",
                          ("10.0.0.4:11211", 3), "10.0.0.1:11212"])
assert isinstance(client.uhashring, HashRing)
picks = {}
for key in [f"user:{i}" for i in range(3000)] + ["", "é", "a b"] + [(7, "user:1"), (123456, "x")]:
    server, _ = client._get_server(key)
    picks[repr(key)] = None if server is None else f"{server.ip}:{server.port}"
print(json.dumps(picks))
'''


def picks(implementation: str, down: List[str]) -> Dict[str, Optional[str]]:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, implementation, ",".join(down)], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    result: Dict[str, Optional[str]] = json.loads(out.stdout)
    return result


@pytest.mark.parametrize("down", [[], ["10.0.0.2"], ["10.0.0.1", "10.0.0.4"], ["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"]])
def test_the_patched_client_picks_what_uhashrings_patch_picks(down: List[str]) -> None:
    ours, theirs = picks("keyroute", down), picks("uhashring", down)
    assert ours == theirs
    # Keys routed by the ring (a tuple takes python-memcached's own selection).
    chosen = {server for key, server in ours.items() if not key.startswith("(")}
    if len(down) == 4:
        assert chosen == {None}
        return
    # Two servers share 10.0.0.1: one node, the later server's (port 11212).
    assert "10.0.0.1:11211" not in chosen
    assert None not in chosen
    assert not any(server.split(":")[0] in down for server in chosen if server)
    assert len(chosen) == 4 - len(down)
