"""Do the verdicts of `prove` or `simulate` depend on the machine's load? Run the same
selection twice, once alone and once with CPU-bound processes beside it, and compare every
record and counterexample file.

    .venv/bin/python benchmarks/check_load_independence.py [--command prove|simulate]
        [--burners 2] [--compare IDLE.json LOADED.json] [-- ARGUMENTS ...]

Without `--compare`, it runs `python -m model_checks COMMAND ARGUMENTS` (default command
`prove`; default arguments: the main job's selection of that command, `jobs.phases.MAIN_JOB`)
twice into build/load-independence/{idle,loaded}/, the second time with `--burners`
busy-looping processes started beside it, and prints each run's wall time, then the
comparison. With `--compare`, it only compares two records files written earlier (e.g. a
clean-clone CI main job's `parts/3-prove.json` and a run on a busy machine). Records are
compared on every field but `seconds` (wall time) and the folder of the counterexample file;
counterexample files are compared by content. Exit 0: identical; 1: a record or a trace
differs (each difference is printed); 2: usage error.

Every Z3 query is bounded by rlimit units (`model_checks/smt/budget.py`) and Hypothesis's
shrinking by a count (`simulate.profiles.SimulateProfile.max_shrinks`), never by seconds, so the
expected outcome is "identical" whatever the load; this script is how that claim is
re-measured (docs/checkers.md, "Verdicts do not depend on the machine").
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from model_checks.jobs import phases

Key = tuple[str, tuple[str, ...], str, str]


def _burn() -> None:
    while True:
        pass


def comparable(records_file: Path) -> dict[Key, dict[str, Any]]:
    """Each record without its wall time and with its counterexample file's content inlined."""
    out: dict[Key, dict[str, Any]] = {}
    for record in json.loads(records_file.read_text())["records"]:
        key = (record["variant"], tuple(record["environment"]), record["property"],
               record["checker"])
        kept = {k: v for k, v in record.items() if k not in ("seconds", "counterexample_path")}
        path = record.get("counterexample_path")
        if path:
            kept["trace"] = json.loads(_trace_file(records_file, Path(path)).read_text())
        out[key] = kept
    return out


def _trace_file(records_file: Path, path: Path) -> Path:
    """A record's counterexample file: a relative path is relative to the folder the run was
    started in, which is the records file's folder or one of its parents."""
    if path.is_absolute():
        return path
    for folder in records_file.resolve().parents:
        if (folder / path).is_file():
            return folder / path
    raise SystemExit(f"error: {path} (named in {records_file}): no such file")


def compare(idle: Path, loaded: Path) -> int:
    a, b = comparable(idle), comparable(loaded)
    differing = sorted(k for k in a.keys() & b.keys() if a[k] != b[k])
    missing = sorted(a.keys() ^ b.keys())
    traces = sum(1 for k in a.keys() & b.keys() if "trace" in a[k])
    print(f"records: {len(a)} idle, {len(b)} loaded; {len(differing)} differ, "
          f"{len(missing)} in one run only; {traces} counterexample files compared by content")
    for key in [*differing, *missing]:
        print(f"  differs: {key[0]} {'+'.join(key[1]) or 'none'} {key[2]} ({key[3]})")
    return 1 if differing or missing else 0


def main_job_arguments(command: str) -> list[str]:
    """The main job's arguments of `command` (its phase in `jobs.phases.MAIN_JOB`)."""
    return next(list(p.argv[1:]) for p in phases.MAIN_JOB if p.command == command)


def run(command: str, arguments: list[str], out: Path, burners: int) -> float:
    out.mkdir(parents=True, exist_ok=True)
    processes = [multiprocessing.Process(target=_burn, daemon=True) for _ in range(burners)]
    for process in processes:
        process.start()
    start = time.perf_counter()
    try:
        subprocess.run([sys.executable, "-m", "model_checks", command, *arguments,
                        "--json", str(out / "records.json")], cwd=out, check=False,
                       stdout=subprocess.DEVNULL)
    finally:
        for process in processes:
            process.terminate()
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--command", choices=("prove", "simulate"), default="prove")
    parser.add_argument("--burners", type=int, default=2)
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("IDLE", "LOADED"))
    parser.add_argument("arguments", nargs="*")
    args = parser.parse_args()
    if args.compare:
        idle, loaded = args.compare
        if not (idle.is_file() and loaded.is_file()):
            parser.error("--compare: both records files must exist")
        return compare(idle, loaded)
    arguments = args.arguments or main_job_arguments(args.command)
    root = Path("build/load-independence").resolve()
    for name, burners in (("idle", 0), ("loaded", args.burners)):
        seconds = run(args.command, arguments, root / name, burners)
        print(f"{name} ({burners} CPU-bound processes beside it): {seconds:.0f} s wall")
    return compare(root / "idle" / "records.json", root / "loaded" / "records.json")


if __name__ == "__main__":
    sys.exit(main())
