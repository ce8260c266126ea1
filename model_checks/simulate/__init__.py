"""The one Hypothesis state machine over any design: random walks of a design's actions,
every property checked after each step; over the cells of the LRU design's expected matrix
and the spec mutants, or another design's instance (`python -m model_checks simulate
[--design NAME]`; the top-level `replay FILE`, `model_checks.replay_command`, re-runs a
counterexample file it writes).

- `machine`: the state machine over the `Design` interface (rules are the design's actions,
  invariants its properties), each design's rules declared (`DesignRules`; `GenericRules`
  from the interface alone);
- `lru_rules`: the LRU design's rules (one per action type, requests drawn whole, its trace
  properties and fair tail) and `rules_for`, the table of every design's;
- `run`: the searches over a design's expected matrix, per cell (one for every must-hold
  property at once, one per must-break property, so that each shrinks to a minimal
  counterexample of that property alone) and per mutant, each counterexample written as a
  trace and replayed on the spec;
- `matrix_design`: what `run` reads of a design's expected matrix (`MatrixDesign`: its cells,
  a cell's configuration, its trace file, explicit witnesses and mutants); `lru_matrix`: the
  LRU design's, and `matrix_for`, the table of every design's;
- `designs`: another design's searches (`simulate --design NAME`), each break a replayable
  counterexample `judgement.Judgement`;
- `witnesses`: the LRU design's hand-written traces a must-break search falls back on where
  the budget is too small for the search (records say so);
- `profiles`: the search budgets, importable without Hypothesis; `hypothesis_private`: every
  use of Hypothesis's private API, in one module;
- `command`: the `simulate` command (arguments parsed before Hypothesis is imported).
"""
