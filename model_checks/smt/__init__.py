"""Z3 side of the model checks, grouped by pipeline stage:

- `encode/`: the spec's transition system as formulas (symbolic state, one relation per
  action, the properties as predicates); hands `initial`, `transition` and `BAD` on.
- `search/`: bounded model checking with iterative deepening over those formulas; hands a
  model (a counterexample) to `decode/`, or a bound reached.
- `prove/`: the all-depth methods (certificates, induction, Spacer, the parametric proof);
  hands proved properties to the runner, which leaves only the rest to `search/`.
- `decode/`: a model back into a spec trace, replayed on the spec and cross-checked step by
  step against the encoding.

At the top: the command (`command`, `python -m model_checks prove`), the cells it decides and
what it expects of each (`decided_cells`), the run over them (`runner`), the typed results and
their records (`results`), the table of what it judges (`judged`), and the solver budgets
every stage uses (`budget`, `limits`: rlimit units, never seconds).
"""
