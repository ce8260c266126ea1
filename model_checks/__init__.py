"""The model checks of the executable spec (`spec/`) and of implementations of the paired
caches: a checker kernel, the checkers over it, the products built on their verdicts, and the
command line. `python -m model_checks --help` lists the commands (`cli`); without a command
the main job runs (`jobs`).

The kernel, `kernel`: the vocabulary every checker shares (the expected matrix, instances,
cells, verdict records, the one trace format, profiles, exit codes). It imports nothing else
of this package; everything below imports it.

The checkers, one package each (each with its command module):

- `scenarios`: the hand-written scenario suite, replayed on every variant;
- `simulate`: Hypothesis state machines over the expected matrix and the mutants;
- `smt`: the Z3 encoding: bounded model checking and the all-depth proofs;
- `explore`: the exhaustive explicit-state explorer of small instances, and the drift lattice;
- `designs`: the design-generic checkers over any design of `spec.designs` (`explore
  --design NAME`, `explore --lattice --design NAME`), and the shared-memory object store's
  lockstep (`conform --design shm`) and all-instance proofs.

The products built on the kernel and the checkers:

- conformance: `conform` (lockstep conformance of an implementation, through an adapter, to
  the spec), `adapters` (the adapters over implementations that are not ours, vLLM, and the
  real vLLM run's shared data), `history` (histories of concurrent clients or a running
  server, explained by spec steps) and `server` (witnesses replayed over HTTP on a real
  `vllm serve` of a tiny model, the `server` command);
- mutation: `mutation` (the one registry of mutants, spec and reference, each set, and the
  spec mutants' definitions) and `mutant_run` (the one runner: every mutant through every
  checker that must catch it, the `mutants` command and the kill matrix, with the reference
  mutants' classes);
- `answers` (the answer store: one typed answer per variant, environment and property,
  shipped as package data, and the main job's summary), `docs` (the generated pages and the
  obligations registry they render, `docs --check`) and `doctor` (a vLLM deployment's risks
  from its facts), which import no command-line module;
- `jobs` (the main and nightly jobs) and `executor` (one executor for every sweep of
  independent tasks).

The modules at the top level are the command line and what reads across the checkers: `cli`
(the command registry and parser), `conform_command` (the one conform command: every design's
options, and the runs the design's entry in `designs.lockstep_bindings` declares),
`explore_command` (the `explore` command's one parser and dispatch: a design's searches of
its own, found in one table, or the design-generic ones, `--design` choosing),
`replay_command` (any checker's trace file re-run on the spec), `vllm_snapshot` (the real
vLLM run behind docs/vllm.md) and `vllm_fix` (the patched copy's check), which drive the
command line.
"""
