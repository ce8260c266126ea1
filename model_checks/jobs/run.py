"""Running a job: the scenarios, then the other phases side by side (`jobs.schedule`: as many
at once as the machine has cores, a phase that cross-checks the phases before it after all of
them), each in a process of its own with its output in a details file and one progress line
on stderr as it ends; then the summary with its legend, the named instances' verdicts against
the project's answers (`jobs.expected`), the phases' exit codes, which code ran and the records
file, within `WIDTH` columns. The summary, the records and `--verbose`'s copy of each phase's
output keep the phases' order, whatever order they end in. Worst exit wins.

Where the compiled build of spec/ and the explorer's per-state modules is fresh
(`kernel.compiled_build`: built by `scripts/compile-spec` from the sources the job runs), each
phase that may (`Phase.compiled`: a named instance's search, the main job's matrix explorer
and Hypothesis sweep) runs on it (`python -m model_checks` with the build first on the path);
every other phase runs on the interpreted packages, as every phase does without a fresh
build. A stale build never runs: the summary says which code ran and why.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import resource
import shutil
import subprocess
import sys
import textwrap
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO, cast

from model_checks.answers import load as load_answers
from model_checks.answers.summary import LEGEND, contradiction_count, matrix_summary, summary
from model_checks.executor import add_dask_argument, backend_for
from model_checks.explore.instance_command import read_figures
from model_checks.jobs import phases as jobs
from model_checks.jobs import schedule
from model_checks.jobs.expected import NamedVerdict, judge
from model_checks.jobs.phases import SCENARIOS, Output, Phase
from model_checks.kernel import compiled_build
from model_checks.kernel.compiled_build import BuildStatus
from model_checks.kernel.exits import EXIT_MISMATCH, EXIT_USAGE
from model_checks.kernel.verdict_records import VerdictRecord, read_records, write_records
from model_checks.scenarios.run import records as scenario_records
from model_checks.scenarios.run import replay_all, report_scenarios

WIDTH = 100
"""The main job's default output stays within this many columns."""

SWEEPS = frozenset({"simulate", "prove", "explore", "mutants"})
"""Commands whose tasks go through the executor and that take `--dask ADDRESS` (the main and
nightly jobs pass it on to them). A new sweep joins here when it takes the flag
(`executor.add_dask_argument`, `executor.sweep(tasks, dask=args.dask)`)."""


@dataclass(frozen=True)
class PhaseRun:
    """A phase as a job runs it: its number in the job, and the folder of its details file."""

    number: int
    phase: Phase
    folder: Path

    @property
    def argv(self) -> tuple[str, ...]:
        return self.phase.argv

    @property
    def command(self) -> str:
        return "python -m model_checks " + " ".join(self.argv)

    @property
    def label(self) -> str:
        """The command line with each long selection (LONG_ARGUMENTS) said in a few words; a
        named instance's search by its cell (the summary names its instance)."""
        named = self.phase.named
        if named is not None:
            return (f"explore --instance (named above): {named.variant} {named.environment} "
                    f"{named.property_id}")
        text = " ".join(self.argv)
        for arguments, short in jobs.LONG_ARGUMENTS:
            text = text.replace(" ".join(arguments), short)
        return text

    @property
    def details(self) -> Path:
        return self.folder / f"{self.number}-{self.phase.command}.txt"


@dataclass(frozen=True)
class PhaseResult:
    """What a phase gave the job: its exit code, the records the summary merges, a named
    instance's verdict against the project's answer (`Output.EXPECTED` only), and its wall
    and CPU seconds (user + system of its process and of every process it waited for)."""

    code: int
    records: list[VerdictRecord]
    named: NamedVerdict | None = None
    seconds: float = 0.0
    cpu_seconds: float = 0.0


class _Tee(io.TextIOBase):
    """Writes to several text streams: the details file, and the terminal with --verbose."""

    def __init__(self, *streams: TextIO) -> None:
        self.streams = streams

    def write(self, text: str) -> int:
        for stream in self.streams:
            stream.write(text)
        return len(text)

    def flush(self) -> None:
        for stream in self.streams:
            stream.flush()


def _progress(text: str) -> None:
    """A progress line (stderr, so the standard output leads with the summary)."""
    print(text[:WIDTH], file=sys.stderr, flush=True)


def _elapsed(seconds: float) -> str:
    return f"{int(seconds) // 60}:{int(seconds) % 60:02d}"


def _run_scenarios(run: PhaseRun, verbose: bool) -> PhaseResult:
    """The scenario suite, in the job's process before any other phase starts, its output in
    its details file (and on the terminal if verbose)."""
    run.details.parent.mkdir(parents=True, exist_ok=True)
    began, cpu_began = time.perf_counter(), cpu_seconds()
    with run.details.open("w") as details:
        stream = cast(TextIO, _Tee(details, sys.stdout)) if verbose else details
        with contextlib.redirect_stdout(stream):
            print(f"$ {run.command}", flush=True)
            verdicts = replay_all()
            code = report_scenarios(verdicts)
    return PhaseResult(code, scenario_records(verdicts), None, time.perf_counter() - began,
                       cpu_seconds() - cpu_began)


def _run_phase(run: PhaseRun, parts: Path, build: BuildStatus) -> PhaseResult:
    """Run one phase as `python -m model_checks` in a process of its own, its standard output
    and error in its details file: on the compiled build where `build` is fresh and the phase
    may run on it (`Phase.compiled`), else on this checkout's packages. A cross-checking
    phase reads the records of the phases before it (`_records_before`)."""
    phase = run.phase
    run.details.parent.mkdir(parents=True, exist_ok=True)
    part_json = parts / f"{run.number}-{phase.command}.json"
    extra = ["--cross-check", str(_records_before(run, parts))] if phase.cross_check else []
    if phase.output is Output.EXPECTED:  # its traces apart from the matrix explorer's
        extra += ["--out", str(parts / f"{run.number}-traces")]
    argv = [*run.argv, *extra, "--json", str(part_json)]
    env = build.environment() if build.fresh and phase.compiled else _checkout_environment()
    began = time.perf_counter()
    with run.details.open("w") as details:
        details.write(f"$ {run.command}\n")
        details.flush()
        with subprocess.Popen([sys.executable, "-m", "model_checks", *argv],
                              env=dict(env, PYTHONUNBUFFERED="1"), stdout=details,
                              stderr=subprocess.STDOUT) as process:
            # wait4, not wait: the process's CPU time and its waited-for children's
            _, status, usage = os.wait4(process.pid, 0)
            process.returncode = code = os.waitstatus_to_exitcode(status)
    seconds, cpu = time.perf_counter() - began, usage.ru_utime + usage.ru_stime
    with_records = phase.output in (Output.RECORDS, Output.EXPECTED)  # not a lattice's JSON
    found = read_records(part_json) if with_records and part_json.exists() else []
    if phase.output is Output.EXPECTED:
        assert phase.named is not None, "an EXPECTED phase names its instance"
        named = judge(phase.named, code, found, read_figures(part_json), load_answers())
        return PhaseResult(code if code == EXIT_USAGE else named.code, [], named, seconds, cpu)
    return PhaseResult(code, found, None, seconds, cpu)


def _records_before(run: PhaseRun, parts: Path) -> Path:
    """A folder holding a copy of every JSON file the phases before `run` wrote at the top of
    `parts` (their names start with their numbers), and no other: what a cross-checking phase
    reads, however far the phases after it have got (`jobs.schedule` starts it once every
    phase before it has ended)."""
    folder = parts / f"before-{run.number}"
    folder.mkdir(parents=True, exist_ok=True)
    for found in sorted(parts.glob("*.json")):
        number = found.name.split("-", 1)[0]
        if found.is_file() and number.isdigit() and int(number) < run.number:
            shutil.copyfile(found, folder / found.name)
    return folder


def _checkout_environment() -> dict[str, str]:
    """This process's environment with this checkout first on the path: a phase's process
    imports the packages the job runs."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(compiled_build.ROOT), *([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])])
    return env


def _tail(path: Path, lines: int = 8) -> list[str]:
    text = path.read_text().splitlines() if path.exists() else []
    return ["    " + line[: WIDTH - 4] for line in text[-lines:]]


def _wrapped(text: str) -> str:
    return "\n".join(textwrap.wrap(text, WIDTH, subsequent_indent="  ",
                                   break_on_hyphens=False, break_long_words=False))


def main_job(args: argparse.Namespace) -> int:
    """The main job (no subcommand): the scenarios, then every phase of MAIN_JOB."""
    return run_phases("main job", jobs.MAIN_JOB, args)


def nightly_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", type=Path, default=Path("build/nightly/records.json"),
                        help="where to write every checker's verdict records (each phase's "
                             "output goes to the same folder)")
    parser.add_argument("--verbose", action="store_true",
                        help="print each phase's full output too, not only the summary")
    add_dask_argument(parser)
    parser.add_argument("--part", action="append", default=None, metavar="NAME",
                        choices=sorted(jobs.NIGHTLY_PARTS),
                        help="run only this part of the nightly job (repeatable; default: "
                             "every part): " + ", ".join(jobs.NIGHTLY_PARTS))


def run_nightly(args: argparse.Namespace) -> int:
    """`nightly`: the main job's shape over NIGHTLY, the deep budgets (its own records file);
    it also fails (exit 1) on any cell the summary marks as contradicting the expected matrix,
    pair cells included (explore checks its own verdicts against the main matrix only).
    `--part NAME` runs only those parts of NIGHTLY_PARTS, in NIGHTLY's order."""
    chosen: list[str] | None = args.part
    phases = jobs.NIGHTLY if not chosen else tuple(
        phase for name, part in jobs.NIGHTLY_PARTS.items() if name in chosen for phase in part
    )
    name = "nightly" if not chosen else "nightly (" + ", ".join(
        part for part in jobs.NIGHTLY_PARTS if part in chosen) + ")"
    return run_phases(name, phases, args, fail_on_contradiction=True)


def run_phases(name: str, phases: Sequence[Phase], args: argparse.Namespace,
               fail_on_contradiction: bool = False) -> int:
    """The scenarios, then `phases`, side by side as `jobs.schedule` says, each run as the
    module docstring says; `args.dask` sends the sweeps' jobs to that cluster (checked before
    any phase runs). Worst exit wins; with
    `fail_on_contradiction`, a contradiction of the expected matrix is at least exit 1."""
    out: Path = args.json
    folder = out.parent
    if args.dask is not None:  # an unreachable cluster is a usage error before any work
        backend_for(args.dask, 1).close()
    runs = [PhaseRun(n, with_dask(phase, args.dask), folder)
            for n, phase in enumerate((SCENARIOS, *phases), start=1)]
    # A run's parts are its own: an earlier run's (conformance writes trace files beside its
    # records) must never reach this run's cross-check.
    shutil.rmtree(folder / "parts", ignore_errors=True)
    build = compiled_build.status()
    at_once = schedule.cores()
    _progress(f"{name}: {len(runs)} phases, up to {at_once} at once, each one's output in "
              f"{folder}/N-NAME.txt" + ("" if args.verbose else " (--verbose prints it)"))
    _progress(f"{name}: {code_run(build, phases)}")
    start, cpu_start = time.perf_counter(), cpu_seconds()
    results: dict[int, PhaseResult] = {}

    def ended(run: PhaseRun, result: PhaseResult) -> None:
        results[run.number] = result
        _progress(f"[{run.number}/{len(runs)}] {run.label}: exit {result.code}, "
                  f"{_elapsed(result.seconds)}, CPU {_elapsed(result.cpu_seconds)} "
                  f"(total {_elapsed(time.perf_counter() - start)}, CPU "
                  f"{_elapsed(cpu_seconds() - cpu_start)})")

    ended(runs[0], _run_scenarios(runs[0], args.verbose))
    rest = runs[1:]
    shown = 1  # with --verbose, the phases whose output is on the terminal: 1..shown
    for index, result in schedule.side_by_side(
            len(rest), schedule.waits_for([run.phase for run in rest]), at_once,
            lambda index: _run_phase(rest[index], folder / "parts", build)):
        ended(rest[index], result)
        while args.verbose and shown < len(runs) and shown + 1 in results:
            shown += 1
            sys.stdout.write(runs[shown - 1].details.read_text())
            sys.stdout.flush()
    records = [record for run in runs for record in results[run.number].records]
    named = [result.named for run in runs
             if (result := results[run.number]).named is not None]
    codes = [(run, results[run.number].code, results[run.number].seconds) for run in runs]
    write_records(out, records)
    (folder / "summary-by-checker.txt").write_text(matrix_summary(records) + "\n")
    print(report(records, codes, out, named, code_run(build, phases)))
    worst = max(code for _, code, _ in codes)
    if fail_on_contradiction and contradiction_count(records)[0]:
        worst = max(worst, EXIT_MISMATCH)
    return worst


def code_run(build: BuildStatus, phases: Sequence[Phase]) -> str:
    """Which code the job's phases run, in one line: the build's status, and which phases
    run on it where it is fresh."""
    on_build = sum(phase.compiled for phase in phases)
    if not build.fresh or not on_build:
        return f"every phase {build.words()}" if not build.fresh else "every phase interpreted"
    rest = "; the others interpreted" if on_build < len(phases) else ""
    kinds = dict.fromkeys("named instances' searches" if phase.named else phase.command
                          for phase in phases if phase.compiled)
    return f"{on_build} phase(s) ({', '.join(kinds)}) {build.words()}{rest}"


def cpu_seconds() -> float:
    """CPU time (user + system) of this process and of every child process it has waited
    for (a sweep's pool and job processes end within their phase), so that a phase's cost is
    measured apart from the machine's load. A cluster's workers are not counted."""
    own, children = (resource.getrusage(who)
                     for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def with_dask(phase: Phase, dask: str | None) -> Phase:
    """A sweep's phase sent to the cluster at `dask` (others run here, a named instance's
    one search too)."""
    if dask is None or phase.command not in SWEEPS or phase.output is Output.EXPECTED:
        return phase
    return Phase((*phase.argv, "--dask", dask), phase.output, phase.cross_check, phase.named)


def report(records: list[VerdictRecord], codes: list[tuple[PhaseRun, int, float]],
           out: Path, named: Sequence[NamedVerdict] = (), code_words: str = "") -> str:
    """The main job's standard output: the summary and its legend first, the named
    instances' verdicts against the project's answers, then each phase's exit code (with the
    tail of its details where it failed), which code ran, then the files written."""
    wrong, judged = contradiction_count(records)
    lines = ["== summary: the project's answer per environment, variant and property", *LEGEND,
             "", summary(records, load_answers()), "",
             f"{judged} cells judged; {wrong} contradict the expected matrix"
             + (" (marked !)" if wrong else "")]
    if named:
        failed = sum(not verdict.passed for verdict in named)
        lines += ["", "== named instances: each verdict against the project's answer "
                  "(model_checks/answers)",
                  *(textwrap.fill(verdict.line(), WIDTH, initial_indent="  ",
                                  subsequent_indent="    ", break_on_hyphens=False,
                                  break_long_words=False) for verdict in named),
                  f"{len(named)} named instances judged; {failed} fail"]
    lines += ["", "== phases"]
    for run, code, seconds in codes:
        lines.append(f"  exit {code}  {_elapsed(seconds):>5}  {run.label}")
        if code != 0:
            lines += [f"  the end of {run.details}:", *_tail(run.details)]
    if code_words:
        lines.append(_wrapped(f"code run: {code_words}"))
    lines += [
        _wrapped(f"{len(records)} verdict records in {out}; each checker's results per cell "
                 f"in {out.parent / 'summary-by-checker.txt'}; each phase's output in "
                 f"{out.parent}/N-NAME.txt"),
        _wrapped(snapshot_status(records, out)),
    ]
    return "\n".join(lines)


def snapshot_status(records: list[VerdictRecord], out: Path) -> str:
    """One line: whether docs/results/ (the docs' snapshot) has this run's verdict kinds."""
    from model_checks.docs import snapshot

    docs = Path(__file__).resolve().parents[2] / "docs"
    try:
        committed = snapshot.read_run(docs / snapshot.RECORDS)
    except snapshot.SnapshotError as error:
        return f"docs snapshot: {error}"
    lost = snapshot.undecided_here(records, committed)
    if lost:
        return (f"docs snapshot kept: this run leaves {len(lost)} cell(s) undecided that the "
                f"snapshot decides ({snapshot.label(lost[0])} first); do not refresh it from "
                "this run")
    differ = snapshot.differing_cells(records, committed)
    if not differ:
        return "docs snapshot is current: its verdicts are this run's"
    return (f"docs snapshot differs from this run in {differ} (checker, cell) verdicts; "
            f"refresh it: python -m model_checks docs --from-run {out}")
