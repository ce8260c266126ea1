"""No hand-written list of property, variant or drift ids outside spec/.

The spec declares the ids once (`spec.registry()`, `spec.VARIANTS`, `spec.Drift`); the
checkers read them from there. This test scans the checkers' source (model_checks/, tests
excluded) for what restating them looks like:

- a tuple, list or set display of id strings covering a whole family, or all of it but one
  (`("V0", "V1", "V2", "V3")`, `("V1", "V2", "V3")`), the safety properties being a family
  of their own (`("S1", "S2", "S3")`: `spec.safety_ids()`);
- a dict display keyed by such a list of variants (`{"V0": ..., "V1": ..., "V2": ...}`):
  a new variant would silently get no entry (tables keyed by property or drift id are data
  each checked for completeness, such as the checkers' tables by `test_arch_checker_tables.gaps`);
- a string listing a whole family (`"S1 S2 S3 S4 H1 L1 L2 L3 L4"`);
- a pattern enumerating a family (`V[0-3]`, `[SHL]\\d`);
- ids spelled by counting (`f"D{n}" for n in range(1, 12)`).

A table keyed by id through keyword arguments (`dict(V0=..., V1=...)`, `per_variant(...)`),
whose callee requires every id, is data about each id and is not flagged; a subset of a
family (an environment, the properties a cell breaks) is data too.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from spec import DRIFT_IDS, VARIANT_NAMES, property_ids, safety_ids

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "model_checks"

ALLOWED: dict[str, str] = {}
"""Files whose findings are tolerated, with the reason. An entry with no finding left fails
the test, so the list only shrinks."""

_PATTERN = re.compile(r"(?<![A-Za-z])[VDSHL]\[\d-\d+\]|\[[SHLI]{2,}\]")
_PREFIXES = {"V", "D", "S", "H", "L"}


def families() -> dict[str, frozenset[str]]:
    return {
        "property": frozenset(property_ids()),
        "variant": frozenset(VARIANT_NAMES),
        "drift": frozenset(DRIFT_IDS),
        "safety property": frozenset(safety_ids()),
    }


def _restates(ids: set[str], family: frozenset[str], whole_only: bool) -> bool:
    if not ids or not ids <= family:
        return False
    need = len(family) if whole_only or len(family) < 4 else len(family) - 1
    return len(ids) >= need


def findings_in(text: str, name: str) -> list[str]:
    """Every restated id list in one module's source, as "name:line: what"."""
    found: list[str] = []
    tree = ast.parse(text)
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Tuple | ast.List | ast.Set | ast.Dict):
            elts = node.keys if isinstance(node, ast.Dict) else node.elts
            shape = "dict keyed by" if isinstance(node, ast.Dict) else "list of"
            strings = [e.value for e in elts
                       if isinstance(e, ast.Constant) and isinstance(e.value, str)]
            if strings and len(strings) == len(elts):
                for family, ids in families().items():
                    if shape == "dict keyed by" and family != "variant":
                        continue
                    if _restates(set(strings), ids, whole_only=False):
                        found.append(f"{name}:{line}: a {shape} {family} ids")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            tokens = set(re.split(r"[\s,]+", node.value.strip()))
            for family, ids in families().items():
                if _restates(tokens, ids, whole_only=True):
                    found.append(f"{name}:{line}: a string listing every {family} id")
            if _PATTERN.search(node.value):
                found.append(f"{name}:{line}: a pattern enumerating ids")
        elif isinstance(node, ast.GeneratorExp | ast.ListComp | ast.SetComp):
            elt = node.elt
            counted = any(isinstance(g.iter, ast.Call) and isinstance(g.iter.func, ast.Name)
                          and g.iter.func.id == "range" for g in node.generators)
            if (counted and isinstance(elt, ast.JoinedStr) and elt.values
                    and isinstance(elt.values[0], ast.Constant)
                    and elt.values[0].value in _PREFIXES):
                found.append(f"{name}:{line}: ids spelled by counting")
    return found


def scan() -> dict[str, list[str]]:
    """Per source file (relative to the repository), its findings."""
    result: dict[str, list[str]] = {}
    for path in sorted(SOURCE.rglob("*.py")):
        name = path.relative_to(ROOT).as_posix()
        found = findings_in(path.read_text(), name)
        if found:
            result[name] = found
    return result


def test_arch_no_hand_written_id_lists_outside_spec() -> None:
    found = scan()
    unexpected = [f for name, items in found.items() if name not in ALLOWED for f in items]
    assert not unexpected, "derive these from spec (registry, VARIANTS, Drift):\n" + "\n".join(
        unexpected)
    stale = [name for name in ALLOWED if name not in found]
    assert not stale, f"allowed files with nothing left to allow: {stale}; drop them"


def test_arch_the_scan_finds_each_kind_of_restatement() -> None:
    """The known-bad inputs: each shape of restatement is found, and data is not."""
    names, props = VARIANT_NAMES, property_ids()
    bad = {
        f"VARIANT_NAMES = {names!r}": "a list of variant ids",
        f"OTHERS = {list(names[1:])!r}": "a list of variant ids",
        f"P = {set(props)!r}": "a list of property ids",
        'D = tuple(f"D{n}" for n in range(1, 12))': "ids spelled by counting",
        'X = re.compile(r"V[0-3] (?P<p>[SHL]\\d)")': "a pattern enumerating ids",
        f"TEXT = {' '.join(props)!r}": "a string listing every property id",
        f"ALL = {DRIFT_IDS!r}": "a list of drift ids",
        f"SAFE = {safety_ids()!r}": "a list of safety property ids",
        "DEFAULT: tuple[str, ...] = " + repr(safety_ids()): "a list of safety property ids",
        "TABLE = {" + ", ".join(f"{v!r}: 0" for v in names) + "}":
            "a dict keyed by variant ids",
        "NEEDS = {" + ", ".join(f"{v!r}: 'L3'" for v in names[1:]) + "}":
            "a dict keyed by variant ids",
    }
    for source, what in bad.items():
        found = findings_in(source, "m.py")
        assert any(what in f for f in found), (source, found)
    data = [
        'ENV = ("D3", "D7", "D9", "D11")',
        'BREAKS = dict(V0="S3 H1 L4", V1="H1", V2="H1", V3="H1")',
        'CELL = "S1 S3 S4 H1 L1 L2 L3 L4"',
        'PAIR = ("V0", "V1")',
        'SOME = {"S1": 1, "S2": 2}',
        'TABLE = {"S1": 1, "S2": 2, "S3": 3, "S4": 4, "H1": 5, "L1": 6, "L2": 7, "L3": 8, '
        '"L4": 9}',
    ]
    for source in data:
        assert findings_in(source, "m.py") == [], source


def test_arch_checker_names_are_declared_once() -> None:
    """Checker names come from `records.CHECKERS`: unique record names, and the summary's
    letters, the snapshot's checkers and the cross-checked ones are read off it."""
    from model_checks.answers import summary
    from model_checks.docs import snapshot
    from model_checks.kernel import verdict_records as records

    names = [c.record for c in records.CHECKERS]
    assert len(names) == len(set(names))
    assert {c.record: c.letter for c in records.CHECKERS if c.letter} == summary.LETTER
    assert set(snapshot.CHECKERS) == {c.record for c in records.CHECKERS if c.judges_cells}
    assert set(snapshot.TRACE_CHECKERS) < set(snapshot.CHECKERS)
    searched = {records.HYPOTHESIS.record, records.Z3_BMC.record, records.Z3_INDUCTION.record}
    assert searched == records.MATRIX_INSTANCE
