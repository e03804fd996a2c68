"""The least-recently-used cache the tests simulate to check the model's Che approximation
(S6, docs/MODEL.md) against: one home for its rule."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable


def touch(cache: OrderedDict, key: Hashable, capacity: int) -> bool:
    """A request for ``key``: a hit moves it to the most recent end; a miss inserts it there and
    evicts the least recent beyond ``capacity``. Whether it hit."""
    if key in cache:
        cache.move_to_end(key)
        return True
    cache[key] = None
    if len(cache) > capacity:
        cache.popitem(last=False)
    return False
