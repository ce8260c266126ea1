"""The `design` command: the design-generic checkers over any design of `spec.designs`.

`--checker explore` searches one environment's instance and prints each property's verdict
with its witness; `--checker lattice` answers every environment of the design's sources
(`--json` writes the result, `--witnesses DIR` one file per minimal break); `--check`
re-derives, for every design with committed answers (docs/results/designs/NAME.json.gz), the
base rung's single-source explorations and the all-instance proofs, and fails (exit 1) where
one contradicts the committed answers. Exit 2: a usage error (an unknown design, variant or
source, or a source the design refuses, with the reason).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from model_checks.designs.evidence import EXPLICIT, PROOFS, RESTRICTED
from model_checks.designs.explore import explore
from model_checks.designs.lattice import LatticeOptions, search
from model_checks.designs.results import to_json, write_witnesses
from model_checks.kernel import result_files
from model_checks.kernel.environment_arg import add_environment_argument
from model_checks.kernel.exits import EXIT_MISMATCH, EXIT_OK, UsageError
from model_checks.kernel.options import (
    WORKERS_ARE_JOBS,
    add_jobs_argument,
    add_renamed_argument,
)
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


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--design", help="the design (lru, shm, ...); default with --check: "
                        "every design with committed answers")
    parser.add_argument("--variant", help="the design's variant (default: its last)")
    parser.add_argument("--checker", choices=("explore", "lattice"), default="explore")
    add_environment_argument(parser, allowed=_every_source(), default="none: no drift",
                             help="explore: the design's sources, e.g. D2+D3")
    parser.add_argument("--rung", type=int, default=0, help="explore: the ladder's rung")
    parser.add_argument("--max-states", type=int, default=2_000_000,
                        help="states per search (a resource limit)")
    add_jobs_argument(parser, default=1)
    add_renamed_argument(parser, "--processes", WORKERS_ARE_JOBS)
    parser.add_argument("--sizes", default="",
                        help="lattice: sources per environment at each rung, e.g. 1,1")
    parser.add_argument("--json", type=Path, help="write the result as JSON here "
                        "(gzip-compressed when the name ends in .gz)")
    parser.add_argument("--witnesses", type=Path, help="lattice: write witnesses here")
    parser.add_argument("--check", action="store_true",
                        help="check the committed answers of every design that has them")


def run(args: argparse.Namespace) -> int:
    try:
        if args.check:
            return _check(args)
        design = design_named(args.design or "")
        variant = args.variant or design.variants[-1]
        if args.checker == "lattice":
            return _lattice(design, variant, args)
        return _explore(design, variant, args)
    except (UnknownDesign, RefusedDrift, InvalidConfiguration) as error:
        raise UsageError(str(error)) from None


def _every_source() -> tuple[str, ...]:
    """Every source some design declares (the chosen design's are checked at run time)."""
    return tuple(dict.fromkeys(s.id for design in designs() for s in design.sources))




def _explore(design: Design, variant: str, args: argparse.Namespace) -> int:
    environment = (args.environment or Environment()).ids  # the design refuses, with why
    config = design.instance(variant, environment, args.rung)
    found = explore(design, config, max_states=args.max_states, variant=variant,
                    environment=environment)
    print(f"{design.name} {variant} {Environment.of(environment).text} at rung {args.rung} "
          f"({design.rungs[args.rung]}): {found.states:,} states, depth {found.depth}, "
          f"{'complete' if found.complete else 'cut by the state limit'}")
    for prop in design.properties:
        verdict = found.verdict(prop.id)
        witness = found.witness(prop.id)
        print(f"  {prop.id} {verdict}" + (f" in {len(witness.actions)} steps: {witness.reason}"
                                           if witness else ""))
        for number, action in enumerate(witness.actions if witness else (), start=1):
            print(f"      {number}. {json.dumps(design.action_to_json(action))}")
    if args.json:
        args.json.write_text(json.dumps({"states": found.states, "complete": found.complete,
                                         "verdicts": {p.id: found.verdict(p.id)
                                                      for p in design.properties}}) + "\n")
    return EXIT_OK if found.states > 0 else EXIT_MISMATCH


def _lattice(design: Design, variant: str, args: argparse.Namespace) -> int:
    sizes = tuple(int(s) for s in args.sizes.split(",")) if args.sizes else (1,)
    if len(sizes) > len(design.rungs):
        raise UsageError(f"--sizes gives {len(sizes)} rungs; {design.name} has "
                         f"{len(design.rungs)}")
    proofs = PROOFS[design.name]() if design.name in PROOFS else {}
    explicit = EXPLICIT[design.name]() if design.name in EXPLICIT else []
    restricted = RESTRICTED[design.name]() if design.name in RESTRICTED else []
    result = search(design, variant, LatticeOptions(
        sizes=sizes, max_states=args.max_states, processes=args.jobs, proofs=proofs,
        restricted=tuple(restricted), explicit=tuple(explicit),
        progress=lambda rung, x: print(
            f"  rung {rung} {Environment.of(x.environment).text}: "
            f"{x.states:,} states{'' if x.complete else ' (cut)'}", flush=True)))
    data = to_json(result)
    if args.json:
        result_files.write(args.json, data, indent=1)
    if args.witnesses:
        write_witnesses(result, args.witnesses)
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
    wrong = 0
    for design in chosen:
        wrong += _check_one(design, args.max_states)
    print(f"{len(chosen)} design(s) checked; {wrong} verdict(s) contradict the committed "
          "answers")
    if args.json:
        args.json.write_text(json.dumps({"contradictions": wrong}) + "\n")
    return EXIT_MISMATCH if wrong else EXIT_OK


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
        found = explore(design, design.instance(variant, environment), variant=variant,
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
              f"{sum(1 for w in found.witnesses)} break(s)")
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
