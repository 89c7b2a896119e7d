"""Which keys are hot, in bounded memory: ``HotKeys``."""

from __future__ import annotations

from typing import Optional

from . import _native
from ._errors import InvalidParameterError
from ._router import Key


class HotKeys(_native.HotKeys):
    """A heavy-hitter detector of fixed size, with decay, safe to share between threads.

    The usual remedy for hot keys counts every key in a local map and calls a key hot past a
    threshold (say 1,000 hits in 10 s); that map grows with the number of distinct keys and
    loses counts to eviction. ``HotKeys`` counts keys in a sketch of ``width`` counters a row
    (an estimate is never below the true count) and keeps the ``capacity`` most counted keys as
    candidates for ``top``. ``decay()`` halves every count: call it once a window (every 10 s,
    say) and counts become recent traffic. With the defaults (about 190 KB) it finds at least
    95 of the 100 hottest keys of Zipf traffic over a million keys (``BENCHMARKS.md``).

    >>> hot = HotKeys()
    >>> for i in range(10_000):
    ...     _ = hot.observe("popular" if i % 3 == 0 else f"user:{i}")
    >>> hot.top(1), hot.is_hot("popular", share=0.3), hot.is_hot("user:1", count=2)
    ([(b'popular', 3334)], True, False)
    """

    __slots__ = ()

    def __new__(
        cls,
        width: int = _native.HOT_KEYS_DEFAULT_WIDTH,
        capacity: int = _native.HOT_KEYS_DEFAULT_CAPACITY,
        shards: int = _native.HOT_KEYS_DEFAULT_SHARDS,
    ) -> HotKeys:
        return super().__new__(cls, width, capacity, shards)

    def is_hot(self, key: Key, *, count: Optional[int] = None, share: Optional[float] = None) -> bool:
        """Whether ``key`` was seen at least ``count`` times, or makes at least ``share`` of
        the traffic (decayed); give exactly one of them."""
        if count is not None and share is None:
            return self._is_hot(key, count)
        if share is not None and count is None:
            return self._is_hot_share(key, share)
        raise InvalidParameterError("give exactly one of count= and share=")
