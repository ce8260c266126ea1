"""The model checks of the executable spec (`spec/`) and of implementations of the paired
caches: every checker, the project's answers they establish, and what is built from them.
`python -m model_checks --help` lists the commands (`cli`); without a command the main job
runs (`jobs`).

The checkers, one package each (each with its command module):

- `scenarios` and `scenario_run`: the hand-written scenario suite, replayed on every variant;
- `simulate`: Hypothesis state machines over the expected matrix and the mutants;
- `smt`: the Z3 encoding: bounded model checking and the all-depth proofs;
- `explore`: the exhaustive explicit-state explorer of small instances, and the drift lattice;
- `conform`: lockstep conformance of an implementation (through an adapter) to the spec;
  `adapters` holds the adapters over implementations that are not ours (vLLM);
- `history`: histories of concurrent clients or a running server, explained by spec steps;
- `mutant_run`: every mutant through every checker that must catch it.

Built on them: `answers` (the answer store: one typed answer per variant, environment and
property, shipped as package data), `docs` (the generated pages, `docs --check`), `doctor`
(a vLLM deployment's risks from its facts), `jobs` (the main and nightly jobs) and
`executor` (one executor for every sweep of independent jobs).

The modules at the top level are the vocabulary every checker shares: the expected matrix
(`matrix`, `pair_cells`, `cell_sets`), the instance (`instance`), cells and environments
(`cells`, `environment_arg`), verdict records (`records`), what each checker judges
(`judged`, `checker_tables`), trace files and their notation (`trace_file`, `render`, `itf`),
the spec mutants (`mutants`), the summary (`summary`), and the command line (`cli`, its
shared exit codes in `exits`, and `conform_command`, where conform's and history's options
meet).
"""
