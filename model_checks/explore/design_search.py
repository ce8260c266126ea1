"""`explore --design NAME` (any design; the LRU design's with `--rung`): one search of each
instance asked for, by the one explorer (`graph.build` through the design's `Moves`), judged
by the design's judging (`judging.judging_for`: the LRU design's own judge, any other
design's properties checked on every transition), over the `Design` interface only.

Each `--variant` (default: the design's last) and `--environment` (default none; the drift
catalogue's `Environment`, refused with the reason where the design cannot have a source)
gives one instance, the design's rung `--rung` (default 0) of its ladder
(`Design.instance`), searched breadth-first up to `--max-states` states. Printed per search:
the instance, its states and depth and whether the search was complete, then each
property's verdict (`--property P`: only P's, the others not reported) with its shortest
witness, one action a line in the design's JSON. `--json` writes one summary per search.

Every search is summed up as one `InstanceSearch`, as a named instance's search of a design
that declares named instances is (`instance_command`, its records `judged`), and one exit
rule reads them
(`exit_code`): 4 a reported property breaks; 3 none breaks but the state limit left one
undecided; 0 every reported property holds on its instance; 1 a search explored nothing;
2 bad input (one line).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from model_checks.explore.judgement import Status
from model_checks.explore.judging import judging_for
from model_checks.kernel.exits import EXIT_MISMATCH, EXIT_OK, UsageError
from model_checks.kernel.verdict_records import Verdict, VerdictRecord
from spec.config import InvalidConfiguration
from spec.designs import RefusedDrift, UnknownDesign, design_named
from spec.designs.base import Design, DesignProperty
from spec.drift import Environment

EXIT_UNDECIDED = 3
"""No reported property breaks, but the state limit left one undecided."""
EXIT_BREAK = 4
"""A reported property breaks on its instance."""

DEFAULT_MAX_STATES = 2_000_000
"""States per search when `--max-states` is not given."""

PROPERTY_HELP = ("report only this property: of the LRU design's named instance "
                 "(--instance) S1..L4, I1..; of a design's instance (another --design, or "
                 "--rung) one of the design's properties")


@dataclass(frozen=True)
class InstanceSearch:
    """One search of one instance, summed up: the instance (as its search names it), the
    states numbered, the depth reached, whether the search was complete (every state
    explored, or stopped at a break), each reported property's verdict ("holds", "breaks" or
    "unknown"; vacuous and proved hold), the level a break stopped it at (None: not stopped
    early) and, of a search that judges into verdict records, the records (`judged`)."""

    instance: str
    states: int
    depth: int
    complete: bool
    verdicts: Mapping[str, str]
    stopped_at: int | None = None
    records: tuple[VerdictRecord, ...] = ()


WORDS = {Verdict.COUNTEREXAMPLE: "breaks", Verdict.UNKNOWN: "unknown"}
"""A record's verdict as `InstanceSearch` words it (any other: "holds")."""


def judged(instance: str, records: tuple[VerdictRecord, ...], states: int, depth: int,
           complete: bool, stopped_at: int | None) -> InstanceSearch:
    """A search judged into verdict records, summed up: each record's verdict in words."""
    return InstanceSearch(instance, states, depth, complete,
                          {r.property: WORDS.get(r.verdict, "holds") for r in records},
                          stopped_at, records)


def run(args: argparse.Namespace) -> int:
    """Every search `args` asks of `args.design` (module docstring); its exit code."""
    try:
        design = design_named(args.design)
        wanted = _reported(design, args.property)
        found = [_search(design, variant, environment, wanted, args)
                 for variant in args.variant or [design.variants[-1]]
                 for environment in args.environment or [Environment()]]
    except (UnknownDesign, RefusedDrift, InvalidConfiguration) as error:
        raise UsageError(str(error)) from None
    if args.json:
        args.json.write_text(json.dumps([summary for _, summary in found]) + "\n")
    return exit_code(search for search, _ in found)


def _reported(design: Design, wanted: str | None) -> tuple[DesignProperty, ...]:
    """The properties a search reports: all of the design's, or the one `--property` names."""
    if wanted is None:
        return design.properties
    chosen = tuple(p for p in design.properties if p.id == wanted.upper())
    if not chosen:
        raise UsageError(f"--property {wanted!r}: not a property of design {design.name}; one "
                         f"of {', '.join(p.id for p in design.properties)}")
    return chosen


def _search(design: Design, variant: str, chosen: Environment,
            reported: tuple[DesignProperty, ...], args: argparse.Namespace
            ) -> tuple[InstanceSearch, dict[str, object]]:
    """One search, printed; its summary, and its summary for `--json`."""
    environment = chosen.ids  # the design refuses a source it has not, with why
    rung = args.rung or 0
    known_variant(design, variant)
    if not 0 <= rung < len(design.rungs):
        raise UsageError(f"--rung: got {rung}; design {design.name} has rungs 0-"
                         f"{len(design.rungs) - 1}")
    if args.max_states is not None and args.max_states < 1:
        raise UsageError(f"--max-states must be >= 1, got {args.max_states}")
    config = design.instance(variant, environment, rung)
    found = judging_for(design.name).judge(config,
                                           max_states=args.max_states or DEFAULT_MAX_STATES)
    instance = f"{design.name} {variant} {chosen.text} at rung {rung} ({design.rungs[rung]})"
    print(f"{instance}: {found.states:,} states, depth {found.depth}, "
          f"{'complete' if found.complete else 'cut by the state limit'}")
    for prop in reported:
        judgement = found.judgement(prop.id)
        witness = judgement if judgement and judgement.status is Status.COUNTEREXAMPLE else None
        print(f"  {prop.id} {found.verdict(prop.id)}"
              + (f" in {len(witness.actions)} steps: {witness.reason}" if witness else ""))
        for number, action in enumerate(witness.actions if witness else (), start=1):
            print(f"      {number}. {json.dumps(design.action_to_json(action))}")
    verdicts = {p.id: found.verdict(p.id) for p in reported}
    summary = {"variant": variant, "environment": chosen.text, "rung": rung,
               "states": found.states, "complete": found.complete, "verdicts": verdicts}
    return InstanceSearch(instance, found.states, found.depth, found.complete, verdicts), summary


def known_variant(design: Design, variant: str) -> None:
    """Refuse, in one line naming the design's variants, a variant the design has not."""
    if variant not in design.variants:
        raise UsageError(f"--variant: got {variant!r}; design {design.name}'s variants are "
                         f"{', '.join(design.variants)}")


def exit_code(searches: Iterable[InstanceSearch]) -> int:
    """1 where there is no search or one explored or judged nothing, else 4 a break, else 3
    an undecided property, else 0."""
    found = list(searches)
    if not found or any(search.states == 0 or not search.verdicts for search in found):
        return EXIT_MISMATCH
    every = {verdict for search in found for verdict in search.verdicts.values()}
    if "breaks" in every:
        return EXIT_BREAK
    return EXIT_UNDECIDED if "unknown" in every else EXIT_OK
