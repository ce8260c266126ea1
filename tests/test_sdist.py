"""An sdist carries what the wheel ships: every repository file the commands cite (setup.py's
`cited_files`: the pages, the witness traces the answer stores name, the designs' witnesses)
and the package data, so a wheel built from the sdist has the same `model_checks/shipped/`
as one built from the checkout.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
PACKAGE_DATA = ("model_checks/answers/answers.json", "model_checks/answers/designs.json",
                "model_checks/kernel/itf.schema.json", "model_checks/py.typed")


def _module(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"_loaded_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _cited() -> list[str]:
    """setup.py's cited files (imported: `setup()` runs only as a build's main script)."""
    return list(_module(ROOT / "setup.py").cited_files())


def missing_from(names: set[str], wanted: list[str], prefix: str) -> list[str]:
    """The files of `wanted` that an archive listing `names` lacks under `prefix`."""
    return [w for w in wanted if prefix + w not in names]


def test_the_sdist_holds_every_cited_file_and_its_wheel_ships_them(tmp_path: Path) -> None:
    cited = _cited()
    assert len(cited) > 20 and any(c.startswith("docs/results/") for c in cited)
    source = _module(Path(__file__).with_name("test_plain_install.py"))._copy(
        tmp_path / "source")  # the package's sources, so the build writes nothing here
    subprocess.run([sys.executable, "-c", "from setuptools import build_meta; "
                    f"build_meta.build_sdist({str(tmp_path / 'dist')!r})"],
                   cwd=source, check=True, capture_output=True, text=True)
    (archive,) = (tmp_path / "dist").glob("paired_caches-*.tar.gz")
    with tarfile.open(archive) as tar:
        names = set(tar.getnames())
        tar.extractall(tmp_path / "unpacked", filter="data")
    top = archive.name.removesuffix(".tar.gz") + "/"
    assert missing_from(names, [*cited, *PACKAGE_DATA, "setup.py"], top) == []
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps",
                    "--no-build-isolation", "-w", str(tmp_path / "wheel"),
                    str(tmp_path / "unpacked" / top)],
                   check=True, capture_output=True, text=True)
    (wheel,) = (tmp_path / "wheel").glob("paired_caches-*.whl")
    with zipfile.ZipFile(wheel) as built:
        shipped = set(built.namelist())
    assert missing_from(shipped, cited, "model_checks/shipped/") == []


def test_a_file_left_out_is_named() -> None:
    assert missing_from({"p-1/docs/a.md"}, ["docs/a.md", "docs/b.md"], "p-1/") == ["docs/b.md"]
