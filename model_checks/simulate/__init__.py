"""Hypothesis state machines over the spec: random walks of the spec's actions, every
property checked after each step, over the cells of the expected matrix and the spec mutants
(`python -m model_checks simulate`; the top-level `replay FILE`, `model_checks.replay_command`,
re-runs a counterexample file it writes).

- `machine`: the state machine of one cell (rules are the spec's actions, invariants its
  properties);
- `run`: the searches per cell (one for every must-hold property at once, one per must-break
  property, so that each shrinks to a minimal counterexample of that property alone) and per
  mutant, each counterexample written as a trace and replayed on the spec;
- `witnesses`: hand-written traces a must-break search falls back on where the budget is too
  small for the search (records say so);
- `profiles`: the search budgets, importable without Hypothesis; `hypothesis_private`: every
  use of Hypothesis's private API, in one module;
- `command`: the `simulate` command (arguments parsed before Hypothesis is imported).
"""
