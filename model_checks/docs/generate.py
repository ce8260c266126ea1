"""Write the generated pages, or check that the committed ones are fresh."""

from __future__ import annotations

from pathlib import Path

from model_checks.docs.pages import (
    counterexample_pages,
    drift_page,
    invariants_page,
    scenarios_page,
)
from model_checks.scenario_run import replay_all


def pages() -> dict[str, str]:
    """Relative path -> content of every generated page; deterministic."""
    verdicts = replay_all()
    return {
        "invariants.md": invariants_page(verdicts),
        "drift.md": drift_page(verdicts),
        "scenarios.md": scenarios_page(verdicts),
        **counterexample_pages(verdicts),
    }


def write(root: Path) -> list[Path]:
    written = []
    for name, text in pages().items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        written.append(path)
    return written


def stale(root: Path) -> list[str]:
    """Pages that are missing or differ from what the code generates now."""
    return [
        name for name, text in pages().items()
        if not (root / name).exists() or (root / name).read_text() != text
    ]
