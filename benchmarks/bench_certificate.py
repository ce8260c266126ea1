"""Benchmark of a certificate's consecution checks: one query per invariant against one check per
action on one solver (what `smt.prove.invariant.prove` does), in the same run.

    .venv/bin/python benchmarks/bench_certificate.py [--variant V3] [--environment all]
                                                     [--invariant one-version-per-processing]

For each invariant of the variant's certificate (V3's by default; `--invariant` picks one), the
consecution query "the invariant in s, a step s -> n, the invariant broken in n" is asked twice:
as one query on a fresh solver, then split by the step's action, one check per enabled action
on one solver. Printed per invariant: the z3 resource units of each form (deterministic: the
figure to compare across machines) and the CPU seconds (machine and load dependent), then the
totals and their ratio. Both forms must answer unsat for a certificate that holds.
"""

from __future__ import annotations

import argparse
import time

import z3

from model_checks.smt.budget import CERTIFICATE_RLIMIT, Bounded
from model_checks.smt.encode.actions import args_at, available, transition
from model_checks.smt.encode.symbols import Encoding, params, params_constraint, state_at
from model_checks.smt.prove.invariant import V3_INVARIANTS, conjunction
from spec import ALL_DRIFT, Environment, variant_named


def _whole(background: z3.BoolRef, facts: tuple[z3.BoolRef, ...]) -> tuple[int, float]:
    solver = Bounded(CERTIFICATE_RLIMIT)
    solver.add(background, *facts)
    began = time.process_time()
    answer = solver.check()
    assert answer.result == z3.unsat, answer.result
    return answer.used, time.process_time() - began


def _per_action(background: z3.BoolRef, facts: tuple[z3.BoolRef, ...], act: z3.ArithRef,
                codes: tuple[int, ...]) -> tuple[int, float]:
    solver = Bounded(CERTIFICATE_RLIMIT)
    solver.add(background, *facts)
    began, used = time.process_time(), 0
    for code in codes:
        answer = solver.check(act == code)
        assert answer.result == z3.unsat, (code, answer.result)
        used += answer.used
    return used, time.process_time() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="V3")
    parser.add_argument("--environment", default="all",
                        help='drift ids joined by "+", "none", or "all" (default)')
    parser.add_argument("--invariant", default=None, help="only this invariant (by name)")
    args = parser.parse_args()
    drift = (ALL_DRIFT if args.environment == "all"
             else Environment.parse(args.environment).drift)
    enc = Encoding(variant_named(args.variant), drift)
    p, s, n, a = params(enc), state_at(enc, 0), state_at(enc, 1), args_at(0)
    step = z3.And(conjunction(enc, p, s, V3_INVARIANTS), transition(enc, p, s, n, a))
    background = params_constraint(enc, p)
    totals = [0, 0.0, 0, 0.0]
    print(f"{enc.describe()}: consecution, one query against one check per action")
    print(f"{'invariant':36} {'units (one)':>12} {'CPU s':>7} {'units (split)':>14} {'CPU s':>7}")
    for inv in V3_INVARIANTS:
        if args.invariant not in (None, inv.name):
            continue
        facts = (step, z3.Not(inv.holds(enc, p, n)))
        figures = (*_whole(background, facts),
                   *_per_action(background, facts, a.act, available(enc)))
        totals = [t + f for t, f in zip(totals, figures, strict=True)]
        print(f"{inv.name:36} {figures[0]:>12} {figures[1]:>7.2f} {figures[2]:>14} "
              f"{figures[3]:>7.2f}")
    print(f"{'total':36} {totals[0]:>12} {totals[1]:>7.2f} {totals[2]:>14} {totals[3]:>7.2f}")
    if totals[2] and totals[3]:
        print(f"ratio one/split: units {totals[0] / totals[2]:.2f}x, "
              f"CPU {totals[1] / totals[3]:.2f}x")


if __name__ == "__main__":
    main()
