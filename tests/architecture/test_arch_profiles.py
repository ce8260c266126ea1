"""One profile type: every profile class of `model_checks/` (a class named `...Profile`)
extends `model_checks.kernel.profiles.Profile`, and every table of profiles (a module-level
`PROFILES` or `..._PROFILES`) is built by `profile_table`, so its keys are the profiles' own
names, among `PROFILE_NAMES`. Read from the source with `ast`; each rule is also run on a
planted source, to show it can fail."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from model_checks.conform.profiles import PROFILES as CONFORM
from model_checks.explore.command import PROFILES as EXPLORE
from model_checks.explore.lattice_profiles import LATTICE_PROFILES
from model_checks.kernel.profiles import PROFILE_NAMES, Profile, profile_table
from model_checks.simulate.profiles import PROFILES as SIMULATE

ROOT = Path(__file__).resolve().parents[2]


def _base_names(node: ast.ClassDef) -> set[str]:
    return {b.id if isinstance(b, ast.Name) else b.attr for b in node.bases
            if isinstance(b, ast.Name | ast.Attribute)}


def stray_profiles(name: str, source: str) -> list[str]:
    """The profile classes of `source` that extend no profile, and the tables of profiles not
    built by `profile_table`, as "name:line: what"."""
    found = []
    for node in ast.walk(ast.parse(source, name)):
        if (isinstance(node, ast.ClassDef) and node.name.endswith("Profile")
                and node.name != "Profile"
                and not any(b.endswith("Profile") for b in _base_names(node))):
            found.append(f"{name}:{node.lineno}: class {node.name} extends no Profile")
    for node in ast.parse(source, name).body:
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, ast.AnnAssign) else [])
        table = [t.id for t in targets if isinstance(t, ast.Name) and t.id.endswith("PROFILES")]
        value = getattr(node, "value", None)
        built = (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                 and value.func.id == "profile_table")
        if table and not built:
            found.append(f"{name}:{node.lineno}: {table[0]} is not built by profile_table")
    return found


def test_arch_every_profile_is_one_type() -> None:
    found = [line for path in sorted((ROOT / "model_checks").rglob("*.py"))
             for line in stray_profiles(str(path.relative_to(ROOT)), path.read_text())]
    assert not found, ("profiles outside the one profile type (model_checks.kernel.profiles): "
                       f"{found}")


def test_arch_a_planted_stray_profile_is_found() -> None:
    planted = (
        "class Profile: pass\n"
        "class GoodProfile(Profile): pass\n"
        "class BareProfile: pass\n"
        "PROFILES = {'ci': (1, 2)}\n"
        "OTHER_PROFILES = profile_table(GoodProfile('ci'))\n"
    )
    assert stray_profiles("planted.py", planted) == [
        "planted.py:3: class BareProfile extends no Profile",
        "planted.py:4: PROFILES is not built by profile_table",
    ]


@pytest.mark.parametrize("table", [SIMULATE, CONFORM, EXPLORE, LATTICE_PROFILES],
                         ids=["simulate", "conform", "explore", "lattice"])
def test_arch_every_table_is_keyed_by_its_profiles_names(table: dict[str, Profile]) -> None:
    assert table and set(table) <= set(PROFILE_NAMES)
    assert all(isinstance(p, Profile) and p.name == name for name, p in table.items())


def test_arch_a_table_refuses_an_unknown_or_repeated_name() -> None:
    with pytest.raises(ValueError, match="each name once, among ci, dev, nightly"):
        profile_table(Profile("weekly"))
    with pytest.raises(ValueError, match="each name once"):
        profile_table(Profile("ci"), Profile("ci"))
