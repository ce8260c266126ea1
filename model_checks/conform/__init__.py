"""Lockstep conformance: an implementation of the paired caches, reached through an adapter,
driven action for action beside the spec, its observations compared and the safety
properties judged on them (`python -m model_checks conform --adapter MODULE:FACTORY`).

- the interface: `adapter` (the adapter an implementation provides, its preflight and
  loading; the tensor types in `payload`), `codec` (spec contents as real media and tensors,
  and back), and the adapters of the reference implementation (`reference_adapter`,
  `reference_items`; `async_adapter` for its asyncio front end); `remote` runs an adapter's
  engine side in a child process behind a socket, imported only through `two_processes`
  (pyzmq and msgspec, the processes extra, only when two processes are asked for);
- a run: `run` (the one run loop: a design's cases per variant, into one `Outcome`, and
  the one final line), within a profile's budget (`profiles`), over `corpus`, `machine`
  (the one Hypothesis lockstep machine: the spec's Hypothesis machine driving a binding's
  run) and `witnesses` (runs from the committed witnesses); `design_lockstep` is the one
  lockstep driver over the `Design` interface (the one step, with the optional capabilities
  a binding declares, the one end of a run, the one loop that follows a script and the one
  scripted run with its `Outcome`; the other designs' bindings in
  `model_checks.designs`); `lru_lockstep/` is the LRU design's binding, which declares
  those capabilities: its adapter calls per action class, the views compared, S1-S3 and
  L1-L4 restated on the implementation's observations, its choices, its run as a `Session`
  of the one scripted run, its observations in the notation, and the shrinking of a
  disagreement; its cases, its run's records, its report and inherited weaknesses, and its
  runs as the one conform command runs them (`lru_lockstep.cases`, `run`, `report`,
  `weakness`, `command`);
- what a run says: `unchecked` (what the
  run could not exercise), `traces` (each failure written so that it replays), `replay`
  (`--replay TRACE`), `emit` (`--emit-pytest`: a trace as a pytest file, for every design;
  the LRU design's in its adapter's calls, `lru_lockstep.calls`),
  `notation` (every report within the output's width);
  the reference's mutants, and the kill matrix that runs them, are in
  `model_checks.mutant_run` (the sets only tests run are in tests/conform/);
- the command line: the one conform command, `model_checks.conform_command`, runs the
  design's entry in the one table, `model_checks.designs.lockstep_bindings` (exit codes in
  `exits`), and `api_page` (the adapter interface as
  docs/conformance.md lists it). The history checks (`model_checks.history`) use the adapter
  interface and codec; nothing here imports them.
"""
