"""`explore --variant V --environment E --instance KEY=VALUE,... [--property P]`: one search
of an instance a user names, judged completely, in this process, for a design that declares
its named instances (`design_explorer.DesignExplorer.named`: the LRU design's keys are
`named_instance`'s, declared in `lru_explore`).

Prints the instance, one verdict per property (or the one `--property` asks for), each
naming the instance it holds for, then the states explored, the depth reached and the CPU
seconds of the search and the judging (`time.process_time`). Writes the verdict records
(`--json`, with the search's figures beside them: `SearchFigures`) and each counterexample
as an ITF trace (`--out`), as a matrix cell does.

With `--property P` the search stops at the end of the breadth-first level where P first
breaks, where P can stop it (a state property or lemma, or L1-L3 judged by their monitors on
the fly: `early_stop`): the same verdict and shortest counterexample as the whole graph
gives, from the states up to that depth; it says so, and judges nothing else.
`--whole-graph` searches on instead.

Exit codes (every design's one-instance search's: `design_search.exit_code`): 4 a
judged property breaks on the instance (its shortest counterexample's length printed); 3
none breaks but the state limit (`--max-states`, default `design_search.DEFAULT_MAX_STATES`)
left one undecided; 0 every judged property holds (proved for the instance, or vacuous on
it); 1 nothing explored; 2 bad input (one line naming the fix).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

from model_checks.explore.design_explorer import NamedSearch
from model_checks.explore.design_search import PROPERTY_HELP, exit_code
from model_checks.kernel import result_files
from model_checks.kernel.exits import usage_exit
from model_checks.kernel.verdict_records import Verdict, VerdictRecord, write_records

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


def add_instance_arguments(parser: argparse.ArgumentParser, instance_help: str) -> None:
    """The options of a named instance's search; `instance_help` says the design's keys."""
    parser.add_argument("--instance", default=None, metavar="KEY=VALUE,...", help=instance_help)
    parser.add_argument("--property", default=None, metavar="P", help=PROPERTY_HELP)
    parser.add_argument("--forget-ended", action="store_true", help=FORGET_HELP)
    parser.add_argument("--symmetric-requests", action="store_true", help=SLOTS_HELP)
    parser.add_argument("--whole-graph", action="store_true", help=WHOLE_HELP)


def run_named(args: argparse.Namespace,
              named: Callable[[argparse.Namespace], NamedSearch]) -> int:
    """The `--instance` run (module docstring); `args` are `explore`'s, `named` the design's
    named instances (`DesignExplorer.named`)."""
    try:
        _usable(args)
        search = named(args)
    except ValueError as error:
        return usage_exit(error)
    print(f"instance {search.text}: {search.description}")
    started = time.process_time()
    outcome = search.search()
    seconds = time.process_time() - started
    records = outcome.records
    figures = SearchFigures(search.text, outcome.states, outcome.depth, outcome.stopped_at,
                            outcome.complete, seconds)
    write_records(args.json, list(records), {FIGURES_KEY: figures.to_json()})
    for record in records:
        print(f"{search.cell} {record.property} on {search.text}: {verdict_text(record)}")
    limit = "" if outcome.complete else f" (state limit {search.max_states} reached)"
    if outcome.stopped_at is not None:
        limit = (f" (the search stopped at the end of depth {outcome.stopped_at}, where "
                 f"{args.property} broke: states deeper not searched, no other property "
                 "judged)")
    print(f"{outcome.states} states{search.keyed}, depth {outcome.depth}{limit}, "
          f"{seconds:.2f} CPU-s; records in {args.json}, traces in {args.out}")
    return exit_code([outcome])


def _usable(args: argparse.Namespace) -> None:
    """`ValueError` naming the fix where the options cannot name one instance: no
    `--instance`, an option that picks instances another way, not one variant and one
    environment."""
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


def asked(args: argparse.Namespace) -> bool:
    """Whether `args` ask for a named instance's search (`--instance`, or an option only it
    reads, which it then refuses without `--instance`)."""
    return (args.instance is not None or args.property is not None or args.forget_ended
            or args.symmetric_requests or args.whole_graph)


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


FIGURES_KEY = "search"
"""The key of `SearchFigures` in an `explore --instance` records file."""


@dataclass(frozen=True)
class SearchFigures:
    """One search of a named instance: the instance's canonical text, the states it numbered,
    the depth it reached, the level a break stopped it at (None: not stopped early),
    whether every state was explored or the stop was at a break (not the state limit), and
    the CPU seconds of the search and the judging."""

    instance: str
    states: int
    depth: int
    stopped_at: int | None
    complete: bool
    cpu_seconds: float

    def to_json(self) -> dict[str, object]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> SearchFigures:
        stopped = data["stopped_at"]
        return cls(str(data["instance"]), int(str(data["states"])), int(str(data["depth"])),
                   None if stopped is None else int(str(stopped)), bool(data["complete"]),
                   float(str(data["cpu_seconds"])))


def read_figures(path: Path) -> SearchFigures | None:
    """The figures an `explore --instance` records file holds (None: none, e.g. the run
    stopped at a usage error before writing it)."""
    if not path.exists():
        return None
    data = result_files.read(path).get(FIGURES_KEY)
    return None if data is None else SearchFigures.from_json(data)
