"""`python -m model_checks explore --lattice --json PATH`: the drift lattice, written out.

One command for every design that declares its lattice (`LatticeCommandDesign`; the LRU
design's is `lattice_lru.LRU_LATTICE`). Runs `lattice.search` on the request the design reads
off the options (variants, `--variant`; drift sources, `--sources`; the rungs of the
profile's instance ladder with the top rung's bounds, `--max-requests`, `--unfinished`,
`--retries`, `--identities`; the state limit per graph, `--max-states`: the same words as
the per-cell `explore`), merges the design's other checkers' replayed breaks (`--evidence
RECORDS`) and all-instance proofs (`--parametric`), writes one JSON object per variant and
property (`--json`) and, per minimal breaking environment, its shortest counterexample in
the replayable trace format (`--out`), each checked by the design before it is written (the
LRU design's: it replays, and an explorer's trace lifts to the top environment at the top
rung, the lemma the search stands on). `--resume FILE` keeps every exploration's outcome in
FILE and starts from those already there (same ladder, state limit and sources; otherwise a
usage error), so a long run can be done in parts. FILE is written gzip-compressed when its
name ends in `.gz` (`kernel.result_files`; the committed ones are), and read in either form.

Exit codes: 0 the lattice was searched (undecided environments are listed, not failures);
1 no environment was explored, or a witness or proof is a defect (`LatticeDefect`); 2 usage
error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, is_dataclass, replace
from pathlib import Path
from typing import Any, Protocol

from model_checks.executor import ClusterError
from model_checks.explore.lattice import (
    EnvOutcome,
    Knowledge,
    LatticeDesign,
    LatticeRequest,
    Proof,
    R,
    search,
)
from model_checks.explore.lattice_report import Break, TraceWanted, summarise, trace_data
from model_checks.kernel import itf, result_files
from model_checks.kernel.exits import EXIT_MISMATCH, EXIT_OK, usage_exit
from spec.drift import Environment

EXIT_FAILED = EXIT_MISMATCH


DEFAULT_JSON = Path("build/explore/lattice.json")
DEFAULT_OUT = Path("build/explore/lattice")


class LatticeDefect(AssertionError):
    """What the run established contradicts itself: a witness does not replay or lift
    (`WitnessDefect`), or an all-instance proof covers a break; exit 1."""


class WitnessDefect(LatticeDefect):
    """A minimal set's trace does not replay, or does not lift to the top environment."""


class LatticeCommandDesign(LatticeDesign[R], Protocol[R]):
    """What the lattice command reads of one design, beyond what the search reads: the
    request its options describe, a kept ladder's rungs, its all-instance proofs and other
    checkers' breaks, and each witness checked before it is written. Declared per design
    (the LRU design's: `lattice_lru.LRU_LATTICE`)."""

    def request(self, args: argparse.Namespace) -> LatticeRequest[R]:
        """The variants, sources, ladder and legs the options ask for (`--profile`,
        `--variant`, `--sources`, `--max-size`, the rung bounds, `--jobs`); a
        `LatticeUsageError` (or ValueError) if one is bad."""
        ...

    def rung(self, data: Mapping[str, Any]) -> R:
        """A rung of a kept ladder, read back from `write_outcomes`' `asdict`."""
        ...

    def proofs(self) -> tuple[Proof, ...]:
        """The all-instance proofs `--parametric` seeds the search with."""
        ...

    def evidence(self, paths: Sequence[Path]) -> list[Break]:
        """Every other checker's breaks under `paths`, replayed (`--evidence`)."""
        ...

    def every_instance(self, entry: dict[str, Any], proofs: Sequence[Proof],
                       sources: Sequence[str]) -> dict[str, Any] | None:
        """With `--parametric`: which environments of `sources` the entry's breaks and the
        proofs decide for every instance (None: nothing to say); `LatticeDefect` if a proof
        covers a break."""
        ...

    def witness_stem(self, variant: str, drift: Sequence[str], prop: str) -> str:
        """The name of a witness's file, without its suffix."""
        ...

    def check_witness(self, request: LatticeRequest[R], variant: str, prop: str,
                      drift: Sequence[str], data: dict[str, Any]) -> list[str]:
        """`WitnessDefect` unless the trace is a witness of `prop` under `drift` the search
        may stand on; else its notes for the report."""
        ...


def add_lattice_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--lattice", action="store_true",
                        help="search the drift lattice: per variant and property, the minimal "
                             "sets of drift sources that break it (writes --json, traces in "
                             "--out)")
    parser.add_argument("--sources", default=None,
                        help="with --lattice: the drift sources whose subsets are searched, "
                             "joined by + (default: D1+...+D11)")
    parser.add_argument("--max-size", type=int, default=None,
                        help="with --lattice: the largest environment searched bottom-up "
                             "(default: the profile's, ci 2, nightly 3)")
    parser.add_argument("--evidence", type=Path, action="append", default=None,
                        metavar="RECORDS",
                        help="with --lattice: a records file (or folder) whose counterexamples "
                             "(Z3, Hypothesis, explorer, scenarios) are replayed and merged, "
                             "with the pair cells' witnesses (repeatable)")
    parser.add_argument("--parametric", action="store_true",
                        help="with --lattice: run Z3's all-instance proof (V3's S1-S3) and "
                             "seed the search with it")
    parser.add_argument("--resume", type=Path, default=None, metavar="FILE",
                        help="with --lattice: keep every exploration's outcome in FILE and "
                             "start from those already there (compressed when FILE ends in "
                             ".gz)")
    parser.add_argument("--no-explore", action="store_true",
                        help="with --lattice --resume: answer from the kept outcomes only, "
                             "exploring nothing new")
    parser.add_argument("--items", type=int, default=None, metavar="N",
                        help="with --lattice: N items per request at every rung (default: "
                             "the profile's, 2; D8 adds a third)")
    parser.add_argument("--duplicates", action="store_true",
                        help="with --lattice: a request may name one identity twice, at "
                             "every rung (default: the profile's, each identity once)")
    parser.add_argument("--reused-bytes", type=int, default=None, metavar="N",
                        help="with --lattice: the size of D7's second content of every "
                             "lettered identity, both sides (default: the profile's, 2; 1: "
                             "every content 1 byte)")


def add_rung_arguments(parser: argparse.ArgumentParser) -> None:
    """The instance's bounds and the state limit: the same words for `explore` (per cell)
    and `explore --lattice`; each defaults to the profile's."""
    parser.add_argument("--max-requests", type=int, default=None, metavar="N",
                        help="the top rung: at most N requests per run (the search climbs "
                             "to it one request at a time)")
    parser.add_argument("--unfinished", type=int, default=None, metavar="N",
                        help="at most N unfinished requests at once")
    parser.add_argument("--retries", type=int, default=None, metavar="N",
                        help="the client retries a missed request at most N times")
    parser.add_argument("--identities", type=int, default=None, metavar="N",
                        help="N base identities (a, b, c, ...), 1 byte each")
    parser.add_argument("--max-states", type=int, default=None, metavar="N",
                        help="the state limit per graph (a resource limit)")


def rung_bounds(args: argparse.Namespace) -> dict[str, int]:
    """The rung options given, by `Rung` field; `LatticeUsageError` if one is below 1 (0
    for retries)."""
    given = {"max_requests": args.max_requests, "max_in_flight": args.unfinished,
             "max_retries": args.retries, "identities": args.identities}
    for name, option in (("max_requests", "--max-requests"), ("max_in_flight", "--unfinished"),
                         ("max_retries", "--retries"), ("identities", "--identities")):
        value = given[name]
        low = 0 if name == "max_retries" else 1
        if value is not None and value < low:
            raise LatticeUsageError(f"{option} must be >= {low}, got {value}")
    if args.max_states is not None and args.max_states < 1:
        raise LatticeUsageError(f"--max-states must be >= 1, got {args.max_states}")
    return {k: v for k, v in given.items() if v is not None}


class LatticeUsageError(ValueError):
    """Bad arguments: one line on stderr, exit 2."""


def lattice_request(args: argparse.Namespace, design: LatticeCommandDesign[R]
                    ) -> LatticeRequest[R]:
    """The request the arguments describe (`design.request`, after the checks every design
    shares); `LatticeUsageError` (or ValueError) if bad."""
    if args.environment is not None:
        raise LatticeUsageError("--environment picks matrix cells; with --lattice use --sources")
    if getattr(args, "cross_check", None) is not None:
        raise LatticeUsageError("--cross-check judges matrix cells; it does not apply to "
                                "--lattice")
    if args.jobs < 1:
        raise LatticeUsageError(f"--jobs must be >= 1, got {args.jobs}")
    if args.max_size is not None and args.max_size < 0:
        raise LatticeUsageError(f"--max-size must be >= 0, got {args.max_size}")
    return design.request(args)


def run_lattice(args: argparse.Namespace, design: LatticeCommandDesign[R]) -> int:
    """Search `design`'s lattice the arguments ask for, write its JSON and witnesses, print
    its table and one line of figures; the exit code (module docstring)."""
    try:
        request = lattice_request(args, design)
        evidence = [b for b in design.evidence(args.evidence or [])
                    if set(b.environment) <= set(request.sources)
                    and b.variant in request.variants]
        earlier = read_outcomes(args.resume, request, design) if args.resume else ()
    except ValueError as error:
        return usage_exit(error)
    if args.no_explore and not earlier:
        return usage_exit("--no-explore needs --resume FILE with kept outcomes")
    request = replace(request, earlier=earlier, explore=not args.no_explore,
                      proofs=design.proofs() if args.parametric else ())
    started, cpu_before = time.perf_counter(), _cpu()
    before = earlier_wall(args.resume)

    def keep(known: dict[str, Knowledge]) -> None:
        assert args.resume is not None
        write_outcomes(args.resume, request, known, before + time.perf_counter() - started)

    try:
        known = search(request, checkpoint=keep if args.resume and not args.no_explore else None)
    except ClusterError as error:
        return usage_exit(error)
    seconds = time.perf_counter() - started
    entries = summarise(request, known, evidence)
    out = args.out if args.out != Path("build/explore/counterexamples") else DEFAULT_OUT
    try:
        if args.parametric:
            _decide_every_instance(entries, request, design)
        write_witnesses(request, design, known, entries, out, evidence)
    except LatticeDefect as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_FAILED
    outcomes = [o for k in known.values() for o in k.explored]
    timing = RunTiming(seconds, before, cpu_before)
    run = _run_figures(args, request, outcomes, timing, len(evidence))
    for entry in entries:
        entry["run"] = run
    target = args.json if args.json is not None else DEFAULT_JSON
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(entries, indent=1) + "\n")
    print(lattice_table(entries))
    print(_figures_line(request, outcomes, run, seconds) + f"; JSON in {target}, traces in {out}")
    if (not outcomes or run["states"] == 0) and not args.no_explore:
        print("no environment explored: nothing was checked")
        return EXIT_FAILED
    return EXIT_OK



@dataclass(frozen=True)
class RunTiming:
    """A lattice run's time: the wall `seconds` this run explored, the wall seconds of the
    kept runs it resumed (`before`), and this process's CPU time when it started."""

    seconds: float
    before: float
    cpu_before: float


def _run_figures(args: argparse.Namespace, request: LatticeRequest[R],
                 outcomes: list[EnvOutcome], timing: RunTiming, evidence: int
                 ) -> dict[str, Any]:
    """The run every entry records (`run`): command, profile, explorations, states, wall and
    CPU time, workers, what was resumed, merged and proved. Answering from kept outcomes
    explores nothing: its wall time is the kept runs' alone, so rendering again writes the
    same page."""
    seconds, before, cpu_before = timing.seconds, timing.before, timing.cpu_before
    return {
        "profile": args.profile, "command": _command(args),
        "explorations": len(outcomes), "cut": sum(not o.complete for o in outcomes),
        "states": sum(o.states for o in outcomes),
        "wall_seconds": round(before if args.no_explore else seconds + before, 1),
        "cpu_seconds": round(sum(o.cpu_seconds for o in outcomes)
                             or (_cpu() - cpu_before), 1),
        "processes": request.processes if request.dask is None else 0,
        "dask": request.dask is not None,
        "resumed_explorations": len(request.earlier),
        "evidence": evidence, "proofs": len(request.proofs),
        "parts": earlier_parts(args.resume) if args.no_explore else [],
    }


def _figures_line(request: LatticeRequest[R], outcomes: list[EnvOutcome], run: dict[str, Any],
                  seconds: float) -> str:
    """The run's figures in one line (the command prints it last, with where it wrote)."""
    sizes = sorted(o.states for o in outcomes)
    median = sizes[len(sizes) // 2] if sizes else 0
    return (f"lattice over {'+'.join(request.sources)} (bottom-up to {request.max_size} "
            f"sources, rungs {' / '.join(r.short() for r in request.ladder)}, "
            f"{request.max_states} states per graph): {run['explorations']} explorations "
            f"({run['cut']} cut by the state limit; {run['resumed_explorations']} resumed), "
            f"{run['states']} states (median {median} per exploration), {seconds:.1f} s "
            f"wall, {run['cpu_seconds']} s CPU with {request.processes} process(es); "
            f"{run['evidence']} replayed breaks of other checkers")


def _decide_every_instance(entries: list[dict[str, Any]], request: LatticeRequest[R],
                           design: LatticeCommandDesign[R]) -> None:
    """Per entry, which of the 2^n environments the replayed breaks and the all-instance
    proofs decide for every instance (`design.every_instance`), in the entry's
    `every_instance` key."""
    for entry in entries:
        answer = design.every_instance(entry, request.proofs, request.sources)
        if answer is not None:
            entry["every_instance"] = answer


def _cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _command(args: argparse.Namespace) -> str:
    """The command line that wrote the JSON, from the parsed options (paths as given)."""
    parts = ["python -m model_checks explore --lattice"]
    if args.profile != "ci":
        parts.append(f"--profile {args.profile}")
    for option, value in (("--variant", args.variant), ("--evidence", args.evidence)):
        for item in value or []:
            parts.append(f"{option} {item}")
    for option, value in (("--sources", args.sources), ("--max-size", args.max_size),
                          ("--max-requests", args.max_requests),
                          ("--unfinished", args.unfinished), ("--retries", args.retries),
                          ("--identities", args.identities), ("--max-states", args.max_states),
                          ("--items", args.items), ("--reused-bytes", args.reused_bytes)):
        if value is not None:
            parts.append(f"{option} {value}")
    if getattr(args, "duplicates", False):
        parts.append("--duplicates")
    if args.parametric:
        parts.append("--parametric")
    if args.resume is not None:
        parts.append(f"--resume {args.resume.as_posix()}")
    if args.no_explore:
        parts.append("--no-explore")
    return " ".join(parts)


OUTCOMES_FORMAT = "lattice-outcomes/1"


def earlier_parts(path: Path | None) -> list[dict[str, Any]]:
    """The parts of the run kept in `path` (variants, wall seconds, processes), as a merge of
    outcome files lists them (`parts`), or the file's own run as one part."""
    if path is None or not result_files.exists(path):
        return []
    try:
        data = result_files.read(path)
    except (OSError, ValueError):
        return []
    if isinstance(data.get("parts"), list):
        return list(data["parts"])
    return [{"variants": data.get("variants", []), "wall_seconds": data.get("wall_seconds", 0),
             "processes": data.get("processes")}]


def earlier_wall(path: Path | None) -> float:
    """The wall time the runs kept in `path` took (0 without one)."""
    if path is None or not result_files.exists(path):
        return 0.0
    try:
        return float(result_files.read(path).get("wall_seconds", 0.0))
    except (OSError, ValueError, TypeError, AttributeError):
        return 0.0


def write_outcomes(path: Path, request: LatticeRequest[R], known: dict[str, Knowledge],
                   wall: float = 0.0) -> None:
    """Every outcome so far, with the ladder, limit and sources they were explored with, and
    the wall time of the runs that explored them."""
    kept, others = [], []
    if result_files.exists(path):  # other variants' outcomes, and their parts, stay
        kept = [o for o in result_files.read(path)["outcomes"]
                if o["variant"] not in request.variants]
        others = [p for p in earlier_parts(path)
                  if not set(p.get("variants", ())) & set(request.variants)]
    this = {"variants": list(request.variants), "processes": request.processes,
            "wall_seconds": round(wall - sum(p.get("wall_seconds", 0) for p in others), 1)}
    data = {"format": OUTCOMES_FORMAT, "wall_seconds": round(wall, 1),
            "processes": request.processes, "variants": list(request.variants),
            "parts": [*others, this],
            "ladder": [_rung_fields(r) for r in request.ladder],
            "max_states": request.max_states, "sources": list(request.sources),
            "outcomes": kept + [asdict(o) for k in known.values() for o in k.explored]}
    result_files.write(path, data)


def _rung_fields(rung: object) -> dict[str, Any]:
    """A rung's fields, as `LatticeCommandDesign.rung` reads them back (a rung is a frozen
    dataclass)."""
    if not is_dataclass(rung) or isinstance(rung, type):
        raise TypeError(f"a rung is a dataclass instance, got {type(rung).__name__}")
    return asdict(rung)


def read_outcomes(path: Path, request: LatticeRequest[R], design: LatticeCommandDesign[R]
                  ) -> tuple[EnvOutcome, ...]:
    """The outcomes kept in `path` (none if it does not exist yet); `LatticeUsageError` if it
    was written for another ladder, state limit or set of sources."""
    if not result_files.exists(path):
        return ()
    try:
        data = result_files.read(path)
        ladder_then = tuple(design.rung(r) for r in data["ladder"])
        same = (data["format"] == OUTCOMES_FORMAT and data["max_states"] == request.max_states
                and tuple(data["sources"]) == request.sources)
        outcomes = tuple(
            EnvOutcome(**{**o, "environment": tuple(o["environment"]),
                          "states_per_rung": tuple(o["states_per_rung"])})
            for o in data["outcomes"])
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise LatticeUsageError(f"--resume {path}: unreadable outcomes ({error})") from None
    if not same or ladder_then != request.ladder[:len(ladder_then)]:
        raise LatticeUsageError(f"--resume {path}: written for another ladder, state limit or "
                                "set of sources; use a new file")
    return tuple(o for o in outcomes if o.variant in request.variants)


WITNESS_SUFFIX = ".json.gz"
"""A lattice witness is kept compressed (`kernel.result_files`, byte-stable; `replay` and
every reader take it as it is): a run writes hundreds of them, each state in full."""


def write_witnesses(
    request: LatticeRequest[R], design: LatticeCommandDesign[R], known: dict[str, Knowledge],
    entries: list[dict[str, Any]], out: Path, evidence: list[Break] | None = None,
) -> None:
    """Write each entry's traces under `out`, gzip-compressed (`WITNESS_SUFFIX`), and fill
    in their paths (old files there, in either form, are removed first: the folder holds
    exactly this run's witnesses)."""
    out.mkdir(parents=True, exist_ok=True)
    for old in result_files.json_files(out):
        old.unlink()
    for entry in entries:
        variant, prop = entry["variant"], entry["property"]
        for witness in entry["traces"]:
            wanted = TraceWanted(variant, prop, witness["drift"], witness["checker"],
                                 witness.get("source"))
            data = trace_data(known, wanted, evidence or [])
            witness["notes"] = design.check_witness(request, variant, prop, witness["drift"],
                                                    data)
            path = out / f"{design.witness_stem(variant, witness['drift'], prop)}{WITNESS_SUFFIX}"
            itf.write_trace(path, data)
            witness["trace"] = path.as_posix()


def lattice_table(entries: list[dict[str, Any]]) -> str:
    """One line per variant and property: the minimal breaking sets, and what is undecided."""
    lines = []
    for e in entries:
        sets = " ".join(Environment.of(s).text for s in e["minimal_breaking"]) or "-"
        verdict = "holds everywhere" if e["holds_everywhere"] else f"minimal breaking: {sets}"
        if e["unsettled_breaking"]:
            verdict += "; breaks, minimality unsettled: " + " ".join(
                "+".join(s) for s in e["unsettled_breaking"])
        if not e["complete"]:
            verdict += f"; {e['undecided_count']} environment(s) undecided"
        lines.append(f"{e['variant']} {e['property']}: {verdict}")
    return "\n".join(lines)
