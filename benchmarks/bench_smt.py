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
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import z3

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from model_checks.smt.actions import args_at, initial, transition
from model_checks.smt.bmc import new_solver
from model_checks.smt.budget import DEEP_RLIMIT
from model_checks.smt.invariant import V3_INVARIANTS, conjunction, prove
from model_checks.smt.properties import BAD
from model_checks.smt.symbols import (
    Bounds,
    Encoding,
    params,
    params_constraint,
    state_at,
)
from spec import ALL_DRIFT, V0, V1, V2, V3, Variant

PROPS = ("S1", "S2", "S3", "H1")


def deepen(enc: Encoding, max_depth: int, budget: float, lemmas: bool = False,
           incremental: bool = False, units: int | None = None) -> list[str]:
    """Rows "depth, seconds, open properties" until max_depth or the time budget; a fresh
    solver per depth, as `bmc_many` does, unless `incremental` (the baseline)."""
    p = params(enc)
    solver = new_solver(DEEP_RLIMIT)
    states = [state_at(enc, 0)]
    facts = [params_constraint(enc, p), initial(enc, states[0])]
    solver.add(*facts)
    open_props = list(PROPS)
    rows = []
    spent = 0
    start = time.perf_counter()
    for depth in range(max_depth + 1):
        if depth:
            states.append(state_at(enc, depth))
            facts.append(transition(enc, p, states[depth - 1], states[depth], args_at(depth - 1)))
            if lemmas:
                facts.append(conjunction(enc, p, states[depth], V3_INVARIANTS))
            if incremental:
                solver.add(*facts[-2 if lemmas else -1:])
            else:
                solver = new_solver(DEEP_RLIMIT)
                solver.add(*facts)
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
        if elapsed > budget or (units is not None and spent > units):
            break
    return rows


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
    args = parser.parse_args()
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
