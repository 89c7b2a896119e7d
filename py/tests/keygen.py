"""Random text keys for the live cross-checks against the peers: ASCII, BMP (surrogates
excluded) and astral text, each prefixed with its index so that keys are distinct."""

from __future__ import annotations

import random
from typing import List


def text_keys(n: int, seed: int, max_len: int) -> List[str]:
    """``n`` keys of 0 to ``max_len`` characters after the ``i:`` prefix, from ``seed``."""
    rng = random.Random(seed)
    keys = []
    for i in range(n):
        kind = rng.random()
        length = rng.randint(0, max_len)
        if kind < 0.6:
            chars = [chr(rng.randint(0x20, 0x7E)) for _ in range(length)]
        elif kind < 0.85:
            chars = [chr(rng.choice([rng.randint(0xA0, 0xD7FF), rng.randint(0xE000, 0xFFFD)])) for _ in range(length)]
        else:
            chars = [chr(rng.randint(0x10000, 0x10FFFF)) for _ in range(length)]
        keys.append(f"{i}:" + "".join(chars))
    return keys
