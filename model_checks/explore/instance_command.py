"""`explore --variant V --environment E --instance KEY=VALUE,... [--property P]`: one search
of an instance a user names (`named_instance`), judged completely, in this process.

Prints the instance, one verdict per property (or the one `--property` asks for), each
naming the instance it holds for, then the states explored, the depth reached and the CPU
seconds of the search and the judging (`time.process_time`). Writes the verdict records
(`--json`, with the search's figures beside them: `named_instance.SearchFigures`) and each
counterexample as an ITF trace (`--out`), as a matrix cell does.

With `--property P` the search stops at the end of the breadth-first level where P first
breaks, where P can stop it (a state property or lemma, or L1-L3 judged by their monitors on
the fly: `early_stop`): the same verdict and shortest counterexample as the whole graph
gives, from the states up to that depth; it says so, and judges nothing else.
`--whole-graph` searches on instead.

Exit codes (every design's one-instance search's: `design_search.EXIT_*`): 4 a
judged property breaks on the instance (its shortest counterexample's length printed); 3
none breaks but the state limit (`--max-states`, default `cell_tasks.DEFAULT_MAX_STATES`)
left one undecided; 0 every judged property holds (proved for the instance, or vacuous on
it); 1 nothing explored; 2 bad input (one line naming the fix).
"""

from __future__ import annotations

import argparse
import sys
import time

from model_checks.explore.cell_tasks import DEFAULT_MAX_STATES, CellTask, explore_cell
from model_checks.explore.design_search import PROPERTY_HELP
from model_checks.explore.design_search import exit_code as search_exit_code
from model_checks.explore.instance import Shape, describe
from model_checks.explore.named_instance import (
    EXAMPLE,
    FIGURES_KEY,
    InstanceTextError,
    SearchFigures,
    parse,
)
from model_checks.kernel.exits import EXIT_USAGE
from model_checks.kernel.verdict_records import Verdict, VerdictRecord, write_records
from spec import lemmas, registry, variant_named
from spec.drift import Environment

INSTANCE_HELP = (f"explore this one instance instead of the profile's, e.g. --instance {EXAMPLE}"
                 "[,size=c:3/3]; keys: identities, requests, unfinished, items, retries, "
                 "budget (all required), size=ID[@V]:P0/P1 (repeatable); needs one --variant "
                 "and one --environment; exit 4 on a break (docs/explore.md)")
FORGET_HELP = ("with --instance: deduplicate states with ended requests forgotten (the same "
               "verdicts and shortest counterexamples from fewer states; docs/explore.md)")
WHOLE_HELP = ("with --instance --property: search the whole graph even where the property "
              "breaks (by default the search stops at the end of the level where it first "
              "breaks, with the same verdict and shortest counterexample; docs/explore.md)")
SLOTS_HELP = ("with --forget-ended: the key also renumbers the live requests' slots (request "
              "slots interchangeable; the same verdicts and shortest counterexamples from "
              "fewer states; docs/explore.md)")

_NOT_WITH = (("lattice", "--lattice"), ("distributed", "--distributed"),
             ("cross_check", "--cross-check"), ("max_requests", "--max-requests"),
             ("unfinished", "--unfinished"), ("retries", "--retries"),
             ("identities", "--identities"), ("dask", "--dask"), ("sources", "--sources"),
             ("max_size", "--max-size"), ("evidence", "--evidence"), ("resume", "--resume"),
             ("items", "--items"), ("reused_bytes", "--reused-bytes"),
             ("parametric", "--parametric"), ("no_explore", "--no-explore"),
             ("duplicates", "--duplicates"))
"""Options that pick or change the instances some other way (or where to search)."""


def add_instance_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--instance", default=None, metavar="KEY=VALUE,...", help=INSTANCE_HELP)
    parser.add_argument("--property", default=None, metavar="P", help=PROPERTY_HELP)
    parser.add_argument("--forget-ended", action="store_true", help=FORGET_HELP)
    parser.add_argument("--symmetric-requests", action="store_true", help=SLOTS_HELP)
    parser.add_argument("--whole-graph", action="store_true", help=WHOLE_HELP)


def run_named(args: argparse.Namespace) -> int:
    """The `--instance` run (module docstring); `args` are `explore`'s."""
    try:
        task, wanted = _task(args)
        config = task.config(task.shapes[0])
    except (InstanceTextError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    named = parse(args.instance).text()
    cell = f"{task.variant.name} {Environment.of(task.environment).text}"
    print(f"instance {named}: {describe(config)}")
    started = time.process_time()
    outcome = explore_cell(task)
    seconds = time.process_time() - started
    records = [r for r in outcome.records if wanted is None or r.property == wanted]
    figures = SearchFigures(named, outcome.states, outcome.diameter, outcome.stopped_at,
                            outcome.complete, seconds)
    write_records(args.json, records, {FIGURES_KEY: figures.to_json()})
    for record in records:
        print(f"{cell} {record.property} on {named}: {verdict_text(record)}")
    limit = "" if outcome.complete else f" (state limit {task.max_states} reached)"
    if outcome.stopped_at is not None:
        limit = (f" (the search stopped at the end of depth {outcome.stopped_at}, where "
                 f"{wanted} broke: states deeper not searched, no other property judged)")
    keyed = (" (deduplicated with ended requests forgotten"
             + (", request slots renumbered)" if task.slots else ")")) if task.forget else ""
    print(f"{outcome.states} states{keyed}, depth {outcome.diameter}{limit}, {seconds:.2f} CPU-s; "
          f"records in {args.json}, traces in {args.out}")
    return exit_code(records, outcome.states)


def _task(args: argparse.Namespace) -> tuple[CellTask, str | None]:
    """The one cell's task over the named instance, and the property asked for (None: all);
    `ValueError` naming the fix for bad arguments."""
    if args.instance is None:
        given = ("--property" if args.property is not None else
                 "--forget-ended" if args.forget_ended else
                 "--whole-graph" if args.whole_graph else "--symmetric-requests")
        raise ValueError(f"{given} needs --instance (the matrix cells report every property, "
                         "searched as the profile says)")
    for dest, option in _NOT_WITH:
        if getattr(args, dest, None) not in (None, False):
            raise ValueError(f"--instance names the instance; drop {option}")
    if (args.variant is None or len(args.variant) != 1 or args.environment is None
            or len(args.environment) != 1):
        raise ValueError("--instance needs exactly one --variant and one --environment "
                         "(e.g. --variant V2 --environment D1+D7)")
    known = [p.id for p in (*registry(), *lemmas())]
    if args.property is not None and args.property not in known:
        raise ValueError(f"--property {args.property!r}: not a property or lemma; one of "
                         f"{', '.join(known)}")
    if args.symmetric_requests and not args.forget_ended:
        raise ValueError("--symmetric-requests needs --forget-ended (it renumbers the slots "
                         "of the requests that key keeps)")
    if args.forget_ended and args.por:
        raise ValueError("--forget-ended and --por are separate searches; drop one")
    if args.max_states is not None and args.max_states < 1:
        raise ValueError(f"--max-states must be >= 1, got {args.max_states}")
    named = parse(args.instance)
    variant = variant_named(args.variant[0])
    env = args.environment[0].sources
    named.config(variant, env)  # refuses what the spec refuses, and sizes it does not have
    family = named.family()
    only = None if args.property is None or args.por else frozenset({args.property})
    task = CellTask(variant, env, args.out, args.max_states or DEFAULT_MAX_STATES,
                  (Shape(family.max_requests),), por=args.por, family=family, only=only,
                  forget=args.forget_ended, slots=args.symmetric_requests,
                  stop_at_break=not args.whole_graph)
    return task, args.property


def verdict_text(record: VerdictRecord) -> str:
    """One verdict in words: a break with its shortest counterexample's length and trace,
    a hold (proved for the instance), vacuous or undecided with the reason."""
    reason = record.detail.partition("; instance: ")[0]
    if record.verdict is Verdict.COUNTEREXAMPLE:
        return (f"BREAKS, shortest counterexample {record.counterexample_length} steps "
                f"(trace {record.counterexample_path})")
    if record.verdict is Verdict.PROVED:
        return "holds (proved for this instance: every reachable state judged)"
    if record.verdict is Verdict.VACUOUS:
        return f"holds vacuously ({reason.removeprefix('vacuous: ')})"
    return f"UNDECIDED ({reason.removeprefix('undecided: ')})"


def exit_code(records: list[VerdictRecord], states: int) -> int:
    """4 a break, else 3 an undecided property, else 0; 1 when nothing was explored or
    judged (`design_search.exit_code`, every design's one-instance search's)."""
    words = {Verdict.COUNTEREXAMPLE: "breaks", Verdict.UNKNOWN: "unknown"}
    return search_exit_code([[words.get(r.verdict, "holds") for r in records]
                             if states > 0 else []])
