"""The soundness check of ended requests forgotten (`lru_reductions/forgetting.py`): one
instance searched with and without it, every property and lemma judged on both, the verdicts
compared. Both searches are `graph.build`'s through the LRU design's `Moves`
(`search_core.moves_for`), the first without forgetting, the second with it.

Where both searches are complete, every property's status and shortest counterexample length
must be equal. Where the state limit cut a search, a counterexample found by both must have
the same length (both searches are breadth-first, so each is shortest), and one found by the
search without forgetting must be found, as long, by a complete search with forgetting. A
counterexample of the search with forgetting that does not replay on the spec (the judge's
`ReplayDisagrees`), or that the spec refuses to take (`TraceError`), is a disagreement too.
A comparison that compared nothing (`Comparison.compared` zero) does not agree: no green
without work.

Run on a sample of the matrix's cells and on the spec mutants by
`tests/explore/test_explore_forgetting.py`, on every matrix cell of the CI profile and
every spec mutant by `benchmarks/forgetting_soundness.py`, and on one instance a user names
by `python -m model_checks.explore.forgetting_agreement --variant V --environment E
--instance KEY=VALUE,... [--max-states N] [--slots]` (exit 0 agreeing, 1 disagreeing or
nothing compared, 2 bad input).

With `slots` (`--slots`) the search compared is the one whose key also renumbers the live
requests' slots (`lru_reductions/slots.py`), its monitors' violations replayed through their
rid maps:
`tests/explore/test_explore_slots.py` and `benchmarks/forgetting_soundness.py --slots`.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass

from model_checks.explore.command import PROFILES
from model_checks.explore.graph import GraphOptions, build
from model_checks.explore.instance import explore_config, shapes_for
from model_checks.explore.lru_judging.judge import Judgement, ReplayDisagrees, Status, judge_all
from model_checks.kernel.cells import cell_identifier
from model_checks.kernel.exits import usage_exit
from model_checks.kernel.matrix import EXPECTED
from spec import Config, TraceError, variant_named


@dataclass(frozen=True)
class Comparison:
    """One instance searched both ways: the states of each search, whether each completed,
    the verdicts compared and every disagreement found (in words)."""

    label: str
    plain_states: int
    forgetting_states: int
    plain_complete: bool
    forgetting_complete: bool
    compared: int
    disagreements: tuple[str, ...]

    @property
    def agrees(self) -> bool:
        """True when verdicts were compared and none disagreed."""
        return self.compared > 0 and not self.disagreements


def compare(config: Config, max_states: int, label: str = "", slots: bool = False
            ) -> Comparison:
    """Search `config` without and with ended requests forgotten (with `slots`, request
    slots renumbered too; each up to `max_states` states), judge every property and lemma on
    both and compare (module docstring)."""
    plain = build(config, GraphOptions(max_states=max_states))
    plain_judged = judge_all(plain)
    plain_states, plain_complete = len(plain.states), plain.complete
    del plain
    forgetting = build(config, GraphOptions(max_states=max_states, forget=True, slots=slots))
    try:
        forgetting_judged = judge_all(forgetting)
    except (ReplayDisagrees, TraceError) as error:  # a path the spec does not take
        return Comparison(label, plain_states, len(forgetting.states), plain_complete,
                          forgetting.complete, 1, (f"replay: {error}",))
    compared, disagreements = 0, []
    for a, b in zip(plain_judged, forgetting_judged, strict=True):
        why = _disagreement(a, b, plain_complete, forgetting.complete)
        if why is None:
            continue
        if why:
            disagreements.append(f"{a.property_id}: {why}")
        compared += 1
    return Comparison(label, plain_states, len(forgetting.states), plain_complete,
                      forgetting.complete, compared, tuple(disagreements))


def _disagreement(plain: Judgement, forgetting: Judgement, plain_complete: bool,
                  forgetting_complete: bool) -> str | None:
    """Why the two verdicts disagree ("" when they agree; None when the limits leave
    nothing to compare)."""
    said = (f"without forgetting {_said(plain)}, with forgetting {_said(forgetting)}")
    if plain_complete and forgetting_complete:
        same = (plain.status, len(plain.actions)) == (forgetting.status, len(forgetting.actions))
        return "" if same else said
    broke = plain.status is Status.COUNTEREXAMPLE, forgetting.status is Status.COUNTEREXAMPLE
    if all(broke) or (broke[0] and forgetting_complete):
        return "" if plain.status is forgetting.status and len(plain.actions) == len(
            forgetting.actions) else said
    return None


def _said(judgement: Judgement) -> str:
    if judgement.status is Status.COUNTEREXAMPLE:
        return f"breaks in {len(judgement.actions)} steps"
    return judgement.status.name.lower()


def matrix_instances(wanted: set[str] | None) -> list[tuple[str, Config]]:
    """Every matrix cell's first CI instance, labelled `V2_D2_D7` (or those `wanted`): the
    instances the soundness checks of the reductions and of `early_stop` compare on."""
    profile = PROFILES["ci"]
    out = []
    for cell in EXPECTED:
        label = cell_identifier(cell.variant, cell.environment)
        if wanted is not None and label not in wanted:
            continue
        shape = shapes_for(cell.environment, profile.shapes, profile.large_shapes)[0]
        config = explore_config(variant_named(cell.variant), cell.environment,
                                max_requests=shape.max_requests, max_items=shape.max_items,
                                max_identities=shape.max_identities)
        out.append((label, config))
    return out


def main(argv: list[str] | None = None) -> int:
    """Compare one named instance both ways (module docstring); a line per disagreement."""
    from model_checks.explore.named_instance import InstanceTextError, parse
    from spec import BadEnvironment, Environment, variant_named

    parser = argparse.ArgumentParser(prog="python -m model_checks.explore.forgetting_agreement")
    parser.add_argument("--variant", required=True)
    parser.add_argument("--environment", default="none")
    parser.add_argument("--instance", required=True, metavar="KEY=VALUE,...")
    parser.add_argument("--max-states", type=int, default=1_000_000)
    parser.add_argument("--slots", action="store_true",
                        help="compare the search that renumbers request slots too")
    args = parser.parse_args(argv)
    try:
        environment = Environment.parse(args.environment)
        config = parse(args.instance).config(variant_named(args.variant),
                                             tuple(environment.sources))
    except (BadEnvironment, InstanceTextError, KeyError, ValueError) as error:
        return usage_exit(error)
    result = compare(config, args.max_states, f"{args.variant} {environment.text}",
                     args.slots)
    for why in result.disagreements:
        print(f"disagrees: {why}")
    print(f"{result.label}: {result.compared} verdicts compared, states {result.plain_states} "
          f"without and {result.forgetting_states} with ended requests forgotten: "
          + ("AGREE" if result.agrees else "DISAGREE"))
    return 0 if result.agrees else 1


if __name__ == "__main__":
    sys.exit(main())
