"""The mathematics of the Wacky continuum: structure, filters, memory and costs (pure functions)."""
