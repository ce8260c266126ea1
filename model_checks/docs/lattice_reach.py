"""Which rungs the committed lattice's liveness answers (L1-L4) reached, per variant.

Read from the lattice's kept outcomes (`docs/results/lattice-outcomes.json.gz`, the run's
`--resume` file: one outcome per variant and explored environment, with per property the
verdict and the rung that settled it), never from a live run. Per variant and liveness
property the section counts the explored environments that held it up to each rung
(proved or vacuous on complete graphs up to there, and no higher), that broke it first at
each rung, and that the state limit left undecided at each rung. A property's "holds" here is
for the rung named, never for all instances.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from model_checks.docs.snapshot import SnapshotError
from model_checks.explore.lattice import BREAKS, HOLDS, UNDECIDED
from model_checks.kernel import result_files
from spec import Kind, registry

OUTCOMES = "results/lattice-outcomes.json.gz"


def liveness_ids() -> tuple[str, ...]:
    """The registry's liveness properties, in its order (read at call time)."""
    return tuple(p.id for p in registry() if p.kind is Kind.LIVENESS)

HELD_CUT = "held, next rung cut"
"""A holding answer whose next rung the state limit cut (the climb could go no higher)."""
_WORDS = {HOLDS: "held to rung {rung}", HELD_CUT: "held to rung {rung} (rung {above} cut)",
          BREAKS: "broke first at rung {rung}", UNDECIDED: "undecided (cut) at rung {rung}"}
_ORDER = tuple(_WORDS)


class OutcomesFileError(SnapshotError):
    """The kept lattice outcomes cannot be read; the message is one line saying why."""


def load_outcomes(root: Path) -> list[dict[str, Any]]:
    """The kept outcomes under `root` (the docs folder); an unreadable or malformed file is
    an `OutcomesFileError` naming the file."""
    path = result_files.stored(root / OUTCOMES)
    try:
        data = result_files.read(path)
        outcomes = data["outcomes"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise OutcomesFileError(f"{path}: unreadable lattice outcomes ({error})") from None
    if not isinstance(outcomes, list) or not all(isinstance(o, dict) for o in outcomes):
        raise OutcomesFileError(f"{path}: expected a list of outcome objects")
    return outcomes


def reach_counts(outcomes: list[dict[str, Any]], variant: str, prop: str
                 ) -> Counter[tuple[str, int]]:
    """(verdict, rung number) -> explored environments of `variant` with that answer for
    `prop` (a holding answer whose next rung the state limit cut counts as `HELD_CUT`). An
    outcome without the property is an `OutcomesFileError`."""
    counts: Counter[tuple[str, int]] = Counter()
    for outcome in outcomes:
        if outcome.get("variant") != variant:
            continue
        try:
            verdict, rung = outcome["verdicts"][prop], int(outcome["rung"][prop])
        except (KeyError, TypeError, ValueError) as error:
            raise OutcomesFileError(
                f"{OUTCOMES}: {variant} outcome under "
                f"{'+'.join(outcome.get('environment', [])) or 'no drift'} has no verdict "
                f"and rung for {prop} ({error})") from None
        if verdict == HOLDS and outcome.get("cut_at") == rung + 1:
            verdict = HELD_CUT
        counts[verdict, rung] += 1
    return counts


def reach_sentence(counts: Counter[tuple[str, int]]) -> str:
    """The counts in words: "held to rung 1 in 9 environment(s); broke first at rung 0 in
    5; ..."; "not explored" when empty."""
    def order(item: tuple[tuple[str, int], int]) -> tuple[int, int]:
        (verdict, rung), _ = item
        return (_ORDER.index(verdict) if verdict in _ORDER else len(_ORDER), rung)

    parts = [
        _WORDS.get(verdict, verdict + " at rung {rung}").format(rung=rung, above=rung + 1)
        + f" in {count} environment(s)"
        for (verdict, rung), count in sorted(counts.items(), key=order)
    ]
    return "; ".join(parts) or "not explored"


def reach_section(outcomes: list[dict[str, Any]], variants: list[str],
                  ladder: list[str]) -> list[str]:
    """The page's section: per variant, one line per liveness property with the rungs its
    explorations reached (`reach_sentence`)."""
    lines = ["## Which rungs the liveness answers reached", "",
             "Per variant and liveness property, the explored environments of the lattice run "
             f"(`docs/{OUTCOMES}`) by the rung their answer reached: held to a rung (proved "
             "or vacuous on complete graphs up to it; without a cut, the climb stopped there "
             "because nothing it wanted still held), held with the next rung cut by the state "
             "limit, broke first at a rung, or left undecided by the state limit at a rung. "
             "Environments the search settled by monotonicity without exploring them are not "
             "counted; a hold is for its rung, never for all instances. Rungs: "
             + " / ".join(f"{n}: {words}" for n, words in enumerate(ladder)) + ".", ""]
    for variant in variants:
        for prop in liveness_ids():
            lines.append(f"- **{variant} {prop}**: "
                         f"{reach_sentence(reach_counts(outcomes, variant, prop))}.")
    lines.append("")
    return lines
