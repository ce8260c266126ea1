"""Do two runs give the same verdicts? Compare two records files cell by cell: the answer a
refactoring must leave unchanged.

    .venv/bin/python benchmarks/compare_records.py BEFORE.json AFTER.json [--ignore-detail]
        [--only-in-both]

Records are matched by (checker, variant, environment, property, detail's first word for the
records several of one checker may write per cell) and compared on their verdict, bound and
its unit, counterexample length, instance and detail (`--ignore-detail`: not the detail, whose
text may carry figures a solver's search order changes, such as the clause count of an
inductive invariant Spacer found). The time a record took and where its trace file lies are
never compared (a rename of the trace files is no change of verdict). Printed: the number of
records on each side, the cells only one side judged (listed by (checker, environment) group;
`--only-in-both` compares the cells both judged and lists the others without failing), and
every record that differs. Exit 0: the same; 1: a difference; 2: a file cannot be read, or
no cell is judged in both (nothing compared is no answer).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

Key = tuple[str, str, tuple[str, ...], str, str]
COMPARED = ("verdict", "bound", "bound_unit", "counterexample_length", "instance", "detail")


def _load(path: Path) -> list[dict[str, Any]]:
    try:
        records = json.loads(path.read_text())["records"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        print(f"error: {path}: not a records file ({error})", file=sys.stderr)
        raise SystemExit(2) from error
    return list(records)


def _keyed(records: list[dict[str, Any]]) -> dict[Key, list[dict[str, Any]]]:
    keyed: dict[Key, list[dict[str, Any]]] = {}
    for record in records:
        words = str(record.get("detail", "")).split()
        key = (record["checker"], record["variant"], tuple(record["environment"]),
               record["property"], words[0] if words else "")
        keyed.setdefault(key, []).append(record)
    return keyed


def _fields(record: dict[str, Any], ignore_detail: bool) -> tuple[Any, ...]:
    return tuple(record.get(name) for name in COMPARED if not (ignore_detail
                                                              and name == "detail"))


def _groups(keys: set[Key]) -> str:
    counts = Counter((k[0], "+".join(k[2]) or "none") for k in keys)
    return "; ".join(f"{checker} {env}: {n}" for (checker, env), n in sorted(counts.items()))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--ignore-detail", action="store_true")
    parser.add_argument("--only-in-both", action="store_true")
    args = parser.parse_args()
    before, after = _keyed(_load(args.before)), _keyed(_load(args.after))
    if not set(before) & set(after):
        print("error: no cell is judged in both files: nothing was compared", file=sys.stderr)
        return 2
    print(f"{sum(map(len, before.values()))} records before, "
          f"{sum(map(len, after.values()))} after")
    only = {"before": set(before) - set(after), "after": set(after) - set(before)}
    for side, keys in only.items():
        if keys:
            print(f"cells only {side}: {len(keys)} ({_groups(keys)})")
    differ = 0
    for key in sorted(set(before) & set(after)):
        old = sorted(_fields(r, args.ignore_detail) for r in before[key])
        new = sorted(_fields(r, args.ignore_detail) for r in after[key])
        if old != new:
            differ += 1
            print(f"DIFFER {key}:\n  before {old}\n  after  {new}")
    print(f"{differ} of {len(set(before) & set(after))} cells judged on both sides differ")
    unmatched = any(only.values()) and not args.only_in_both
    return 1 if differ or unmatched else 0


if __name__ == "__main__":
    sys.exit(main())
