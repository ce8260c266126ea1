"""Verdict records: the one result format every checker of this project reports.

A record says which checker judged which property, for which variant and environment, what it
found, how far it looked (`bound`, in `bound_unit`), and how long it took. Results are typed
values; JSON is only their serialisation (`write_records`, `read_records`).
"""

from __future__ import annotations

import enum
import json
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

from model_checks.kernel import result_files


@dataclass(frozen=True, slots=True)
class Checker:
    """A checker as its verdict records name it (`VerdictRecord.checker`): declared once
    here, and read by the summary, the results snapshot, the docs and the cross-checks."""

    record: str
    """The `checker` field of its records."""
    title: str
    """Its name in prose ("Z3", "the per-cell explorer")."""
    letter: str = ""
    """Its letter in the main job's summary codes (empty: not in the summary)."""
    judges_cells: bool = False
    """Its records judge cells of the expected matrix (kept in the results snapshot)."""
    matrix_instance: bool = False
    """It searches the matrix's own instance (`instance.config_for`), not a smaller one: its
    traces are the snapshot's evidence, and the explorer's proofs are checked against it."""
    short: str = ""
    """Its name where one name stands for every record name of one checker (Z3's `z3-bmc`
    and `z3-induction` are both `z3`): the `mutants` command's `--checkers` and its table's
    columns. Empty: the record name."""

    @property
    def name(self) -> str:
        """`short`, or the record name."""
        return self.short or self.record


SCENARIOS = Checker("scenarios", "a scenario", judges_cells=True, short="scenario")
HYPOTHESIS = Checker("hypothesis", "Hypothesis", "H", judges_cells=True, matrix_instance=True)
Z3_BMC = Checker("z3-bmc", "Z3", "Z", judges_cells=True, matrix_instance=True, short="z3")
Z3_INDUCTION = Checker("z3-induction", "Z3", "Z", judges_cells=True, matrix_instance=True,
                       short="z3")
EXPLORE = Checker("explore", "the per-cell explorer", "E", judges_cells=True)
EXPLORE_LATTICE = Checker("explore-lattice", "the lattice's explorer")
PAIR_WITNESS = Checker("pair-witness", "a pair cell's witness")
CONFORMANCE = Checker("conformance", "conformance")
CONFORMANCE_SAFETY = Checker("conformance-safety", "conformance (the implementation's safety)")

CHECKERS: tuple[Checker, ...] = (
    SCENARIOS, HYPOTHESIS, Z3_BMC, Z3_INDUCTION, EXPLORE, EXPLORE_LATTICE, PAIR_WITNESS,
    CONFORMANCE, CONFORMANCE_SAFETY,
)
"""Every checker that writes verdict records, in the order tables list them."""

def checker_named(record: str) -> Checker:
    """The checker whose records name it `record` (a `KeyError` names the known ones)."""
    for checker in CHECKERS:
        if checker.record == record:
            return checker
    known = ", ".join(c.record for c in CHECKERS)
    raise KeyError(f"unknown checker {record!r}, expected one of {known}")


MATRIX_INSTANCE: frozenset[str] = frozenset(c.record for c in CHECKERS if c.matrix_instance)
"""The record names of the checkers that search the matrix's own instance."""


class Verdict(enum.Enum):
    HOLDS = "holds"  # no violation within the bound (sampling or bounded search)
    PROVED = "proved"  # proved, to `bound` or for all depths (bound = None)
    COUNTEREXAMPLE = "counterexample"  # a violating trace was found and replayed
    UNKNOWN = "unknown"  # the checker could not decide (timeout, unsupported); see detail
    VACUOUS = "vacuous"  # cannot fail in this instance (its premise is unreachable); see detail

    def __repr__(self) -> str:
        return f"Verdict.{self.name}"


@dataclass(frozen=True, slots=True)
class VerdictRecord:
    checker: str  # "scenarios", "hypothesis", "z3-bmc", "z3-induction", "conformance", ...
    variant: str  # "V0".."V3" or a mutant's name
    environment: tuple[str, ...]  # drift source ids, e.g. ("D1", "D7")
    property: str  # "S1".."L4"
    verdict: Verdict
    bound: int | None  # how far the checker looked; None with PROVED means all depths
    bound_unit: str  # "steps", "examples", "depth"
    seconds: float
    counterexample_length: int | None = None
    counterexample_path: str | None = None
    detail: str = ""
    instance: str = ""  # the instance a proof holds for ("any": every instance size)

    def to_json(self) -> dict[str, object]:
        data = asdict(self)
        data["environment"] = list(self.environment)
        data["verdict"] = self.verdict.value
        return data

    @classmethod
    def from_json(cls, data: dict[str, object]) -> VerdictRecord:
        fields = dict(data)
        fields["environment"] = tuple(fields["environment"])  # type: ignore[arg-type]
        fields["verdict"] = Verdict(fields["verdict"])
        fields.setdefault("instance", "")  # records written before the field existed
        return cls(**fields)  # type: ignore[arg-type]


def write_records(path: Path, records: Iterable[VerdictRecord],
                  extra: Mapping[str, object] | None = None) -> None:
    """Write records as one JSON document: {"records": [...]} (and `extra`'s keys beside
    it), sorted keys, stable order."""
    payload: dict[str, object] = {**(extra or {}), "records": [r.to_json() for r in records]}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload, indent=2, sort_keys=True) + "\n")


def read_records(path: Path) -> list[VerdictRecord]:
    """The records of a records file, plain or compressed (`kernel.result_files`)."""
    data = result_files.read(path)
    return [VerdictRecord.from_json(r) for r in data["records"]]
