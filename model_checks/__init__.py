"""The model checks of the executable spec (`spec/`) and of implementations of the paired
caches: every checker, the project's answers they establish, and what is built from them.
`python -m model_checks --help` lists the commands (`cli`); without a command the main job
runs (`jobs`).

The checkers, one package each (each with its command module):

- `scenarios` and `scenario_run`: the hand-written scenario suite, replayed on every variant;
- `simulate`: Hypothesis state machines over the expected matrix and the mutants;
- `smt`: the Z3 encoding: bounded model checking and the all-depth proofs;
- `explore`: the exhaustive explicit-state explorer of small instances, and the drift lattice;
- `designs`: the design-generic checkers over any design of `spec.designs` (the `design`
  command), and the shared-memory object store's lockstep (`conform --design shm`) and
  all-instance proofs;
- `conform`: lockstep conformance of an implementation (through an adapter) to the spec;
  `adapters` holds the adapters over implementations that are not ours (vLLM);
- `history`: histories of concurrent clients or a running server, explained by spec steps;
- `mutation`: the one registry of mutants (spec and reference, each set) and the spec
  mutants' definitions; `mutant_run`: the one runner, every mutant through every checker that
  must catch it (the `mutants` command and the kill matrix), with the reference mutants'
  classes.

Built on them: `answers` (the answer store: one typed answer per variant, environment and
property, shipped as package data), `docs` (the generated pages, `docs --check`), `doctor`
(a vLLM deployment's risks from its facts), `jobs` (the main and nightly jobs) and
`executor` (one executor for every sweep of independent jobs).

The modules at the top level:

- the expected matrix: `matrix` (the main cells, each with its reasoning), `pair_cells` (the
  pairs of drift sources, derived from the single-source rows and the reasoned interactions
  of `pair_reasons`, each shown by a hand-built trace of `pair_witnesses`) and `cell_sets`
  (the selections a sweep takes, `--cells`);
- the vocabulary every checker shares: the instance (`instance`), cells and environments
  (`cells`, `environment_arg`), verdict records (`verdict_records`), what each checker judges
  (`judged`, `checker_tables`), the tables keyed by action class (`action_tables`), the one
  trace format and its notation (`itf`, the spec's traces in it `trace_file`, the old
  formats read for one release `legacy_trace`, `render`), and
  the one plain-text table (`text_table`);
- what the checks establish beyond the matrix: the obligations of a safe implementation, each
  with the mutants that omit it (`requirements`), and L4 as a theorem about how many retries
  recovery needs (`retries`);
- the main job's summary (`summary`) and the cache of deterministic results that several
  processes compute alike (`file_cache`); a breadth-first search's shortest path, walked back
  along its parent links (`parent_links`); the one profile type every checker's `--profile`
  names (`profiles`);
- the real vLLM run behind docs/vllm.md (`vllm_snapshot`, which drives the command line) and
  what its page shares with it: the snapshot's file, its command, the reproducer (`vllm_run`);
- the command line (`cli`, its shared exit codes in `exits`, `conform_command`, where
  conform's and history's options meet, and `replay_command`, which re-runs any checker's
  trace file on the spec).
"""
