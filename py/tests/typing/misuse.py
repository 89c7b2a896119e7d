"""Wrong uses the stubs must catch: mypy reports an error on each line marked `# E`."""

import keyroute

ring = keyroute.Ring(["a"])
ring.route(42)  # E
ring.replicas("k")  # E
ring.route_many("k", "x")  # E
keyroute.Jump(3, key_hash="md5")  # E
keyroute.Libmemcached(["h"], distribution="modula")  # E
ring.fingerprint = 3  # E
number: int = ring.route("k")  # E
keyroute.Transition(ring, ring, "half")  # E
keyroute.Ring(["a"], limits={"max_point": 10})  # E
keyroute.Ring(["a"], limits={"max_points": "10"})  # E
