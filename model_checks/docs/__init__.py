"""Generated documentation: pages built from the registry and from real, deterministic runs.

`python -m model_checks docs` writes them (`command`, `generate`); `python -m model_checks docs
--check` fails when the committed pages differ from what the code generates now, or when a
hand-written page quotes a verdict the answer store (`model_checks.answers`) does not hold
(`quotes`); CI runs it. The pages are rendered from committed results read once (`bundle`:
the results snapshot of `docs/results/`, `snapshot`; the lattice's runs; the answer store),
never from a run of a command: the real vLLM run that writes vllm.md's snapshot is
`model_checks.vllm_snapshot`, run by hand where vLLM is installed, and the page reads only
what it shares with that run (`model_checks.adapters.vllm_run`).

The pages, by the module that renders them:

- `pages`: invariants.md, drift.md, scenarios.md, notation.md and a page per scenario that
  breaks a property; `answer_tables`: invariants.md's per-property tables of the project's
  answers;
- `results`: verdicts.md and a page per variant (every checker on every cell of the expected
  matrix), and a page per counterexample trace of the results snapshot;
- `lattice_page`: drift-combinations.md and the region of questions.md that quotes the
  lattice's answer, with its sections: the rungs the liveness answers reached
  (`lattice_reach`), the long runs (`lattice_nightly`), "For every instance"
  (`every_instance_page`) and each design other than the key-replicated LRU, from its
  committed answers (`design_section`);
- `requirements_page`: requirements.md, from the obligations registry (`requirements`: the
  obligations of a safe implementation, each with the mutants that omit it), with the evidence
  that a checker catches each obligation's mutants; `vllm_page`: vllm.md, from the committed
  vLLM snapshot, with its section "On a real server" from the committed server runs
  (`server_section`);
- shared by them: `markdown` (the generated pages' header and deterministic tables) and
  `mermaid` (a trace as a sequence diagram).
"""
