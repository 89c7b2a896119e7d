"""uhashring 2.x's ``monkey.patch_memcache``, routing through keyroute: python-memcached's
``memcache.Client`` picks each key's server with a :class:`keyroute.uhashring.HashRing`, the
server uhashring's own patch picks, so a fleet that ran that patch keeps every route.

::

    from keyroute.uhashring import monkey   # instead of: from uhashring import monkey

    monkey.patch_memcache()
    import memcache
    client = memcache.Client(["10.0.0.1:11211", "10.0.0.2:11211"])
    client.uhashring                        # the client's keyroute.uhashring.HashRing

What the patch does, as uhashring's does:

- after ``Client.__init__``, the client holds ``client.uhashring``, uhashring's default ring of
  its servers (a later ``set_servers`` does not rebuild it, with either patch). Each server is named by its
  address without the port (``server.ip``), with its ``hostname``, ``port`` and ``weight``, and
  the server object as its ``instance``; two servers on one address are one node, the later
  one's configuration kept;
- ``_get_server(key)`` walks the ring from the key's point and answers the first server that
  connects, up to ``Client._SERVER_RETRIES`` walks, then ``(None, None)``. A ``(hash, key)``
  tuple keeps python-memcached's own bucket selection.

The patch changes ``memcache.Client`` for the whole process; patching twice is a no-op.
"""

from __future__ import annotations

import importlib
from typing import Any, Dict, Optional, Tuple

from . import HashRing

__all__ = ["patch_memcache"]

#: Set on ``memcache.Client`` once patched: the methods the patch wraps, as they were.
_ORIGINAL = "_keyroute_unpatched"


def patch_memcache() -> None:
    """Makes python-memcached's ``memcache.Client`` route keys through a keyroute
    ``HashRing`` of its servers, as uhashring's ``monkey.patch_memcache`` does (see the module)."""
    memcache: Any = importlib.import_module("memcache")
    client_class = memcache.Client
    if hasattr(client_class, _ORIGINAL):
        return
    original_init = client_class.__init__
    original_get_server = client_class._get_server

    def __init__(self: Any, servers: Any, *args: Any, **kwargs: Any) -> None:
        original_init(self, servers, *args, **kwargs)
        nodes: Dict[Any, Dict[str, Any]] = {}
        for server in self.servers:
            nodes[server.ip] = {
                "hostname": server.ip,
                "instance": server,
                "port": server.port,
                "weight": server.weight,
            }
        self.uhashring = HashRing(nodes)

    def _get_server(self: Any, key: Any) -> Tuple[Optional[Any], Optional[Any]]:
        if isinstance(key, tuple):
            return original_get_server(self, key)  # type: ignore[no-any-return]
        for _ in range(self._SERVER_RETRIES):
            for conf in self.uhashring.range(key):
                if conf["instance"].connect():
                    return conf["instance"], key
        return None, None

    setattr(client_class, _ORIGINAL, (original_init, original_get_server))
    client_class.__init__ = __init__
    client_class._get_server = _get_server
