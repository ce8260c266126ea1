"""The checker kernel: the vocabulary every checker, the conformance harness and every
consumer of their verdicts share. It imports no checker, no product and no command line;
the rest of `model_checks` is built over it.

- the LRU design's expected matrix, its per-design data (a checker reads it through a
  design's declaration, as `simulate.lru_matrix`): `matrix` (the main cells, each with its
  reasoning), `pair_cells` (the pairs of drift sources, derived from the single-source rows
  and the reasoned interactions of `pair_reasons`, each shown by a hand-built trace of
  `pair_witnesses`), `cell_sets` (the selections a sweep takes, `--cells`) and `instance`
  (the matrix's family of instances, the checkers' entry to the LRU design's builder);
- cells: what a cell of any design's matrix is and how it is named and judged (`cells`),
  environments (`environment_arg`), the options with one
  meaning on every command (`options`: `--jobs`, `--processes`), what each
  checker judges (`judged`) and the one profile type every checker's `--profile` names (`profiles`);
- verdicts and traces: verdict records (`verdict_records`), the one trace format and its
  notation (`itf`, the spec's traces in it `trace_file`, the old formats read for one release
  `legacy_trace`, the step table `render` over a design's notation, the LRU design's
  `lru_notation`), the one plain-text table (`text_table`), the command line's
  shared exit codes (`exits`), the repository files a command cites, as paths that open
  from a checkout or an installed package (`shipped`), and the one reader and writer of the
  results kept under docs/results/, plain or gzip-compressed (`result_files`);
- L4 as a theorem about how many retries recovery needs (`retries`);
- whether the optional compiled build of the spec is fresh for the sources, and what runs a
  process on it (`compiled_build`).
"""
