"""Typed results of the SMT checker, and their verdict records."""

from __future__ import annotations

from dataclasses import dataclass

from model_checks.records import Verdict, VerdictRecord
from model_checks.smt.symbols import Encoding
from spec import Config, Trace
from spec.drift import Drift


@dataclass(frozen=True)
class Violated:
    """A counterexample of `depth` steps, decoded into spec actions and replayed on the spec."""

    property: str
    depth: int
    config: Config
    trace: Trace
    seconds: float
    scope: str = ""  # where it is shortest, when not in the query's whole instance


@dataclass(frozen=True)
class ProvedToBound:
    """No violation in any trace of at most `bound` steps, for every budget and size in range."""

    property: str
    bound: int
    seconds: float


@dataclass(frozen=True)
class ProvedAllDepths:
    """Proved for every depth by `method`; `certificate` names the checked invariant."""

    property: str
    method: str
    certificate: str
    seconds: float


@dataclass(frozen=True)
class Unknown:
    """Not decided: `bound` steps were explored without a violation (or the solver gave up)."""

    property: str
    bound: int
    reason: str
    seconds: float


Result = Violated | ProvedToBound | ProvedAllDepths | Unknown


def _env(enc: Encoding) -> tuple[str, ...]:
    return tuple(d.value for d in sorted(enc.environment, key=lambda d: int(d.value[1:])))


def to_record(enc: Encoding, result: Result, path: str | None = None) -> VerdictRecord:
    """The verdict record of a result (checker z3-bmc or z3-induction)."""
    env = _env(enc)
    variant = enc.variant.name
    left_out = ", ".join(sorted((d.value for d in enc.left_out), key=lambda x: int(x[1:])))
    note = f"not encoded: {left_out}; " if left_out else ""
    if isinstance(result, Violated):
        return VerdictRecord(
            "z3-bmc", variant, env, result.property, Verdict.COUNTEREXAMPLE, result.depth,
            "steps", round(result.seconds, 3), result.depth, path,
            note + (result.scope or "shortest counterexample") + ", replayed on the spec",
        )
    if isinstance(result, ProvedToBound):
        return VerdictRecord(
            "z3-bmc", variant, env, result.property, Verdict.PROVED, result.bound, "steps",
            round(result.seconds, 3), detail=note + "every budget 1..4 and size 1..3",
        )
    if isinstance(result, ProvedAllDepths):
        return VerdictRecord(
            "z3-induction", variant, env, result.property, Verdict.PROVED, None, "depth",
            round(result.seconds, 3), detail=note + f"{result.method}: {result.certificate}",
        )
    return VerdictRecord(
        "z3-bmc", variant, env, result.property, Verdict.UNKNOWN, result.bound, "steps",
        round(result.seconds, 3), detail=note + result.reason,
    )


def drifts(*ids: str) -> frozenset[Drift]:
    return frozenset(Drift(i) for i in ids)
