"""Every committed result the generated pages are rendered from, read once.

`Bundle.load(root)` reads each file under `docs/results/` exactly once (the snapshot's records
and traces, the drift lattice, each lattice run's kept outcomes, the long runs, vLLM's
results, the kill matrix and the scenario suite's verdicts) into one value that every page
generator is handed; the answer store (`model_checks.answers`) is built from it once. No
page reads a results file of its own.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from model_checks.answers.build import LatticeRun, build
from model_checks.answers.store import AnswerStore
from model_checks.docs import design_section
from model_checks.docs import lattice_page as lat
from model_checks.docs import snapshot as snap
from model_checks.docs.lattice_nightly import LONG_RUNS, LongRun, load_kept, load_long_run
from model_checks.docs.lattice_reach import OUTCOMES, load_outcomes
from model_checks.docs.vllm_page import load as load_vllm

KILL_MATRIX = "results/kill-matrix.json"
"""The conformance mutants' kill matrix, as `docs` last ran it (`killmatrix.results_json`)."""
SCENARIOS = "results/scenarios.json"
"""The scenario suite's verdicts, as `docs` last ran it (`scenario_run.verdicts_json`)."""


def _optional(path: Path) -> Any:
    """A results file's JSON, None where it is absent; `SnapshotError` if unreadable."""
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as error:
        raise snap.SnapshotError(f"{path}: unreadable ({error})") from None


@dataclass(frozen=True)
class LongRunData:
    """A long run as committed: its entries and kept outcomes (None: not committed)."""

    run: LongRun
    entries: list[dict[str, Any]] | None
    outcomes: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class Bundle:
    """The results under `root` (the docs folder), each file read once."""

    root: Path
    snapshot: snap.Snapshot
    lattice: list[dict[str, Any]]
    outcomes: list[dict[str, Any]]
    long_runs: tuple[LongRunData, ...]
    vllm: dict[str, Any]
    kill_matrix: Any = None
    """The committed kill matrix (`KILL_MATRIX`), None where absent."""
    scenarios: Any = None
    """The committed scenario verdicts (`SCENARIOS`), None where absent."""
    designs: tuple[dict[str, Any], ...] = ()
    """The other designs' committed answers (`design_section.load`)."""

    @classmethod
    def load(cls, root: Path) -> Bundle:
        long_runs = []
        for run in LONG_RUNS:
            entries = load_long_run(root, run)
            long_runs.append(LongRunData(run, entries,
                                         load_kept(root, run) if entries is not None else []))
        return cls(root, snap.load(root), lat.load(root), load_outcomes(root),
                   tuple(long_runs), load_vllm(root), _optional(root / KILL_MATRIX),
                   _optional(root / SCENARIOS), tuple(design_section.load(root)))

    @cached_property
    def answers(self) -> AnswerStore:
        """The answer store of every result here (built once)."""
        runs = [LatticeRun(f"docs/{lat.LATTICE}", self.lattice, self.outcomes)]
        runs += [LatticeRun(f"docs/{d.run.json}", d.entries, d.outcomes)
                 for d in self.long_runs if d.entries is not None]
        traces = {snap.key(r): f"docs/{snap.TRACES}/{Path(r.counterexample_path).name}"
                  for r in self.snapshot.records if r.counterexample_path is not None}
        sources = [run.name for run in runs] + [f"docs/{OUTCOMES}", f"docs/{snap.RECORDS}"]
        return build(runs, self.snapshot.records, traces, sources)
