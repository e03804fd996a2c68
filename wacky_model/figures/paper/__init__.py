"""Figures that reproduce the paper's analysis (Figures 1, 4, 5, 7, 8, 9-11 and App. D-F).

Used by the notebooks (and their tests); the CLI and the dashboard draw their own figures from
:mod:`wacky_model.figures.frontiers` and :mod:`wacky_model.figures.design`. One module per
subject; import from the module:

* ``common`` -- the paper's hardware (:func:`paper_system`, ``PAPER_SIZES``), shared layout, tables;
* ``tradeoffs`` -- Figures 1, 4 and 7: sweeps and their write-amplification trade-off curves;
* ``complexity`` -- Figure 8: the named designs' costs and each complexity cell checked;
* ``filters`` -- Figure 5 (per-level costs), filter allocations, sum of FPRs vs memory, the
  accuracy of Eq 26 and of the closed form (App. C, D);
* ``hash_tables`` -- App. F's hash tables for small levels and Figure 11's level overview;
* ``maps`` -- Figures 9 and 10 as maps of the design the search picks.

Each figure has a pure function that computes its data and a builder that draws it. Every curve
is the cost model's own output (:mod:`cost_models`): nothing here is fitted to the paper's
printed numbers. Sizes follow the paper: 128-byte entries, 4 KB blocks (B = 32) and an 8 MB
buffer, so N/F is the data size in bytes over 8 MB (32 GB is 4096 buffers, 1 TB is 131072).
"""
