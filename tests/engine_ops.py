"""Random operation sequences for the engine's property tests, and their replay against a dict."""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import strategies as st

from native_engine import Engine

KEYS = st.integers(0, 60) | st.sampled_from([0, 2**64 - 1, 2**63])
OPS = st.lists(
    st.one_of(
        st.tuples(st.just("put"), KEYS, st.integers(0, 255)),
        st.tuples(st.just("put"), KEYS, st.integers(0, 255)),
        st.tuples(st.just("delete"), KEYS),
        st.tuples(st.just("get"), KEYS),
        st.tuples(st.just("scan"), KEYS, KEYS),
        st.tuples(st.just("flush")),
        st.tuples(st.just("reopen")),
    ),
    max_size=250,
)


def value(vb: int, k: int, tag: int) -> bytes:
    return bytes([tag]) + (k % 2**56).to_bytes(8, "little")[: vb - 1].ljust(vb - 1, b"\x01")


def apply_ops(e: Engine, ops: list, model: dict[int, bytes], vb: int,
              reopen: Callable[[], Engine]) -> Engine:
    """Apply ``ops`` to the engine and to ``model``, checking every read against the model;
    returns the engine (a new one after each reopen)."""
    for op in ops:
        if op[0] == "put":
            v = value(vb, op[1], op[2])
            e.put(op[1], v)
            model[op[1]] = v
        elif op[0] == "delete":
            e.delete(op[1])
            model.pop(op[1], None)
        elif op[0] == "get":
            assert e.get(op[1]) == model.get(op[1])
        elif op[0] == "scan":
            lo, hi = op[1], op[2]
            want = sorted((k, v) for k, v in model.items() if lo <= k <= hi)
            assert list(e.scan(lo, hi)) == want
        elif op[0] == "flush":
            e.flush()
        else:
            e.close()
            e = reopen()
    return e
