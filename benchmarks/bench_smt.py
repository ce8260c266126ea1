"""Benchmark of the Z3 checker: depth reached and solve time, per variant.

    .venv/bin/python benchmarks/bench_smt.py [--max-depth 12] [--budget 60] [--env all|none]
                                             [--items 1|2] [--incremental] [--proof-only]
                                             [--units 100000000]

For each variant, bounded model checking of S1, S2, S3 and H1 on one incremental solver, for
K=3 identities, R=4 requests (at most Q=2 unfinished), M items per request (`--items`, default
1; the checker itself uses 2 under D6 and D8), every budget in 1..4 and every size in 1..3 at
once; under `--env all` every drift source is on, two front ends and the split P0 steps
included. A property is dropped from the query once a counterexample is found. The
table gives, per depth, the cumulative solve time and z3 resource units (rlimit units: the
machine-independent measure, so incremental and fresh solvers compare fairly on a loaded
machine); deepening stops when the variant's time budget, or its unit budget (`--units`), is
spent. Then the all-depth proof of V3 (inductive invariant, three checks) and, for
comparison, V3's BMC with the proved invariant added at every step. Progress is printed as
each depth completes.

The matrix mode (`--matrix single`: every variant with no drift and with each drift source
alone, each cell in a fresh process, `--jobs` cells at a time; `--from-log LOG` renders a
table again) gives, per cell, the depth reached within `--cpu` seconds of the cell's own
process CPU and the rlimit units spent to depth 6 and 12. Units are deterministic: they are
the figures to compare across machines; CPU seconds depend on the machine and its load. The
runner's order, the all-depth methods first (`proved_first`: certificates, 1-induction of S1,
Spacer for S3), then BMC only of what they leave open:

    python benchmarks/bench_smt.py --matrix single --configs "default first" \
        --units 2000000000 --cpu 60 --jobs 2

decides 45 of the 48 cells for all depths or by their shortest counterexample; left: V1 and
V2 under D6 (two items per request: S3's 8-step counterexample) and V3 under D8 (two items:
H1 is proved only with `--mirror all`). BMC alone, every property asked at every depth:

    python benchmarks/bench_smt.py --matrix single --configs default --units 40000000 --jobs 3

Solver configurations compared on one cell (units and CPU to the same depth, same run):

    python benchmarks/bench_smt.py --matrix V2:none --configs "default inc,qflia,tactic" \
        --units 200000000

benchmarks/README.md states what these show as ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import z3

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from model_checks.kernel.matrix import Expectation
from model_checks.smt.budget import DEEP_RLIMIT, Bounded, counter
from model_checks.smt.decided_cells import matrix_cells
from model_checks.smt.encode.actions import args_at, initial, transition
from model_checks.smt.encode.properties import BAD
from model_checks.smt.encode.symbols import (
    Bounds,
    Encoding,
    params,
    params_constraint,
    state_at,
)
from model_checks.smt.limits import CERTIFICATE_RLIMIT, CHC_RLIMIT
from model_checks.smt.prove.invariant import V3_INVARIANTS, Invariant, conjunction, prove
from model_checks.smt.prove.proved_first import BY_CHC, ProveOptions, prove_first
from spec import ALL_DRIFT, V0, V1, V2, V3, Drift, Variant

VARIANTS = {"V0": V0, "V1": V1, "V2": V2, "V3": V3}

PROPS = ("S1", "S2", "S3", "H1")


SOLVERS: dict[str, Callable[[], z3.Solver]] = {
    "default": z3.Solver,
    "qflia": lambda: z3.SolverFor("QF_LIA"),
    "tactic": lambda: z3.Then("simplify", "propagate-values", "solve-eqs", "smt").solver(),
}
"""Solver configurations compared by units: z3's default solver (what the checkers use), the
QF_LIA logic's solver, and a preprocessing tactic (simplify, propagate values, solve
equations) in front of the SMT core."""


def deepen(enc: Encoding, max_depth: int, budget: float, lemmas: bool = False,
           incremental: bool = False, units: int | None = None, config: str = "default",
           depths: list[tuple[int, int, float, str]] | None = None,
           props: tuple[str, ...] = PROPS, with_lemmas: tuple[Invariant, ...] = (),
           cpu_cap: float = float("inf")) -> list[str]:
    """Rows "depth, seconds, open properties" until max_depth or the time budget; a fresh
    solver per depth, as `bmc_many` does, unless `incremental` (the baseline). `config` names
    the solver configuration (`SOLVERS`); `depths`, when given, receives per depth (depth,
    cumulative units, cumulative process CPU seconds, open properties). `props`: the
    properties asked (default all four); `with_lemmas`: proved invariants asserted in every
    state (as `bmc.bmc_many` does with `proved_first`'s lemmas)."""
    def new_solver(rlimit: int) -> Bounded:
        return Bounded(rlimit, SOLVERS[config]())

    p = params(enc)
    cpu = time.process_time()
    solver = new_solver(DEEP_RLIMIT)
    states = [state_at(enc, 0)]
    facts = [params_constraint(enc, p), initial(enc, states[0])]
    invariants = V3_INVARIANTS if lemmas else with_lemmas
    if invariants:
        facts.append(conjunction(enc, p, states[0], invariants))
    solver.add(*facts)
    open_props = list(props)
    rows = []
    spent = 0
    start = time.perf_counter()
    for depth in range(max_depth + 1):
        if depth:
            states.append(state_at(enc, depth))
            facts.append(transition(enc, p, states[depth - 1], states[depth], args_at(depth - 1)))
            if invariants:
                facts.append(conjunction(enc, p, states[depth], invariants))
            if incremental:
                solver.add(*facts[-2 if invariants else -1:])
            else:
                solver = new_solver(DEEP_RLIMIT)
                solver.add(*facts)
        if not open_props:
            break
        # as `bmc_many` does: one query for every open property, one each only if it is sat;
        # a fresh solver is given it as an assertion (its preprocessing then sees all of it)
        either = z3.Or([BAD[prop](enc, p, states[depth]) for prop in open_props])
        if not incremental:
            solver.add(either)
        answer = solver.check(either) if incremental else solver.check()
        spent += answer.used
        maybe = open_props if open_props and answer.result == z3.sat else []
        for prop in list(maybe):
            single = solver.check(BAD[prop](enc, p, states[depth]))
            spent += single.used
            if single.result == z3.sat:
                open_props.remove(prop)
                print(f"    {enc.variant.name}: {prop} broken at depth {depth}", flush=True)
        elapsed = time.perf_counter() - start
        row = f"{depth:>5}  {elapsed:>8.2f}  {spent / 1e6:>9.1f}  {' '.join(open_props) or '-'}"
        label = enc.variant.name + (" +lemmas" if lemmas else "") + (" inc" if incremental else "")
        print(f"  {label} {row}", flush=True)
        rows.append(row)
        if depths is not None:
            depths.append((depth, spent, time.process_time() - cpu, " ".join(open_props) or "-"))
        if elapsed > budget or (units is not None and spent > units):
            break
        if time.process_time() - cpu > cpu_cap:  # the depth after this one is past the cap
            break
    return rows


def context_units() -> int:
    """The z3 context's cumulative resource counter (every solver's units so far)."""
    solver = z3.Solver()
    solver.check()
    return counter(solver)


def run_cell(spec: str, config: str, incremental: bool, max_depth: int,
             units: int | None, prune: str = "", cpu_cap: float = float("inf"),
             mirror: str = "one-item") -> dict[str, object]:
    """One cell of the matrix (`spec` "V2:D1", or "V2:none"): BMC of S1, S2, S3, H1 deepened
    to `max_depth` or until `units` are spent; per depth the cumulative units and process CPU
    seconds (the rate of this process: units per CPU-second, whatever the machine's load).

    `prune` "first": the runner's all-depth proofs first (`proved_first.prove_first`, with
    the expected matrix's holding properties, the main job's limits and `mirror`, the
    runner's default for the hand-written certificates), and BMC of the
    properties they leave open only; "lemmas": also their invariants asserted in every state.
    The units and CPU of the proofs are the first row (depth -1) and are included after.
    Deepening also stops after the first depth that ends past `cpu_cap` seconds of the
    process's CPU time."""
    name, env_text = spec.split(":")
    env = frozenset() if env_text == "none" else frozenset(Drift(d) for d in env_text.split("+"))
    enc = Encoding(VARIANTS[name], env)
    depths: list[tuple[int, int, float, str]] = []
    props, lemmas, first = PROPS, (), (0, 0.0)
    if prune:
        cpu = time.process_time()
        environment = tuple(sorted((d.value for d in env), key=lambda x: int(x[1:])))
        holding = tuple(c.property for c in matrix_cells("all") if c.variant.name == name
                        and c.environment == environment and c.expected is Expectation.HOLDS)
        found = prove_first(enc, PROPS, holding,
                            ProveOptions(CERTIFICATE_RLIMIT, CHC_RLIMIT, BY_CHC, mirror))
        props = tuple(p for p in PROPS if p not in found.proofs)
        lemmas = found.lemmas if prune == "lemmas" else ()
        first = (context_units(), time.process_time() - cpu)
        depths.append((-1, first[0], first[1], " ".join(props) or "-"))
    more: list[tuple[int, int, float, str]] = []
    deepen(enc, max_depth, float("inf"), incremental=incremental, units=units, config=config,
           depths=more, props=props, with_lemmas=lemmas, cpu_cap=cpu_cap - first[1])
    depths += [(d, u + first[0], cpu + first[1], o) for d, u, cpu, o in more]
    return {"cell": spec, "config": config + (" inc" if incremental else "")
            + (f" {prune}" if prune else ""), "m": enc.m, "depths": depths}


def matrix(cells: list[str], configs: list[tuple[str, bool, str]], max_depth: int, units: int,
           jobs: int, cpu_cap: float) -> list[dict[str, object]]:
    """Every cell under every configuration, each in a fresh process (the units a query
    spends depend on what the z3 context built before it), `jobs` at a time."""
    script = str(Path(__file__).resolve())
    commands = [[sys.executable, script, "--cell", cell, "--solver", config,
                 "--max-depth", str(max_depth), "--units", str(units), "--cpu", str(cpu_cap)]
                + (["--incremental"] if incremental else []) + (["--prune", prune] if prune else [])
                for cell in cells for config, incremental, prune in configs]
    found: list[dict[str, object]] = []
    running: list[subprocess.Popen[str]] = []
    env = dict(os.environ, PYTHONPATH=str(Path(script).parent.parent))
    while commands or running:
        while commands and len(running) < jobs:
            running.append(subprocess.Popen(commands.pop(0), stdout=subprocess.PIPE, text=True,
                                            env=env))
        done = running.pop(0)
        out, _ = done.communicate()
        result = json.loads(out.strip().splitlines()[-1])
        found.append(result)
        print(json.dumps(result), flush=True)
    return found


def table(results: list[dict[str, object]], units: int) -> None:
    """The matrix's table: per cell and configuration, the depth reached within 60 s of the
    cell's process CPU time, the deepest depth reached with its units, the units to depth 6
    and 12, and the properties still open at the deepest depth reached; first the rates
    (units per CPU-second) measured in this run."""
    rates = []
    for result in results:
        depths = result["depths"]
        assert isinstance(depths, list)
        if depths and depths[-1][2] > 1:
            rates.append(depths[-1][1] / depths[-1][2])
    rate = statistics.median(rates)
    print(f"\nrate: median {rate / 1e6:.2f} Munits per CPU-second over {len(rates)} cells "
          f"(range {min(rates) / 1e6:.2f}-{max(rates) / 1e6:.2f}); 60 s = "
          f"{60 * rate / 1e6:.0f} Munits, 600 s = {600 * rate / 1e6:.0f} Munits; cap per cell "
          f"{units / 1e6:.0f} Munits")
    print("| cell | M | config | depth in 60 s CPU | deepest (Munits, CPU s) | Munits to 6 | "
          "Munits to 12 | open at deepest |")
    print("|---|---|---|---|---|---|---|---|")
    for result in results:
        depths = result["depths"]
        assert isinstance(depths, list)
        by_depth = {d: u for d, u, _, _ in depths}
        # the CPU seconds this cell's own process spent: the units' rate differs between
        # solver configurations (incremental: 2 million per CPU-second, fresh: 8 million)
        within: object = max((d for d, _, cpu, _ in depths if cpu <= 60), default=-1)
        last = depths[-1]
        if last[3] == "-":  # every property proved for all depths or broken: nothing to deepen
            within = f"all decided ({last[2]:.0f} s)"
        elif last[0] < 12 and last[2] <= 60:  # stopped by the cap, not by the CPU limit
            within = f">={within} (cap)"
        six = f"{by_depth[6] / 1e6:.1f}" if 6 in by_depth else "-"
        twelve = f"{by_depth[12] / 1e6:.1f}" if 12 in by_depth else "-"
        print(f"| {result['cell']} | {result['m']} | {result['config']} | {within} | "
              f"{last[0]} ({last[1] / 1e6:.0f}, {last[2]:.0f}) | {six} | {twelve} | {last[3]} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-depth", type=int, default=12)
    parser.add_argument("--budget", type=float, default=60.0, help="seconds per variant")
    parser.add_argument("--env", choices=("all", "none"), default="all")
    parser.add_argument("--items", type=int, choices=(1, 2), default=1,
                        help="items per request (M), whatever the drift")
    parser.add_argument("--incremental", action="store_true",
                        help="also run each variant on one incremental solver (the baseline)")
    parser.add_argument("--proof-only", action="store_true",
                        help="only V3's all-depth proof (skip the depth tables)")
    parser.add_argument("--units", type=int, default=None,
                        help="also stop deepening a variant after this many z3 resource units")
    parser.add_argument("--solver", choices=tuple(SOLVERS), default="default",
                        help="solver configuration (compared by units)")
    parser.add_argument("--cell", default=None,
                        help="one cell, e.g. V2:D1 (prints one JSON line; used by --matrix)")
    parser.add_argument("--matrix", default=None,
                        help="variants x single drift sources: 'single' (V0-V3 x none, D1-D11) "
                             "or a comma list of cells, e.g. V2:none,V2:D6")
    parser.add_argument("--configs", default="default",
                        help="comma list of configurations for --matrix: default, qflia, "
                             "tactic, each optionally with ' inc' (incremental), e.g. "
                             "'default,default inc,tactic'")
    parser.add_argument("--prune", choices=("", "first", "lemmas"), default="",
                        help="all-depth proofs first, BMC of the rest only ('first'), with "
                             "their invariants as lemmas in every state ('lemmas')")
    parser.add_argument("--mirror", choices=("none", "one-item", "all"), default="one-item",
                        help="with --prune: where the hand-written certificates of "
                             "model_checks/smt/prove/relational.py are tried (as prove --mirror)")
    parser.add_argument("--cpu", type=float, default=float("inf"),
                        help="stop deepening a cell after the first depth that ends past this "
                             "many seconds of its process's CPU time")
    parser.add_argument("--jobs", type=int, default=1, help="cells at a time for --matrix")
    parser.add_argument("--from-log", type=Path, default=None,
                        help="only render the table from the JSON lines a --matrix run printed")
    args = parser.parse_args()
    if args.from_log is not None:
        lines = args.from_log.read_text().splitlines()
        table([json.loads(line) for line in lines if line.startswith("{")], args.units or 0)
        return
    if args.cell:
        print(json.dumps(run_cell(args.cell, args.solver, args.incremental, args.max_depth,
                                  args.units, args.prune, args.cpu, args.mirror)))
        return
    if args.matrix:
        if args.units is None:
            parser.error("--matrix needs --units (the cap per cell)")
        cells = ([f"{v}:{d}" for d in ["none", *(f"D{i}" for i in range(1, 12))]
                  for v in VARIANTS] if args.matrix == "single" else args.matrix.split(","))
        configs = [(c.split()[0], "inc" in c.split()[1:],
                    next((w for w in c.split()[1:] if w in ("first", "lemmas")), ""))
                   for c in args.configs.split(",")]
        table(matrix(cells, configs, args.max_depth, args.units, args.jobs, args.cpu),
              args.units)
        return
    env = ALL_DRIFT if args.env == "all" else frozenset()
    bounds = Bounds(max_items=args.items, max_items_under_d8=args.items)
    tables: list[tuple[str, list[str]]] = []
    variants: tuple[Variant, ...] = () if args.proof_only else (V0, V1, V2, V3)
    for variant in variants:
        enc = Encoding(variant, env, bounds)
        print(f"{enc.describe()}, M={enc.m} (encoded: "
              f"{'+'.join(sorted(d.value for d in enc.encoded_environment)) or 'none'})")
        tables.append((variant.name, deepen(enc, args.max_depth, args.budget,
                                            units=args.units)))
        if args.incremental:
            tables.append((variant.name + " inc", deepen(enc, args.max_depth, args.budget,
                                                         incremental=True, units=args.units)))
    enc = Encoding(V3, env, bounds)
    if not args.proof_only:
        print("V3 with the proved invariant as a lemma at every step")
        tables.append(("V3+lemmas", deepen(enc, args.max_depth, args.budget, lemmas=True,
                                           units=args.units)))
    start = time.perf_counter()
    prove(enc, V3_INVARIANTS, ("S1", "S2", "S3"))
    proof = time.perf_counter() - start
    print("\nvariant    depth   seconds  Munits  still open (no counterexample yet)")
    for name, rows in tables:
        for row in rows:
            print(f"{name:<9} {row}")
    print(f"\nV3 all-depth proof of S1, S2, S3 (inductive invariant, 3 checks), M={enc.m}, "
          f"{enc.front_ends} front end(s): {proof:.2f} s")


if __name__ == "__main__":
    main()
