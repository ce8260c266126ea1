"""Typed results of the SMT checker, and their verdict records."""

from __future__ import annotations

from dataclasses import dataclass

from model_checks.kernel.verdict_records import Z3_BMC, Z3_INDUCTION, Verdict, VerdictRecord
from model_checks.smt.encode.symbols import Encoding
from spec import Config, Trace
from spec.drift import Environment


@dataclass(frozen=True)
class Violated:
    """A counterexample of `depth` steps, decoded into spec actions and replayed on the spec."""

    property: str
    depth: int
    config: Config
    trace: Trace
    seconds: float
    scope: str = ""  # where it is shortest, when not in the query's whole instance
    peak: int = 0  # the most rlimit units one query of its search spent


@dataclass(frozen=True)
class ProvedToBound:
    """No violation in any trace of at most `bound` steps, for every budget and size in range."""

    property: str
    bound: int
    seconds: float
    peak: int = 0  # the most rlimit units one query of the proof spent


@dataclass(frozen=True)
class ProvedAllDepths:
    """Proved for every depth by `method`; `certificate` names the checked invariant."""

    property: str
    method: str
    certificate: str
    seconds: float
    instance: str = ""  # "any" for a parametric proof; empty: the encoding's own instance
    peak: int = 0  # the most rlimit units one query of the certificate's check spent


@dataclass(frozen=True)
class Unknown:
    """Not decided: `bound` steps were explored without a violation, then a query ran out of
    its resource limit having spent `used` units (the reason says so), or the solver gave up."""

    property: str
    bound: int
    reason: str
    seconds: float
    used: int = 0  # rlimit units the last query spent (its limit, when it ran out)
    peak: int = 0  # the most rlimit units one query of the search spent


Result = Violated | ProvedToBound | ProvedAllDepths | Unknown


def _env(enc: Encoding) -> tuple[str, ...]:
    return Environment.of_config(enc).sources


def instance(enc: Encoding) -> str:
    """The finite instance an encoding's verdicts hold for, in words: its bounds, items per
    request, front ends, and (under D7) the contents per identity, each sized on its own
    within the size range."""
    b = enc.bounds
    items = "1 item" if enc.m == 1 else f"{enc.m} items"
    if b.duplicates:
        items += " (an identity may repeat)"
    front_ends = "1 front end" if enc.front_ends == 1 else f"{enc.front_ends} front ends"
    if enc.engines > 1:
        front_ends += f" and {enc.engines} engines behind a router"
    contents = "" if enc.versions == 1 else f", {enc.versions} contents per identity"
    per_content = "" if enc.versions == 1 else " per content"
    return (f"{enc.k} identities{contents}, {b.max_requests} requests ({b.max_in_flight} "
            f"unfinished), {items} per request, {front_ends}, {b.max_retries} retries, "
            f"budget {b.budget_range[0]}..{b.budget_range[1]}, "
            f"sizes {b.size_range[0]}..{b.size_range[1]}{per_content}")


def to_record(enc: Encoding, result: Result, path: str | None = None) -> VerdictRecord:
    """The verdict record of a result (checker z3-bmc or z3-induction), with its instance."""
    env = _env(enc)
    variant = enc.variant.name
    left_out = ", ".join(sorted((d.value for d in enc.left_out), key=lambda x: int(x[1:])))
    note = f"not encoded: {left_out}; " if left_out else ""
    if isinstance(result, Violated):
        return VerdictRecord(
            Z3_BMC.record, variant, env, result.property, Verdict.COUNTEREXAMPLE, result.depth,
            "steps", round(result.seconds, 3), result.depth, path,
            note + (result.scope or "shortest counterexample") + ", replayed on the spec",
            instance(_found_in(enc, result)),
        )
    if isinstance(result, ProvedToBound):
        return VerdictRecord(
            Z3_BMC.record, variant, env, result.property, Verdict.PROVED, result.bound, "steps",
            round(result.seconds, 3), detail=note + "every budget 1..4 and size 1..3",
            instance=instance(enc),
        )
    if isinstance(result, ProvedAllDepths):
        return VerdictRecord(
            Z3_INDUCTION.record, variant, env, result.property, Verdict.PROVED, None, "depth",
            round(result.seconds, 3), detail=note + f"{result.method}: {result.certificate}",
            instance=result.instance or instance(enc),
        )
    return VerdictRecord(
        Z3_BMC.record, variant, env, result.property, Verdict.UNKNOWN, result.bound, "steps",
        round(result.seconds, 3), detail=note + result.reason, instance=instance(enc),
    )


def _found_in(enc: Encoding, result: Violated) -> Encoding:
    """The encoding whose instance a counterexample was found in (one item per request when
    the runner searched the smaller instance)."""
    from dataclasses import replace

    if result.config.max_items >= enc.m:
        return enc
    smaller = replace(enc.bounds, max_items=result.config.max_items,
                      max_items_under_d8=result.config.max_items)
    return replace(enc, bounds=smaller)
