"""The exhaustive explorer: every reachable state of a small instance of any design, over the
design's spec itself (`python -m model_checks explore`).

- the state graph: `graph` builds it breadth-first through the `Moves` of `moves` (the
  interface every design offers the search: `DesignMoves` over `spec.designs.base.Design`,
  the interned tables, the graph's writer, the state checks); `exploration` is one search of
  any design with each broken property's shortest witness, judged as the one result type of
  a search (`judgement.JudgedInstance`); `search_core` declares the LRU
  design's reductions, its package `lru_reductions/` reached only through that table, each
  argued sound in its module (`canonical`: processing renaming; `symmetry`: interchangeable
  identities), opt-in ended requests forgotten in the
  deduplication key (`forgetting`, checked against the search without it by
  `forgetting_agreement`), on top of it opt-in request slots renumbered (`slots`, checked
  the same way) and opt-in partial-order reduction (`lru_judging/reduction/`: stubborn sets);
  `fingerprint` names a state across processes; `defects` holds the errors that mean the
  explorer itself is wrong (interpreted, so the modules that raise them compile);
- judging: `judging` is the one interface a design's instance is judged through
  (`Judging`, its outcomes in `judgement`, and `judging_for`, the one table of them: any design's
  properties checked on every transition, `DesignJudging`); `lru_judging/` declares the LRU
  design's: `judge` decides every property and lemma on a complete graph (`monitors` and
  `product` for L1-L3, `liveness` for L4, `state_checks` as the search meets each state),
  `early_stop` stops a search at the end of the level where every asked property has broken
  (the monitors' product then run on the fly);
- the LRU design's matrix cells, its searches of its own declared per design for
  `lru_explore`: `instance` is the small instance per variant and environment, `cell_tasks`
  one task per cell, its graph judged completely and turned into verdict records,
  `agreement` the cross-check against Z3's and Hypothesis's records; `command` searches the
  cells `explore` asks for;
- one search per instance: `design_search` is one search of each instance asked for of any
  design (`explore --design NAME`, the LRU design's with `--rung`), judged through
  `judging_for`, summed up as one `InstanceSearch` read by one exit rule; `instance_command`
  prints and judges the one instance a user names (`explore --instance`) with the same
  summary and exit rule, the search the design's: a design's searches of its own
  (`design_explorer.DesignExplorer`: its cells, its named instances, its lattice) are
  declared in one table, `lru_explore.explorer_for` (the LRU design's: `named_instance` reads
  its keys into the builder's family, searched as one cell);
- the drift lattice (`explore --lattice`): `lattice` searches, per variant and property, the
  minimal environments that break it, over any design's `LatticeDesign` (the LRU design's,
  `lattice_lru.LRU_LATTICE`: how one environment climbs its instance family,
  `lattice_instance`, and what its command reads), with the profiles of `lattice_profiles`,
  every checker's replayed breaks (`evidence`), the monotonicity lemma checked on each
  witness (`lru_judging/monotone`), the environments decided for every instance
  (`every_instance`) and the report (`lattice_report`, over any design too);
  `lattice_command` is its command line;
- one search of any design over a Dask cluster, through the design's `Moves`: `distributed`
  (stateless workers) and `partitioned` with `partition` (partitions of the visited set held
  by the workers), sharing `distributed_common` and `wire`; `collector` pauses the garbage
  collector while states are allocated;
- the independent anchor: `murphi` generates a Murphi model of one configuration from the
  spec, `murphi_run` has Rumur check it and replays its counterexamples on the spec
  (`benchmarks/bench_explore.py --rumur` compares the two checkers).
"""
