"""Design-generic checkers: each reads only `spec.designs.base.Design`, so every design (the
key-replicated LRU, the shared-memory object store, one added by the recipe) is judged by
them with no edit here (`python -m model_checks explore --design NAME`).

- the checkers: `lattice` (every environment of the design's sources, with minimal breaking
  sets, each search the one explorer's, `model_checks.explore.exploration`);
- their results: `evidence` (per design, what settles its answers beyond the explored ladder:
  all-instance proofs and explicit witnesses), `results` (a lattice as JSON, the committed
  evidence the docs render, and its witnesses as files) and `witness_files` (one witness
  document per environment and property, which an implementation can replay), checked fresh
  by `witness_freshness` (each committed file is what the writer writes for its trace now);
  `command` is the `explore` command's searches for them (`explore --design NAME`, `explore
  --lattice --design NAME`, and `explore --lattice --check`, which re-derives the committed
  answers and checks the committed witness files fresh);
- the encoder design and the composed path (`spec.designs.paths`): their all-instance
  answers (`encoder_proofs`: one content per identity without D7, and the processor cache's
  own answers for the path's first stage) and the path's explicit witnesses
  (`path_witnesses`: the D7 silent reuse, the D2+D7 engine death);
- the shared-memory design: S1 and S2 for every instance
  (`shm_proofs`: an abstract model of the ring over unbounded integers, its certificates
  checked with Z3), and S3, H1 and U1 for every instance under the environments each holds
  in (`shm_restricted`);
- an implementation in lockstep with a design's spec (`conform --design NAME`): the one
  driver (`model_checks.conform.design_lockstep`: the spec and the implementation stepped
  together, their views compared, the first disagreement reported; a replay of given
  actions, seeded random walks), each design's part of it an entry in the one table
  `lockstep_bindings` (the LRU design's, runs of its own; the shared-memory design's a
  binding: `shm_views`, what is compared after each step and the side an adapter provides,
  and `shm_lockstep`, how a side is driven), `conformance` (what an entry declares to the
  one conform command: the runs and the options they read, the others refused by one
  rule), `conform` (the one driver's runs, the replay of a witness document and their exit
  codes; `--emit-pytest` writes a trace as a pytest file, `model_checks.conform.emit`).
"""
