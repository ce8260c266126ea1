"""States per CPU-second of the exhaustive explorer, against a naive breadth-first search.

Both search the same cells of the explorer's instance (`model_checks.explore.instance`) with
`spec.enabled` and `spec.step`: the naive search keeps a set of states and nothing else; the
explorer also renames processing ids and interchangeable identities (its two reductions),
stores every edge, and then judges every property and lemma on the complete graph; the
`nosym` columns build the same graph without identity symmetry (same run, same machine).
Printed per cell: states, edges, diameter, and the medians of `--repeat` runs (states per
CPU-second, process time, and CPU seconds to build and judge the whole cell); never
asserted. CPU time, not wall time: other processes on a shared machine slow the wall clock.

`--memory` adds bytes per stored state (tracemalloc, traced allocations of one build): the
graph right after the search, holding its states for the judge (`held`); the graph at rest,
after `release_states` (`rest`: fingerprints and arrays, states rebuilt on demand); the
peak of a lean search (`keep_states=False`) and the peak while judging.

`--baseline DIR` runs the same cells, in the same run, on the tree at DIR (a checkout of
another commit, e.g. `git worktree add /tmp/base 7e0d98c`, the commit this script's
baseline figures below were taken at) in a subprocess, alternating with this tree, and
prints the ratios of the medians (`now / base` for rates, `base / now` for seconds and
bytes). A baseline tree older than the lean graph has no `--memory` split: its one figure
is its graph after the search, which kept every state.

    .venv/bin/python benchmarks/bench_explore.py [--cells V2_D3,V3_D7,V2_D7@3] [--repeat 3]
        [--memory] [--baseline DIR] [--por-cells V2_D1_D7@3,V3_D1_D7@3] [--phases]
    .venv/bin/python benchmarks/bench_explore.py --rumur [--named-rows 1,4] [--max-states N]
        [--compiled | --rumur-alone]
    .venv/bin/python benchmarks/bench_explore.py --compiled [--repeat 3] [--cells ...]
    .venv/bin/python benchmarks/bench_explore.py --named --compiled --named-forget slots
        [--repeat 3] [--named-rows 1,4,6]

`--compiled` runs the same cells, in the same run, on the compiled build of this tree
(`scripts/compile-spec`: spec/ and the explorer's per-state modules compiled with mypyc, in
build/mypyc/) in a subprocess, alternating with the pure packages here, and prints the ratios
of the medians (`compiled / pure` for rates, `pure / compiled` for seconds); with `--named`,
each run of a row is followed by the same command on the compiled build (`python -m
model_checks explore ...` in a subprocess), and the table gives the ratios. A build that is
absent or older than its sources is refused (`tests/spec/test_spec_compiled.py` says why).

`--phases` prints instead where each cell's CPU goes on this tree (`phases`): the build and
the judge, and the build's parts, each timed alone over the cell's own states and edges.

A cell is `VARIANT_DRIFT_DRIFT` (`none`: no drift), `@N` for N requests (default 2); the
default cells end with the four 3-request cells. `+judge st/s` is the judged states per
CPU-second: states over the CPU seconds to build the graph and judge every property and
lemma on it, then to collect the young generations once (`_settle`: the cost a tree that
pauses the cyclic collector would otherwise leave to what runs next); since the search checks
the state properties as it goes, `build st/s` includes them there, and not in a tree before
that.

The POR table decides whole cells (`--por-cells`, `@N` requests) with and without
partial-order reduction in the same run: states, and the median CPU seconds
(`time.process_time`) to build and judge every property and lemma; the reduced column adds
the bounded unreduced search that keeps counterexamples shortest (`reduction/judging.py`).

`--named` runs instead `explore --instance` (the command itself, in this process: it prints
each verdict, the states, the depth and its own CPU seconds) on the instances of `NAMED`:
the six instances an independent Murphi model was compared on (identities, requests,
unfinished, items, retries, budget), each with the property its comparison judged;
`--named-rows 1,4` picks rows, `--max-states N` is the command's state limit. Each row runs
twice in a row, without and with `--forget-ended` (ended requests forgotten in the
deduplication key, `model_checks.explore.lru_reductions.forgetting`), then a table gives both
runs' verdicts, states and CPU seconds and the ratios (without / with); `--named-forget all`
adds a third run with `--symmetric-requests` as well (request slots renumbered in the key,
`model_checks.explore.lru_reductions.slots`), `--named-forget keyed` runs only the two with
forgetting (ratios to the first); `--named-forget off|on|slots` runs one way. `--repeat N`
given with `--named` runs each row N times each way and reports the median CPU seconds (one run
by default).

`--rumur` runs instead each row of `NAMED` (`--named-rows`) on both sides, the same work: each
property the row asks given its verdict and shortest counterexample. Where the row asks one
property: `explore --instance --forget-ended --symmetric-requests --property P` as above (the
search stops at the end of the level where it breaks), then Rumur (one thread;
`scripts/setup-rumur` unpacks it where it is not) on the Murphi model generated from the same
configuration (`model_checks.explore.murphi`) with P as its invariant. Where the row asks
every property: the explorer judging, in one search with the same keys, the properties the
model translates (`translated_search`; L1, L4, S4 and the lemmas are not translated, so
neither side judges them), and Rumur until each of them has its verdict
(`murphi_run.check_each`: Rumur stops at its first failed invariant, so the model is checked
again without each one that failed). Every Rumur counterexample is replayed on the spec (a
disagreement stops the run). A table gives both sides' verdicts, states and CPU seconds,
Rumur's summed over its runs, without and with generating and compiling its checkers
(children's CPU time), the ratios explorer / Rumur, and any property whose verdict or
shortest length differs; with `--compiled`, the explorer runs each row on the compiled build
too, right after the pure run (the same verdicts and states, or the run stops), and the
table adds its CPU seconds and ratios.

Baseline: `--repeat 3 --memory --baseline DIR` (CPU seconds, steadier than wall seconds on a
shared machine); see docs/explore.md, "Speed and memory", for the table and what limits it.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib.util
import inspect
import io
import json
import os
import re
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections import deque
from collections.abc import Callable
from pathlib import Path

from model_checks.explore.graph import GraphOptions, build
from model_checks.explore.instance import explore_config
from model_checks.explore.lru_judging.judge import judge_all
from spec import Config, State, enabled, initial, step, variant_named

DEFAULT_CELLS = ("V2_D3", "V3_D7", "V1_D6", "V2_D7_D10", "V1_D8",
                 "V2_D1_D7@3", "V3_D1_D7@3", "V2_D7@3", "V1_none@3")
DEFAULT_POR_CELLS = ("V2_D1_D7@3", "V3_D1_D7@3", "V2_D7@3", "V1_none@3")


NAMED = (
    ("V2", "D1+D7", "identities=3,requests=3,unfinished=2,items=1,retries=2,budget=2", "S1"),
    ("V2", "D2+D7", "identities=3,requests=4,unfinished=2,items=1,retries=2,budget=2", "S1"),
    ("V3", "D2", "identities=3,requests=4,unfinished=2,items=2,retries=2,budget=2", "L3"),
    ("V3", "none", "identities=3,requests=3,unfinished=2,items=2,retries=2,budget=2", None),
    ("V4", "D6", "identities=3,requests=3,unfinished=2,items=2,retries=2,budget=2", None),
    ("V2", "D11", "identities=3,requests=3,unfinished=2,items=2,retries=2,budget=2", None),
    ("V4", "D6", "identities=3,requests=3,unfinished=2,items=2,retries=2,budget=2", "H1"),
)
"""(variant, environment, instance, the property compared; None: every property). The last
row asks row 5's instance for H1 only, the one property that breaks there (`explore
--property` stops at the end of the breaking level, `early_stop`)."""


NAMED_MODES = {"off": (), "on": ("--forget-ended",),
               "slots": ("--forget-ended", "--symmetric-requests")}
"""The ways a named row runs: without forgetting, with ended requests forgotten, and with
request slots renumbered too (`model_checks.explore.lru_reductions.slots`)."""
NAMED_RUNS = {"both": ("off", "on"), "all": ("off", "on", "slots"), "keyed": ("on", "slots"),
              "off": ("off",), "on": ("on",), "slots": ("slots",)}
"""`--named-forget`: which modes run, in this order."""

ROOT = Path(__file__).resolve().parents[1]
COMPILED = ROOT / "build" / "mypyc"
"""The compiled build (`scripts/compile-spec`)."""
COMPILED_ENV = {"PYTHONPATH": os.pathsep.join((str(COMPILED), str(ROOT))), "PYTHONSAFEPATH": "1"}
"""What runs a process on the compiled build: the build first on the path, and neither the
current folder nor the script's put before it (`python -m` would put the tree's own packages
first)."""


def named_table(rows: list[int], max_states: int, out: Path, forget: str,
                compiled: bool = False, repeat: int = 1) -> None:
    """`explore --instance` on each row of `NAMED` (1-based), its own output and exit; with
    `forget` "both" ("all"), each row without and with `--forget-ended` (and with
    `--symmetric-requests` too) in a row, then a table of every run's states and CPU seconds
    and their ratios to the first run ("keyed": with forgetting, then with slots too; "off",
    "on", "slots": one way). With `compiled`, each way also on the compiled build, right
    after it; with `repeat`, each run `repeat` times, the median CPU seconds reported."""
    modes = tuple(m + suffix for m in NAMED_RUNS[forget]
                  for suffix in (("", " compiled") if compiled else ("",)))
    table: list[tuple[int, dict[str, tuple[str, int, float, int]]]] = []
    for row in rows:
        runs = {}
        for mode in modes:
            done = [_explore_row(row, mode, max_states, out)[:4] for _ in range(repeat)]
            if len({d[:2] for d in done}) != 1:
                raise SystemExit(f"row {row} {mode}: the runs disagree: {done}")
            seconds = statistics.median(d[2] for d in done)
            runs[mode] = (done[0][0], done[0][1], seconds, done[0][3])
        table.append((row, runs))
    if len(modes) > 1:
        _named_summary(table, modes)


def _explore_row(row: int, mode: str, max_states: int, out: Path
                 ) -> tuple[str, int, float, int, str]:
    """`explore --instance` on row `row` of `NAMED` in `mode` (`NAMED_MODES`, " compiled"
    added: in a subprocess on the compiled build), in this process, its output printed:
    (verdict words, states, its CPU seconds, exit code, its output)."""
    from model_checks.cli import main as cli

    way, compiled = mode.removesuffix(" compiled"), mode.endswith(" compiled")
    variant, env, instance, prop = NAMED[row - 1]
    where = out / f"{row}{'' if way == 'off' else '-' + way}{'-compiled' if compiled else ''}"
    argv = ["explore", "--variant", variant, "--environment", env, "--instance",
            instance, "--max-states", str(max_states), "--json", f"{where}.json",
            "--out", str(where), *(["--property", prop] if prop else []),
            *NAMED_MODES[way]]
    print(f"$ {'(compiled) ' if compiled else ''}python -m model_checks {' '.join(argv)}",
          flush=True)
    if compiled:
        done = subprocess.run([sys.executable, "-m", "model_checks", *argv], cwd=ROOT,
                              env=dict(os.environ, **COMPILED_ENV), capture_output=True,
                              text=True, check=False)
        text, code = done.stdout, done.returncode
        if code not in (0, 4):  # 4: a break, what a row may find
            raise SystemExit(f"{text}{done.stderr}compiled run: exit {code}")
    else:
        captured = io.StringIO()
        with contextlib.redirect_stdout(captured):
            code = cli(argv)
        text = captured.getvalue()
    print(text, end="")
    print(f"exit {code}", flush=True)
    figures = _NAMED_FIGURES.search(text)
    assert figures is not None, text
    return _verdict_words(text), int(figures[1]), float(figures[2]), code, text


def _require_compiled_build() -> None:
    """Stop, saying why, unless build/mypyc holds a build of this tree's sources."""
    if not (COMPILED / "SOURCES").exists():
        raise SystemExit("--compiled: no build in build/mypyc: run `bash scripts/compile-spec`")
    test = ROOT / "tests" / "spec" / "test_spec_compiled.py"  # the one freshness check
    loaded = importlib.util.spec_from_file_location("test_spec_compiled", test)
    assert loaded is not None and loaded.loader is not None
    module = importlib.util.module_from_spec(loaded)
    loaded.loader.exec_module(module)
    stale = module.stale_sources((COMPILED / "SOURCES").read_text())
    if stale:
        raise SystemExit(f"--compiled: build/mypyc is stale ({'; '.join(stale)}): run "
                         "`bash scripts/compile-spec`")


def rumur_table(rows: list[int], max_states: int, out: Path, compiled: bool = False) -> None:
    """Per row of `NAMED`, the same work on both sides, each property given its verdict and
    shortest counterexample: where the row asks one property, the explorer (`explore
    --instance --forget-ended --symmetric-requests --property P`, stopping at the end of the
    level where it breaks) and Rumur on the model of that property; where it asks every
    property, the explorer judging the properties the model translates (`murphi.PROPERTIES`)
    in one search (`translated_search`) and Rumur until each has its verdict
    (`murphi_run.check_each`: the model checked again without each invariant that failed).
    Rumur on the Murphi model generated from the same configuration (one thread, symmetry
    on), every counterexample replayed on the spec. A table then gives both sides'
    verdicts, states, CPU seconds (Rumur's summed over its runs, without and with
    generating and compiling its checkers) and the ratios; a property whose verdict or
    shortest length differs is named. With `compiled`, the explorer also on the compiled
    build (right after the pure run), with its ratios."""
    from model_checks.explore import murphi, murphi_run
    from model_checks.explore.named_instance import parse as parse_instance
    from spec.drift import Environment

    murphi_run.ensure_rumur()
    table = []
    for row in rows:
        variant, env, instance, prop = NAMED[row - 1]
        props = (prop,) if prop else murphi.PROPERTIES
        if prop:
            _, states, seconds, _, text = _explore_row(row, "slots", max_states, out)
            breaks = dict(_BREAKS.findall(text))
            explorer = {prop: f"breaks {breaks[prop]}" if prop in breaks else
                        "undecided" if "UNDECIDED" in text else "holds"}
        else:
            explorer, states, seconds = translated_search(row, max_states, out)
        native = None
        if compiled:
            native_verdicts, native_states, native = (
                _compiled_row(row, max_states, out) if prop is None else
                _compiled_one(row, max_states, out, prop))
            if (native_verdicts, native_states) != (explorer, states):
                raise SystemExit(f"row {row}: the compiled build disagrees: "
                                 f"{native_verdicts}, {native_states} states")
        config = parse_instance(instance).config(
            variant_named(variant), Environment.parse(env).sources)
        each = murphi_run.check_each(config, props, workdir=out / f"{row}-rumur")
        rumur = {p: "holds" if n is None else f"breaks {n}" for p, n in each.lengths.items()}
        print(f"rumur: {_words(rumur)} over {', '.join(props)} in {len(each.runs)} run(s); "
              f"{each.states} states, {each.check_seconds:.2f} CPU-s "
              f"(+{each.compile_seconds:.2f} to compile)"
              + ("; counterexamples replayed on the spec" if any(each.lengths.values())
                 else ""), flush=True)
        table.append((row, explorer, states, seconds, rumur, each, native))
    print(f"\n{'row':>3s} {'explorer verdict':18s} {'states':>9s} {'CPU-s':>8s}  "
          f"{'Rumur verdict':14s} {'runs':>4s} {'states':>9s} {'CPU-s':>6s} {'+compile':>8s}  "
          f"{'ratio excl. (incl.)':>19s}"
          + (f"  {'compiled CPU-s':>14s} {'ratio excl. (incl.)':>19s}" if compiled else ""))
    for row, explorer, states, seconds, rumur, each, native in table:
        undecided = "undecided" in explorer.values()
        differ = [p for p in rumur if explorer[p] not in (rumur[p], "undecided")]
        same = ("  (explorer: no verdict within the state limit)" if undecided else "") + (
            f"  DIFFERENT VERDICTS: {', '.join(differ)}" if differ else "")
        check = max(each.check_seconds, 0.01)
        total = each.check_seconds + each.compile_seconds
        more = ">" if undecided else ""
        print(f"{row:3d} {_words(explorer)[:18]:18s} {states:9d} {seconds:8.2f}  "
              f"{_words(rumur)[:14]:14s} {len(each.runs):4d} {each.states:9d} "
              f"{each.check_seconds:6.2f} {total:8.2f}  "
              f"{more}{seconds / check:.1f}x ({more}{seconds / total:.1f}x)"
              + ("" if native is None else f"  {native:14.2f} {more}{native / check:.1f}x "
                 f"({more}{native / total:.1f}x)")
              + same)


def rumur_alone(rows: list[int], out: Path) -> None:
    """Rumur's side of `rumur_table` alone: per row of `NAMED`, each property it asks given
    its verdict (`murphi_run.check_each`, counterexamples replayed on the spec), the runs,
    the states and CPU seconds to check (and to generate and compile)."""
    from model_checks.explore import murphi, murphi_run
    from model_checks.explore.named_instance import parse as parse_instance
    from spec.drift import Environment

    murphi_run.ensure_rumur()
    for row in rows:
        variant, env, instance, prop = NAMED[row - 1]
        config = parse_instance(instance).config(
            variant_named(variant), Environment.parse(env).sources)
        each = murphi_run.check_each(config, (prop,) if prop else murphi.PROPERTIES,
                                     workdir=out / f"{row}-rumur")
        rumur = {p: "holds" if n is None else f"breaks {n}" for p, n in each.lengths.items()}
        print(f"{row:3d} {_words(rumur)}; {len(each.runs)} run(s); {each.states} states; "
              f"{each.check_seconds:.2f} CPU-s (+{each.compile_seconds:.2f} to compile)",
              flush=True)


def translated_search(row: int, max_states: int, out: Path
                      ) -> tuple[dict[str, str], int, float]:
    """Row `row` of `NAMED` searched as `explore --instance --forget-ended
    --symmetric-requests` searches it (`cell_tasks.explore_cell` on the named instance),
    judging only the properties the Murphi model translates (`murphi.PROPERTIES`), the
    work Rumur does on the row: per property its verdict in words ("breaks N", "holds",
    "undecided"), the states, and the CPU seconds of the search and its judging."""
    from model_checks.explore.cell_tasks import CellTask, explore_cell
    from model_checks.explore.instance import Shape
    from model_checks.explore.murphi import PROPERTIES
    from model_checks.explore.named_instance import parse as parse_instance
    from model_checks.kernel.verdict_records import Verdict
    from spec.drift import Environment

    variant, env, instance, _ = NAMED[row - 1]
    family = parse_instance(instance).family()
    task = CellTask(variant_named(variant), Environment.parse(env).sources,
                    out / f"{row}-translated", max_states, (Shape(family.max_requests),),
                    family=family, only=frozenset(PROPERTIES), forget=True, slots=True,
                    stop_at_break=True)
    started = time.process_time()
    outcome = explore_cell(task)
    seconds = time.process_time() - started
    verdicts = {r.property: f"breaks {r.counterexample_length}"
                if r.verdict is Verdict.COUNTEREXAMPLE else
                "holds" if r.verdict in (Verdict.PROVED, Verdict.VACUOUS) else "undecided"
                for r in outcome.records}
    found = {p: verdicts[p] for p in PROPERTIES}
    print(f"explorer (pure), row {row} over {', '.join(PROPERTIES)}: {_words(found)}; "
          f"{outcome.states} states, {seconds:.2f} CPU-s", flush=True)
    return found, outcome.states, seconds


def _compiled_row(row: int, max_states: int, out: Path) -> tuple[dict[str, str], int, float]:
    """`translated_search` of row `row` by this script on the compiled build."""
    command = [sys.executable, str(Path(__file__).resolve()), "--translated-row", str(row),
               "--max-states", str(max_states), "--named-out", str(out / "compiled")]
    done = subprocess.run(command, cwd=ROOT, env=dict(os.environ, **COMPILED_ENV),
                          capture_output=True, text=True, check=True)
    verdicts, states, seconds = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"explorer (compiled), row {row}: {_words(verdicts)}; {states} states, "
          f"{seconds:.2f} CPU-s", flush=True)
    return verdicts, states, seconds


def _compiled_one(row: int, max_states: int, out: Path, prop: str
                  ) -> tuple[dict[str, str], int, float]:
    """`explore --instance ... --property` on row `row` on the compiled build."""
    text = _explore_row(row, "slots compiled", max_states, out)[4]
    breaks = dict(_BREAKS.findall(text))
    figures = _NAMED_FIGURES.search(text)
    assert figures is not None, text
    return ({prop: f"breaks {breaks[prop]}" if prop in breaks else
             "undecided" if "UNDECIDED" in text else "holds"},
            int(figures[1]), float(figures[2]))


def _words(verdicts: dict[str, str]) -> str:
    """Per-property verdicts shortly: each break with its length ("H1 6"), else "holds"
    (every one holds), with "undecided" where any is."""
    breaks = [f"{p} {v.removeprefix('breaks ')}" for p, v in verdicts.items()
              if v.startswith("breaks")]
    if "undecided" in verdicts.values():
        breaks.append("UNDECIDED")
    return ", ".join(breaks) or "holds"


_BREAKS = re.compile(r"^\S+ \S+ (\S+) on .*: BREAKS, shortest counterexample (\d+) steps",
                     re.MULTILINE)
_NAMED_FIGURES = re.compile(r"^(\d+) states.*?, ([\d.]+) CPU-s", re.MULTILINE)


def _verdict_words(text: str) -> str:
    """The verdicts a run printed, shortly: each break with its length, else "holds" or
    "undecided" for all."""
    breaks = _BREAKS.findall(text)
    if breaks:
        return ", ".join(f"{p} {n}" for p, n in breaks)
    return "UNDECIDED" if "UNDECIDED" in text else "holds"


def _named_summary(table: list[tuple[int, dict[str, tuple[str, int, float, int]]]],
                   modes: tuple[str, ...]) -> None:
    """Per row: the verdicts (each run's, where they differ), then per mode its states and
    CPU seconds, and for each mode after the first the ratios of the first's to its."""
    head = f"\n{'row':>3s} {'verdict (breaks: steps)':28s}"
    for number, mode in enumerate(modes):
        head += f" {mode + ' st':>9s} {'CPU-s':>8s}"
        head += f" {'states x':>8s} {'CPU x':>6s}" if number else ""
    print(head)
    for row, runs in table:
        words = [runs[m][0] for m in modes]
        verdict = words[0] if len(set(words)) == 1 else " / ".join(words)
        line = f"{row:3d} {verdict[:28]:28s}"
        base_states, base_seconds = runs[modes[0]][1], runs[modes[0]][2]
        for number, mode in enumerate(modes):
            _, states, seconds, _ = runs[mode]
            line += f" {states:9d} {seconds:8.2f}"
            if number:
                line += (f" {base_states / max(states, 1):8.2f}"
                         f" {base_seconds / max(seconds, 0.01):6.2f}")
        print(line)


def naive(config: Config) -> tuple[int, int]:
    """(states, edges) of a plain breadth-first search over the spec."""
    start = initial(config)
    seen: set[State] = {start}
    queue = deque([start])
    edges = 0
    while queue:
        state = queue.popleft()
        for action in enabled(config, state):
            successor = step(config, state, action)
            edges += 1
            if successor not in seen:
                seen.add(successor)
                queue.append(successor)
    return len(seen), edges


def _config(label: str, requests: int = 2) -> Config:
    """The explorer's instance of a cell label `V2_D1_D7` (`@N`: N requests, default 2)."""
    label, _, given = label.partition("@")
    requests = int(given or requests)
    variant, *env = label.split("_")
    return explore_config(variant_named(variant), tuple(e for e in env if e != "none"),
                          max_requests=requests)


def por_table(cells: list[str], repeat: int) -> None:
    """Deciding whole cells with and without partial-order reduction, CPU seconds."""
    # Imported here: a `--baseline` tree without the reduction still runs the other tables.
    from model_checks.explore.lru_judging.reduction.judging import judge_reduced

    print(f"{'cell':16s} {'states':>7s} {'cpu s':>7s} {'por st':>7s} {'+minim':>7s} "
          f"{'por cpu s':>9s} {'ratio':>6s}")
    for label in cells:
        config = _config(label)
        plain_times, por_times = [], []
        for _ in range(repeat):
            started = time.process_time()
            graph = build(config)
            judge_all(graph)
            plain_times.append(time.process_time() - started)
            started = time.process_time()
            reduced = judge_reduced(config)
            por_times.append(time.process_time() - started)
        plain, por = statistics.median(plain_times), statistics.median(por_times)
        print(f"{label:16s} {len(graph.states):7d} {plain:7.2f} "
              f"{len(reduced.graph.states):7d} {reduced.minimising_states:7d} "
              f"{por:9.2f} {plain / por:6.2f}")


def _settle() -> None:
    """Collect the young generations, inside the timed figure: a tree that pauses the cyclic
    collector while it builds and judges (`model_checks.explore.collector`) leaves the
    graph's objects young, and the next collection traverses them once while the graph
    lives; without this, the next measurement (the naive search) would pay for it."""
    gc.collect(1)


def measure(label: str, repeat: int, memory: bool) -> dict[str, float]:
    """One cell's figures: medians of `repeat` runs, CPU seconds (process time)."""
    config = _config(label)
    naive_s, build_s, total_s, plain_s = [], [], [], []
    for _ in range(repeat):
        started = time.process_time()
        naive_states, _ = naive(config)
        naive_s.append(time.process_time() - started)
        started = time.process_time()
        graph = build(config)
        build_s.append(time.process_time() - started)
        judge_all(graph)
        _settle()
        total_s.append(time.process_time() - started)
        started = time.process_time()
        plain = build(config, GraphOptions(symmetry=False))
        judge_all(plain)
        _settle()
        plain_s.append(time.process_time() - started)
    states = len(graph.states)
    figures: dict[str, float] = {
        "naive states": naive_states, "naive st/s": naive_states / statistics.median(naive_s),
        "states": states, "edges": graph.steps_taken, "diameter": graph.diameter,
        "build st/s": states / statistics.median(build_s),
        "+judge st/s": states / statistics.median(total_s),
        "s total": statistics.median(total_s),
        "nosym states": len(plain.states), "nosym s": statistics.median(plain_s),
    }
    if memory:
        figures.update(bytes_per_state(config))
    return figures


def phases(label: str, repeat: int) -> dict[str, float]:
    """Where one cell's CPU goes, in seconds (the least of `repeat` runs of each, the cyclic
    collector paused as the search pauses it): the whole build with its state checks and
    the judge; then, timed alone over the cell's own states and edges, `enabled` on every
    state, every edge's step (`action.apply`), the processing and identity renamings of
    every successor, the fingerprint (`hash`) of every canonical successor and the state
    checks; the search's own bookkeeping (visited set, arrays, frontier) is the build
    without checks less those four."""
    from model_checks.explore import collector
    from model_checks.explore.lru_judging.state_checks import state_properties
    from model_checks.explore.moves import StateChecks
    from model_checks.explore.search_core import Reductions

    config = _config(label)

    def least(run: Callable[[], object]) -> float:
        times = []
        for _ in range(repeat):
            started = time.process_time()
            run()
            times.append(time.process_time() - started)
        return min(times)

    with collector.paused():
        graph = build(config)
        states, groups = list(graph.states), graph.groups
        cleared = [s if s.last_delivery is None else s.evolve(last_delivery=None)
                   for s in states]
        steps = [(a, c) for s, c in zip(states, cleared, strict=True)
                 for a in enabled(config, s)]
        made = [a.apply(config, c) for a, c in steps]
        represent = Reductions(config, True, groups).canonical  # both renamings, as searched
        renamed = [represent(s)[0] for s in made]
        checks = StateChecks(config, state_properties(config))

        def check_every_state() -> None:
            for index, state in enumerate(states):
                checks.see(index, state)

        figures = {
            "build": least(lambda: build(config)), "judge": least(lambda: judge_all(graph)),
            "enabled": least(lambda: [enabled(config, s) for s in states]),
            "steps": least(lambda: [a.apply(config, c) for a, c in steps]),
            "renaming": least(lambda: [represent(s) for s in made]),
            "fingerprints": least(lambda: [hash(s) for s in renamed]),
            "checks": least(check_every_state),
            "unchecked build": least(lambda: build(config, GraphOptions(checks=()))),
        }
    figures["search"] = figures.pop("unchecked build") - sum(
        figures[k] for k in ("enabled", "steps", "renaming", "fingerprints"))
    return figures


def bytes_per_state(config: Config) -> dict[str, float]:
    """Traced bytes per state: the graph after the search (`held`), at rest (`rest`), the
    peak of a lean search and the peak while judging (a tree without the lean graph: `held`
    only, its graph as the search left it)."""
    lean = "keep_states" in inspect.signature(build).parameters
    judge_all(build(config))  # warm: configuration tables, interned names, imports
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    graph = build(config)
    gc.collect()
    held, _ = tracemalloc.get_traced_memory()
    tracemalloc.reset_peak()
    judge_all(graph)
    _, judge_peak = tracemalloc.get_traced_memory()
    figures = {"B held": held - base, "B judge peak": judge_peak - base}
    if lean:
        graph.release_states()
        gc.collect()
        figures["B rest"] = tracemalloc.get_traced_memory()[0] - base
        del graph
        gc.collect()
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        graph = build(config, GraphOptions(keep_states=False))
        figures["B lean peak"] = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    return {name: value / len(graph.states) for name, value in figures.items()}


COLUMNS = ("naive states", "naive st/s", "states", "edges", "diameter", "build st/s",
           "+judge st/s", "s total", "nosym states", "nosym s")
MEMORY = ("B held", "B rest", "B lean peak", "B judge peak")
HIGHER_IS_BETTER = ("naive st/s", "build st/s", "+judge st/s")


def _row(label: str, figures: dict[str, float], columns: tuple[str, ...]) -> str:
    cells = []
    for name in columns:
        value = figures.get(name)
        width = max(len(name), 7)
        if value is None:
            cells.append(f"{'-':>{width}s}")
        elif name in ("s total", "nosym s"):
            cells.append(f"{value:{width}.2f}")
        else:
            cells.append(f"{value:{width}.0f}")
    return f"{label:14s} " + " ".join(cells)


def _ratio(name: str, now: float | None, base: float | None) -> str:
    if not now or not base or name in ("states", "edges", "diameter", "naive states",
                                       "nosym states"):
        return ""
    factor = now / base if name in HIGHER_IS_BETTER else base / now
    return f"{name} {factor:.2f}x"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--cells", default=",".join(DEFAULT_CELLS))
    parser.add_argument("--repeat", type=int, default=None,
                        help="runs per figure, medians reported (3; with --named, 1)")
    parser.add_argument("--memory", action="store_true",
                        help="also bytes per stored state (tracemalloc)")
    parser.add_argument("--baseline", type=Path,
                        help="a checkout of another commit to measure in the same run")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # baseline
    parser.add_argument("--phases", action="store_true",
                        help="where each cell's CPU goes (this tree only; no other table)")
    parser.add_argument("--por-cells", default=",".join(DEFAULT_POR_CELLS),
                        help="cells (@N: N requests) decided with and without partial-order "
                             "reduction; empty: none")
    parser.add_argument("--named", action="store_true",
                        help="explore --instance on the instances of NAMED (no other table)")
    parser.add_argument("--named-rows", default="1,2,3,4,5,6,7")
    parser.add_argument("--max-states", type=int, default=2_000_000)
    parser.add_argument("--named-out", type=Path, default=Path("build/bench/named"))
    parser.add_argument("--named-forget", choices=tuple(NAMED_RUNS), default="both")
    parser.add_argument("--compiled", action="store_true",
                        help="also on the compiled build (scripts/compile-spec), same run")
    parser.add_argument("--rumur", action="store_true",
                        help="the rows of NAMED against Rumur on the generated Murphi model "
                             "(no other table)")
    parser.add_argument("--rumur-alone", action="store_true",
                        help="with --rumur: Rumur's side alone (no explorer)")
    parser.add_argument("--translated-row", type=int, help=argparse.SUPPRESS)  # --compiled
    args = parser.parse_args()
    if args.translated_row is not None:  # the compiled side of --rumur --compiled
        with contextlib.redirect_stdout(io.StringIO()):
            found = translated_search(args.translated_row, args.max_states, args.named_out)
        print(json.dumps(found))
        return
    if args.repeat is None:
        args.repeat = 1 if args.named else 3
    if args.repeat < 1:
        parser.error(f"--repeat must be at least 1, got {args.repeat}")
    if args.compiled and (args.baseline is not None or args.phases):
        parser.error("--compiled goes with the cells' table, --named or --rumur, not with "
                     "--baseline or --phases")
    if args.compiled:
        _require_compiled_build()
    if args.named or args.rumur:
        rows = [int(r) for r in args.named_rows.split(",") if r]
        if not all(1 <= r <= len(NAMED) for r in rows):
            parser.error(f"--named-rows: rows are 1 to {len(NAMED)}")
        if args.rumur and args.rumur_alone:
            rumur_alone(rows, args.named_out)
        elif args.rumur:
            rumur_table(rows, args.max_states, args.named_out, args.compiled)
        else:
            named_table(rows, args.max_states, args.named_out, args.named_forget,
                        args.compiled, args.repeat)
        return
    if args.baseline is not None and not (args.baseline / "spec" / "__init__.py").exists():
        parser.error(f"--baseline {args.baseline}: no spec/ package there; give a checkout")
    if args.phases:
        for label in filter(None, args.cells.split(",")):
            figures = phases(label, args.repeat)
            total = figures["build"] + figures["judge"]
            print(f"{label}: build and judge {total:.2f} CPU s; " + ", ".join(
                f"{name} {seconds:.2f} s ({100 * seconds / total:.0f}%)"
                for name, seconds in figures.items() if name != "build"), flush=True)
        return
    columns = COLUMNS + (MEMORY if args.memory else ())
    if not args.json:
        print(f"{'cell':14s} " + " ".join(f"{c:>7s}" for c in columns))
    for label in filter(None, args.cells.split(",")):
        if args.baseline is not None:
            base = _baseline(args.baseline, label, args.repeat, args.memory)
            print(_row(f"{label} base", base, columns), flush=True)
        figures = measure(label, args.repeat, args.memory)
        if args.json:
            print(json.dumps(figures))
            continue
        print(_row(label, figures, columns), flush=True)
        if args.compiled:
            compiled = _subprocess(COMPILED_ENV, label, args.repeat, args.memory)
            print(_row(f"{label} comp", compiled, columns), flush=True)
            ratios = [_ratio(c, compiled.get(c), figures.get(c)) for c in columns]
            print(f"{'compiled/pure':14s} " + ", ".join(r for r in ratios if r), flush=True)
        if args.baseline is not None:
            ratios = [_ratio(c, figures.get(c), base.get(c)) for c in columns]
            if args.memory and "B rest" not in base:  # a baseline that kept every state
                ratios += [f"stored state (base held / rest) "
                           f"{base['B held'] / figures['B rest']:.1f}x",
                           f"search peak (base held / lean peak) "
                           f"{base['B held'] / figures['B lean peak']:.1f}x"]
            print(f"{'':14s} " + ", ".join(r for r in ratios if r), flush=True)
    if args.por_cells and not args.json:
        por_table(args.por_cells.split(","), args.repeat)


def _baseline(tree: Path, label: str, repeat: int, memory: bool) -> dict[str, float]:
    """The same measurement on another tree: this script in a subprocess whose PYTHONPATH
    puts the tree's spec and model_checks first (the script's own folder holds neither)."""
    return _subprocess({"PYTHONPATH": str(tree.resolve())}, label, repeat, memory)


def _subprocess(env: dict[str, str], label: str, repeat: int, memory: bool
                ) -> dict[str, float]:
    """The same measurement by this script in a subprocess, `env` added to its environment
    (the path that picks which packages it imports)."""
    command = [sys.executable, str(Path(__file__).resolve()), "--json", "--cells", label,
               "--repeat", str(repeat), *(["--memory"] if memory else [])]
    done = subprocess.run(command, env=dict(os.environ, **env), capture_output=True,
                          text=True, check=True)
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


if __name__ == "__main__":
    main()
