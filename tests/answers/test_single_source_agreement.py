"""For single drift sources, every L1-L3 answer agrees with the explicit-state search at four
requests of two items (the committed single-source lattice run, `docs/results/
lattice-single-source-outcomes.json.gz`, which the nightly job reruns): where the search broke a
property the answer breaks it too, and where the answer holds for every instance the search
found no break. A disagreement is a defect of a proof or of a replay."""

from __future__ import annotations

from pathlib import Path

from model_checks.answers import Reach, load
from model_checks.kernel import result_files

OUTCOMES = Path(__file__).resolve().parents[2] / "docs" / "results" / \
    "lattice-single-source-outcomes.json.gz"
LIVENESS = ("L1", "L2", "L3")


def _single_source_outcomes() -> list[dict[str, object]]:
    data = result_files.read(OUTCOMES)
    ladder = data["ladder"]
    assert max(r["max_requests"] for r in ladder) == 4 and ladder[-1]["max_items"] == 2
    return [o for o in data["outcomes"] if len(o["environment"]) == 1]


def test_the_search_at_four_requests_agrees_with_every_answer() -> None:
    store, compared, broken = load(), 0, 0
    for outcome in _single_source_outcomes():
        variant, env = str(outcome["variant"]), tuple(outcome["environment"])  # type: ignore[arg-type]
        for prop in LIVENESS:
            verdict = outcome["verdicts"][prop]  # type: ignore[index]
            answer = store.answer(variant, env, prop)
            compared += 1
            if verdict == "breaks":
                broken += 1
                assert answer.breaks, (variant, env, prop, answer.words())
            if answer.reach is Reach.EVERY_INSTANCE:
                assert verdict != "breaks", (variant, env, prop)
    assert compared >= 4 * 11 * len(LIVENESS) and broken > 0
