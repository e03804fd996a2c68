"""The real RocksDB databases of tests/test_advise.py: validation/advise_dbs.py (the advise sweep
builds the same ones)."""

from validation.advise_dbs import BLOCK_CACHE_BYTES, BUFFER_BYTES, ROUND, VALUE_BYTES, Built, build

__all__ = ["BLOCK_CACHE_BYTES", "BUFFER_BYTES", "ROUND", "VALUE_BYTES", "Built", "build"]
