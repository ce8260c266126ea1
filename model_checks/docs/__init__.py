"""Generated documentation: pages built from the registry and from real, deterministic runs.

`python -m model_checks docs` writes them (`command`, `generate`); `python -m model_checks docs
--check` fails when the committed pages differ from what the code generates now, or when a
hand-written page quotes a verdict the answer store (`model_checks.answers`) does not hold
(`quotes`); CI runs it. The pages are rendered from committed results read once (`bundle`:
the results snapshot of `docs/results/`, `snapshot`; the lattice's runs; the answer store),
never from a run of a command: `vllm_snapshot` is the real vLLM run that writes its snapshot,
run by hand where vLLM is installed.
"""
