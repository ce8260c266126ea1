"""Run the SMT checker over the cells of the matrix and compare with the expectations.

Cells are grouped by (variant, environment) so that one unrolling serves every property of the
group. The all-depth methods run first (`proved_first`): for V3, S1-S3 by the inductive
invariant (`invariant.V3_INVARIANTS`, re-checked for the group's own environment), S2 for every
variant with unflawed LRUs by the budget's certificate, and, for the properties the cells
expect to hold, 1-induction for S1, the hand-written mirror certificate for H1, S1, S3
(`relational`, where `mirror` wants it), and z3's CHC engine Spacer for `proved_first.BY_CHC`, its
invariant re-checked with fresh solvers (`chc`). Only the properties they leave open go
through bounded model checking with iterative deepening (the unsatisfiable queries of deep BMC
were mostly re-proofs of properties that hold for all depths: `benchmarks/bench_smt.py --prune
first`).

Every solver query is bounded by z3's resource limit (`budget`), never by seconds, and every
group runs in a process of its own, started fresh for it: the units a query spends depend on
what the z3 context built before it, so a group's verdicts must not depend on which groups a
worker happened to run first. The verdicts are then a function of the cells and the limits,
the same on an idle and on a loaded machine.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from model_checks import executor
from model_checks.kernel.cells import agreement
from model_checks.kernel.matrix import Expectation
from model_checks.kernel.verdict_records import VerdictRecord, checker_named
from model_checks.smt.budget import BMC_RLIMIT
from model_checks.smt.decided_cells import SmtCell, own_expectation
from model_checks.smt.encode.symbols import Encoding, encoding_for
from model_checks.smt.judged import encoded_safety
from model_checks.smt.prove.invariant import CertificateRejected, certificates, prove
from model_checks.smt.prove.proved_first import (
    REACHABLE_DEPTH,
    FirstProofs,
    ProveOptions,
    prove_first,
)
from model_checks.smt.results import (
    ProvedAllDepths,
    ProvedToBound,
    Result,
    Unknown,
    Violated,
    to_record,
)
from model_checks.smt.search.bmc import BmcOptions, bmc_many
from spec.drift import Environment

PROVED_BY_INVARIANT = encoded_safety()
Progress = Callable[[str], None]


@dataclass(frozen=True)
class SmtRun:
    """How the Z3 checker decides its cells: holding properties are proved by BMC to `depth`;
    a counterexample to a property expected to break is searched to `search_depth` (None:
    `depth`); each BMC query is bounded by `rlimit` resource units; `prove`: how the
    all-depth methods run first (`ProveOptions`)."""

    depth: int
    rlimit: int = BMC_RLIMIT
    search_depth: int | None = None
    prove: ProveOptions = field(default_factory=ProveOptions)


@dataclass(frozen=True)
class CellOutcome:
    cell: SmtCell
    result: Result
    record: VerdictRecord
    error: str = ""  # the group's task failed with this error (its result is Unknown)

    @property
    def status(self) -> str:
        """"match", "mismatch" (a finding), "undecided" (outside the encoding or budget): the
        record's `cells.agreement` with the cell's expectation; or "failed" (the task raised:
        a defect, not a verdict)."""
        if self.error:
            return "failed"
        checker = checker_named(self.record.checker)
        return agreement(checker, self.cell.expected, self.record.verdict).value


def _encoding(cell: SmtCell) -> Encoding:
    return encoding_for(cell.variant, cell.environment)


def _proved(enc: Encoding, props: tuple[str, ...], rlimit: int) -> dict[str, Result]:
    """All-depth proofs by the certificates that apply (`invariant.certificates`: V3's for
    S1-S3, the budget's for S2), each re-checked for this environment. Where drift sources are
    left out, a proof covers the encoded part only: reported as unknown, with what was proved."""
    results: dict[str, Result] = {}
    for invariants, proves in certificates(enc):
        wanted = tuple(p for p in props if p in proves and p not in results)
        if not wanted:
            continue
        try:
            proofs = prove(enc, invariants, wanted, rlimit)
        except CertificateRejected:
            continue
        results.update({proof.property: _scoped(enc, proof) for proof in proofs})
    return results


def _scoped(enc: Encoding, proof: ProvedAllDepths) -> Result:
    if not enc.left_out:
        return proof
    encoded = Environment.of(enc.encoded_environment).text
    return Unknown(proof.property, 0, f"proved for all depths under {encoded} "
                   f"({proof.certificate}), not for the sources left out", proof.seconds)


def run_group(group: list[SmtCell], run: SmtRun, progress: Progress | None = None
              ) -> tuple[list[CellOutcome], str]:
    """Decide every cell of one (variant, environment) group; returns a summary line too.

    First the all-depth methods (`proved_first.prove_first`, as `run.prove` says:
    certificates, 1-induction, the mirror certificate, Spacer). Of the properties left open,
    those expected to hold are proved to `run.depth` by BMC; a counterexample to a property
    expected to break is searched to `run.search_depth` (default: `run.depth`), and to a
    property Spacer found reachable to `REACHABLE_DEPTH`, so that it comes back as a
    replayed trace. Satisfiable queries are cheap, proofs of deep bounds are not. Each BMC
    query is bounded by `run.rlimit` resource units."""
    depth, rlimit, search_depth = run.depth, run.rlimit, run.search_depth
    certificate_rlimit = run.prove.certificate_rlimit
    enc = _encoding(group[0])
    props = tuple(dict.fromkeys(c.property for c in group))
    start = time.perf_counter()
    holding = tuple(dict.fromkeys(c.property for c in group
                                  if c.expected is Expectation.HOLDS))
    first = prove_first(enc, props, holding, run.prove)
    results: dict[str, Result] = dict(first.proofs)
    if enc.left_out:  # proofs of the encoded part only: said so, not lifted
        results = _proved(enc, tuple(p for p in props if p in PROVED_BY_INVARIANT),
                          certificate_rlimit)
    rest = tuple(p for p in props if p not in results)
    if rest:
        deepest = max(depth, search_depth or depth)
        limits = {c.property: deepest if _findable(enc, c) else depth for c in group}
        limits.update({prop: REACHABLE_DEPTH for prop in first.reachable})
        bounded = BmcOptions(rlimit, progress, limits)
        results.update(bmc_many(enc, rest, max(limits.values()), bounded))
        results.update(_spacer_reachable(first, results))
    results.update(_in_smaller_instance(enc, group, results, deepest_of(depth, search_depth),
                                        rlimit))
    summary = " ".join(f"{p}:{_short(results[p])}" for p in props)
    searched = [r.peak for r in results.values() if not isinstance(r, ProvedAllDepths)]
    proved = [r.peak for r in results.values() if isinstance(r, ProvedAllDepths)]
    peaks = f"peak rlimit: BMC {max(searched, default=0)}, certificate {max(proved, default=0)}"
    line = f"{enc.describe()}: {summary} ({time.perf_counter() - start:.1f} s, {peaks})"
    outcomes = [CellOutcome(c, results[c.property], to_record(enc, results[c.property]))
                for c in group]
    return outcomes, line


def deepest_of(depth: int, search_depth: int | None) -> int:
    return max(depth, search_depth or depth)


def _in_smaller_instance(
    enc: Encoding, group: list[SmtCell], results: dict[str, Result], depth: int,
    rlimit: int,
) -> dict[str, Result]:
    """Counterexamples the whole instance could not reach in time, searched again with one item
    per request (a cheaper query over a sub-instance: what it finds is a counterexample of the
    whole one, replayed on the spec, shortest among one-item traces; the whole instance has
    none shorter than the depth it reached)."""
    if enc.m == 1:
        return {}
    wanted = tuple(
        c.property for c in group
        if c.expected is Expectation.BREAKS and isinstance(results[c.property], Unknown)
    )
    if not wanted:
        return {}
    small = replace(enc, bounds=replace(enc.bounds, max_items=1, max_items_under_d8=1))
    found: dict[str, Result] = {}
    for prop, result in bmc_many(small, wanted, depth, BmcOptions(rlimit)).items():
        if isinstance(result, Violated):
            before = results[prop]
            reached = before.bound if isinstance(before, Unknown) else 0
            scope = (f"shortest with one item per request (with two: none within "
                     f"{reached} steps, then a query ran out of its rlimit)")
            found[prop] = replace(result, scope=scope)
    return found


def _spacer_reachable(first: FirstProofs, results: dict[str, Result]) -> dict[str, Result]:
    """A property Spacer found reachable that BMC did not break within `REACHABLE_DEPTH`
    (its queries ran out): undecided, saying so, never a bounded proof."""
    said: dict[str, Result] = {}
    for prop, used in first.reachable.items():
        found = results[prop]
        if isinstance(found, ProvedToBound | Unknown):
            bmc = (f"none within {found.bound} steps" if isinstance(found, ProvedToBound)
                   else f"none within {max(found.bound, 0)} steps, then {found.reason}")
            said[prop] = Unknown(prop, max(found.bound, 0), f"Spacer finds a state breaking "
                                 f"{prop} reachable (used {used} units); BMC found {bmc}",
                                 found.seconds, peak=found.peak)
    return said


def run_cells(
    cells: list[SmtCell],
    run: SmtRun,
    progress: Progress | None = None,
    jobs: int = 1,
    backend: executor.Backend | None = None,
) -> list[CellOutcome]:
    """Decide every cell as `run` says (`run_group`); each group is one task of the executor,
    on `backend` (default: `jobs` local processes), in a process forked for it alone (the
    units a z3 query spends depend on what its context built before), the groups of more
    drift sources (larger encodings) started first; progress: one line per group. A group
    whose task failed gives its cells the status "failed", the other groups' results are
    kept."""
    groups: dict[tuple[str, tuple[str, ...]], list[SmtCell]] = {}
    for cell in cells:
        groups.setdefault((cell.variant.name, cell.environment), []).append(cell)
    work = [executor.Task(f"{variant}_{'_'.join(env) or 'none'}", run_group, (group, run, None),
                         cost=len(env))
            for (variant, env), group in groups.items()]
    report = None if progress is None else executor.LineProgress(
        "Z3 groups", lambda done: done.value[1], progress)
    results = executor.run(work, backend or executor.LocalProcesses(jobs), report)
    outcomes: list[CellOutcome] = []
    for group, result in zip(groups.values(), results, strict=True):
        if isinstance(result, executor.Failed):
            outcomes += [_failed(cell, result) for cell in group]
        else:
            outcomes += result.value[0]
    return outcomes


def _failed(cell: SmtCell, failed: executor.Failed) -> CellOutcome:
    unknown = Unknown(cell.property, 0, f"the task failed: {failed.error}", failed.seconds)
    return CellOutcome(cell, unknown, to_record(_encoding(cell), unknown), failed.error)


def _findable(enc: Encoding, cell: SmtCell) -> bool:
    """Worth a deep search: expected to break, and (where drift sources are left out) expected
    to break in the encoded part of the environment too."""
    if cell.expected is not Expectation.BREAKS:
        return False
    if not enc.left_out:
        return True
    encoded = tuple(d.value for d in enc.encoded_environment)
    return own_expectation(enc.variant, encoded, cell.property) is Expectation.BREAKS


def _short(result: Result) -> str:
    if isinstance(result, Violated):
        return f"cex@{result.depth}"
    if isinstance(result, ProvedToBound):
        return f"ok<={result.bound}"
    if isinstance(result, ProvedAllDepths):
        return "proved"
    if result.bound == 0 and result.reason.startswith("proved for all depths"):
        return "proved(encoded part)"
    return f"unknown<={result.bound}"
