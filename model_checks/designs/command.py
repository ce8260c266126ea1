"""The `explore` command's lattice for a design other than the LRU's (`--design NAME`), over the
design-generic checkers, and the options of its one-instance searches (`explore --design
NAME`: `model_checks.explore.design_search`): `explore --lattice --design NAME` answers
every environment of the design's sources
(`--sizes`; `--json` writes the result, `--out DIR` one witness file per minimal break);
`explore --lattice --check` re-derives, for every design with committed answers
(docs/results/designs/NAME.json.gz; `--design` picks one), the base rung's single-source
explorations and the all-instance proofs, and checks the committed witness files fresh
(`witness_freshness`: each replays, breaks its property, and is what the writer would write
for its trace now), and replays the design's explicit witnesses (`lattice.explicit_breaks`),
and fails (exit 1) where one contradicts the committed answers, a witness file is stale or an
explicit witness does not replay. A lattice fails (exit 1, one line, nothing written) before
it searches when one of the design's explicit witnesses (`evidence.EXPLICIT`) does not break
its property on the spec. Exit 2: a usage error (an unknown design, variant or source, a
source the design refuses, with the reason, or an option of the LRU's explorer only).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from model_checks.designs import witness_freshness
from model_checks.designs.evidence import EXPLICIT, PROOFS, RESTRICTED
from model_checks.designs.lattice import (
    ExplicitDoesNotReplay,
    LatticeOptions,
    explicit_breaks,
    search,
)
from model_checks.designs.results import to_json, write_witnesses
from model_checks.explore.design_search import DEFAULT_MAX_STATES, PROPERTY_HELP, known_variant
from model_checks.explore.exploration import explore
from model_checks.kernel import result_files
from model_checks.kernel.environment_arg import add_environment_argument, design_sources
from model_checks.kernel.exits import EXIT_MISMATCH, EXIT_OK, UsageError
from model_checks.kernel.options import add_jobs_argument
from spec.config import InvalidConfiguration
from spec.designs import RefusedDrift, UnknownDesign, design_named, designs
from spec.designs.base import Design
from spec.drift import Environment

RESULTS = Path(__file__).resolve().parents[2] / "docs" / "results" / "designs"
"""Committed answers per design: NAME.json.gz (`kernel.result_files`), and
NAME/witnesses/ENV_PROPERTY.json."""

def committed_answers(design: str) -> Path:
    """The name of the design's committed answers (read in either form)."""
    return RESULTS / f"{design}.json.gz"


def committed_witnesses(design: str) -> Path:
    """The folder of the design's committed witness files (`--out` of its lattice)."""
    return RESULTS / design / "witnesses"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Every option the design-generic explorer and lattice read (`run` reads `--design`
    and `--check` too, which the `explore` command declares: they choose between the
    explorers)."""
    parser.add_argument("--variant", action="append", default=None,
                        help="only this variant of the design (default: its last; repeatable)")
    add_environment_argument(parser, allowed=design_sources(), repeatable=True,
                             default="none", help="only this environment: the design's drift "
                             "ids joined by '+', or 'none'")
    add_jobs_argument(parser, default=2)
    parser.add_argument("--json", type=Path, default=None,
                        help="where to write the searches' verdicts, or the lattice")
    parser.add_argument("--out", type=Path, default=None,
                        help="with --lattice: the folder for one witness per minimal break")
    parser.add_argument("--lattice", action="store_true",
                        help="answer every environment of the design's sources")
    parser.add_argument("--max-states", type=int, default=None, metavar="N",
                        help=f"the state limit per search (default: {DEFAULT_MAX_STATES:,})")
    parser.add_argument("--property", default=None, metavar="P", help=PROPERTY_HELP)
    add_design_arguments(parser)


def add_design_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of the design-generic explorer only (the LRU design's explorer reads
    the others too)."""
    parser.add_argument("--rung", type=int, default=None,
                        help="the design's rung: one search of its instance there (default 0; "
                        "lru: its generic instance instead of the matrix cells)")
    parser.add_argument("--sizes", default=None,
                        help="with --lattice, a design other than lru: sources per "
                        "environment at each rung, e.g. 1,1 (default 1)")


def run(args: argparse.Namespace) -> int:
    """The lattice `args` asks of a design other than the LRU's (or `--check`)."""
    try:
        if args.check:
            return _check(args)
        design = design_named(args.design)
        return _lattice(design, _one_variant(design, args), args)
    except (UnknownDesign, RefusedDrift, InvalidConfiguration) as error:
        raise UsageError(str(error)) from None


def _one_variant(design: Design, args: argparse.Namespace) -> str:
    if args.variant and len(args.variant) > 1:
        raise UsageError(f"--lattice --design {design.name}: one --variant, got "
                         f"{', '.join(args.variant)}")
    if args.environment:
        raise UsageError(f"--lattice --design {design.name} searches every environment of "
                         "its sources; --environment cannot apply")
    variant = str(args.variant[0]) if args.variant else design.variants[-1]
    known_variant(design, variant)
    return variant


def _lattice(design: Design, variant: str, args: argparse.Namespace) -> int:
    try:
        sizes = tuple(int(s) for s in args.sizes.split(",")) if args.sizes else (1,)
    except ValueError:
        raise UsageError(f"--sizes: got {args.sizes!r}, expected numbers joined by ','"
                         ) from None
    if len(sizes) > len(design.rungs):
        raise UsageError(f"--sizes gives {len(sizes)} rungs; {design.name} has "
                         f"{len(design.rungs)}")
    proofs = PROOFS[design.name]() if design.name in PROOFS else {}
    explicit = EXPLICIT[design.name]() if design.name in EXPLICIT else []
    restricted = RESTRICTED[design.name]() if design.name in RESTRICTED else []
    try:
        result = search(design, variant, LatticeOptions(
            sizes=sizes, max_states=args.max_states or DEFAULT_MAX_STATES, processes=args.jobs,
            proofs=proofs,
            restricted=tuple(restricted), explicit=tuple(explicit),
            progress=f"lattice of {design.name} {variant}"))
    except ExplicitDoesNotReplay as error:  # before any search, and nothing written
        print(f"! {design.name}: {error.line()}")
        return EXIT_MISMATCH
    data = to_json(result)
    if args.json:
        result_files.write(args.json, data, indent=1)
    if args.out:
        write_witnesses(result, args.out)
    for prop, minimal in data["minimal"].items():
        print(f"{prop}: " + ("; ".join(minimal) if minimal else "no break"))
    return EXIT_OK


def _check(args: argparse.Namespace) -> int:
    """Every design with committed answers: its base-rung single-source searches (at most as
    many states as the committed ones searched) and its proofs agree with them."""
    chosen = [design_named(args.design)] if args.design else [
        d for d in designs() if result_files.exists(committed_answers(d.name))]
    if not chosen:
        raise UsageError(f"no design has committed answers under {RESULTS}")
    missing = [d.name for d in chosen if not result_files.exists(committed_answers(d.name))]
    if missing:
        raise UsageError(f"design {missing[0]} has no committed answers under {RESULTS}")
    stale = sum(_check_witnesses(design) for design in chosen)  # cheap: first
    unreplayed = sum(_check_explicit(design) for design in chosen)
    wrong = 0
    for design in chosen:
        wrong += _check_one(design, args.max_states or DEFAULT_MAX_STATES)
    print(f"{len(chosen)} design(s) checked; {wrong} verdict(s) contradict the committed "
          f"answers; {stale} committed witness file(s) stale; {unreplayed} explicit "
          "witness(es) do not replay")
    if args.json:
        args.json.write_text(json.dumps({"contradictions": wrong, "stale": stale,
                                         "unreplayed": unreplayed}) + "\n")
    return EXIT_MISMATCH if wrong or stale or unreplayed else EXIT_OK


def _check_explicit(design: Design) -> int:
    """The design's explicit witnesses replayed on the spec as its lattice does
    (`lattice.explicit_breaks`): the first that breaks nothing printed on one line; 1 if
    there is one, else 0."""
    explicit = EXPLICIT[design.name]() if design.name in EXPLICIT else []
    try:
        explicit_breaks(design, explicit)
    except ExplicitDoesNotReplay as error:
        print(f"! {design.name}: {error.line()}")
        return 1
    print(f"  {design.name} explicit witnesses: {len(explicit)} replayed")
    return 0


def _check_witnesses(design: Design) -> int:
    """The design's committed witness files against what its writer would write now
    (`witness_freshness`): each stale one printed on one line; their count."""
    explicit = EXPLICIT[design.name]() if design.name in EXPLICIT else []
    fresh = witness_freshness.check(design, result_files.read(committed_answers(design.name)),
                                    committed_witnesses(design.name), explicit)
    for found in fresh.stale:
        print(f"! {found.line(RESULTS.parents[2])}")
    print(f"  {design.name} witnesses: {fresh.files} file(s) replayed, {len(fresh.stale)} "
          "stale")
    return len(fresh.stale)


def _contradicts(mine: str, answer: dict[str, str], base_rung: str) -> bool:
    """A break where the committed answer holds; or a hold where it breaks with a witness
    of this very instance (a witness of a larger instance is not expected here)."""
    if mine == "breaks":
        return answer["verdict"] == "holds"
    return mine == "holds" and answer["verdict"] == "breaks" and answer["basis"] == base_rung


def _check_one(design: Design, max_states: int) -> int:
    committed = result_files.read(committed_answers(design.name))
    variant = committed["variant"]
    max_states = min(max_states, committed["max_states"])  # no further than committed
    wrong = 0
    singles: list[frozenset[str]] = [frozenset({s.id}) for s in design.sources]
    for environment in [frozenset[str](), *singles]:
        found = explore(design, design.instance(variant, environment),
                        environment=environment, max_states=max_states)
        label = Environment.of(environment).text
        for prop in design.properties:
            answer = committed["answers"][prop.id][label]
            if _contradicts(found.verdict(prop.id), answer, design.rungs[0]):
                print(f"! {design.name} {label} {prop.id}: this search says "
                      f"{found.verdict(prop.id)}, the committed answer {answer['verdict']} "
                      f"({answer['basis']})")
                wrong += 1
        print(f"  {design.name} {label}: {found.states:,} states, "
              f"{len(found.witnesses)} break(s)")
    if design.name in PROOFS:
        proved = PROOFS[design.name]()
        for prop, _basis in committed["proofs"].items():
            if prop not in proved:
                print(f"! {design.name} {prop}: committed as proved, the proof fails now")
                wrong += 1
        print(f"  {design.name} proofs: {', '.join(sorted(proved)) or 'none'} proved")
    if design.name in RESTRICTED:
        held = {(p, Environment.of(e).text) for p, e, _ in RESTRICTED[design.name]()}
        for entry in committed.get("restricted", []):
            if (entry["property"], entry["environment"]) not in held:
                print(f"! {design.name} {entry['property']} under {entry['environment']}: "
                      "committed as proved, the proof fails now")
                wrong += 1
        print(f"  {design.name} restricted proofs: {len(held)} proved")
    return wrong
