"""The LRU design's judging of a searched graph, its declaration behind `judging.Judging`
(`declaration.LRU_JUDGING`, the LRU design's entry in `judging.judging_for`).

- `judge`: every property of the registry and every lemma judged on one graph: the state
  properties from what the search checked as it numbered states (`state_checks`), L1-L3 by
  their monitors (`monitors`) in product with the graph (`product`), L4 by stuck states and
  fair lassos (`liveness`), on the keys with request slots renumbered first ruling its fair
  cycles out where that is sound (`slot_fairness`); each counterexample replayed on the spec.
- `early_stop`: which properties can stop a search at the end of the level where they broke.
- `monotone`: the lattice's monotonicity lemma checked on one run.
- `reduction`: partial-order reduction (stubborn sets over the spec's actions) and judging
  with the reduced graph.

Per design by nature, as `search_core`'s reductions are: every module here reads the LRU
design's spec (its actions, properties and lemmas); generic code reaches them only through
`judging.judging_for`.
"""
