"""Verdict records: the one result format every checker of this project reports.

A record says which checker judged which property, for which variant and environment, what it
found, how far it looked (`bound`, in `bound_unit`), and how long it took. Results are typed
values; JSON is only their serialisation (`write_records`, `read_records`).
"""

from __future__ import annotations

import enum
import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path


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


def write_records(path: Path, records: Iterable[VerdictRecord]) -> None:
    """Write records as one JSON document: {"records": [...]}, sorted keys, stable order."""
    payload = {"records": [r.to_json() for r in records]}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload, indent=2, sort_keys=True) + "\n")


def read_records(path: Path) -> list[VerdictRecord]:
    data = json.loads(path.read_text())
    return [VerdictRecord.from_json(r) for r in data["records"]]
