"""Which code the main job runs (`kernel.compiled_build`): every phase after the scenarios runs in
a process of its own, a fresh compiled build first on the path of the phases that may run on
it (`Phase.compiled`), this checkout's packages on the others' path; an
absent or stale build never runs (known-bad: a source changed after the build, a module of
spec/ missing from it), and the summary says which code ran and why."""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

import pytest

from model_checks import cli
from model_checks.jobs import phases as jobs
from model_checks.jobs import run
from model_checks.jobs.phases import checker, expected
from model_checks.kernel import compiled_build
from model_checks.kernel.compiled_build import BuildStatus, status


def _checkout(tmp_path: Path) -> tuple[Path, Path]:
    """A checkout with two spec modules and a build listing both with their digests."""
    root = tmp_path / "checkout"
    (root / "spec" / "sub").mkdir(parents=True)
    (root / "spec" / "a.py").write_text("A = 1\n")
    (root / "spec" / "sub" / "b.py").write_text("B = 2\n")
    build = root / "build" / "mypyc"
    build.mkdir(parents=True)
    listed = "".join(f"{hashlib.sha256((root / p).read_bytes()).hexdigest()}  {p}\n"
                     for p in ("spec/a.py", "spec/sub/b.py"))
    (build / "SOURCES").write_text(listed)
    return root, build


def test_a_build_of_these_sources_is_fresh(tmp_path: Path) -> None:
    root, build = _checkout(tmp_path)
    found = status(build)
    assert found.fresh and found.why == ""
    assert found.words().startswith("compiled: ")
    env = found.environment({"PYTHONPATH": "/elsewhere"})
    assert env["PYTHONPATH"].split(os.pathsep) == [str(build), str(root), "/elsewhere"]
    assert env["PYTHONSAFEPATH"] == "1"


def test_an_edited_source_makes_the_build_stale(tmp_path: Path) -> None:
    root, build = _checkout(tmp_path)
    (root / "spec" / "a.py").write_text("A = 3\n")
    found = status(build)
    assert not found.fresh
    assert "stale (spec/a.py changed)" in found.why and "scripts/compile-spec" in found.why


def test_a_module_the_build_lacks_makes_it_stale(tmp_path: Path) -> None:
    root, build = _checkout(tmp_path)
    (root / "spec" / "c.py").write_text("C = 4\n")
    assert "spec/c.py is not in the build" in status(build).why


def test_no_build_and_an_unreadable_one_are_said(tmp_path: Path) -> None:
    _, build = _checkout(tmp_path)
    (build / "SOURCES").write_text("no digest here\n")
    assert not status(build).fresh and "unreadable" in status(build).why
    (build / "SOURCES").unlink()
    found = status(build)
    assert not found.fresh and found.words().startswith("interpreted: no compiled build in ")


ONE_CELL = ("prove", "--variant", "V3", "--environment", "none", "--property", "S2",
            "--depth", "1", "--jobs", "1")
BREAKS_HERE = "identities=1,requests=2,unfinished=1,items=1,retries=0,budget=2"


def _job(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path,
         build: BuildStatus) -> tuple[int, str, str]:
    monkeypatch.setattr(jobs, "MAIN_JOB", (checker(*ONE_CELL),
                                           expected("V2", "D7", BREAKS_HERE, "S4")))
    monkeypatch.setattr(compiled_build, "status", lambda: build)
    code = cli.main(["--json", str(tmp_path / "job" / "records.json")])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_a_fresh_build_runs_a_named_search_and_the_sweep_runs_on_the_checkout(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path,
) -> None:
    """A stand-in build (empty: every module comes from the packages after it on the path)
    that is said to be fresh: the named instance's search runs as `python -m model_checks`
    with the build's environment, the sweep (`prove`) with this checkout first on its path."""
    started: list[tuple[list[str], dict[str, str]]] = []
    popen = subprocess.Popen

    def watched(argv: list[str], **options: object) -> object:
        env = options["env"]
        assert isinstance(env, dict)
        started.append((argv, env))
        return popen(argv, **options)  # type: ignore[call-overload]

    folder = tmp_path / "build" / "mypyc"
    folder.mkdir(parents=True)
    monkeypatch.setattr(subprocess, "Popen", watched)
    code, out, _ = _job(monkeypatch, capsys, tmp_path, BuildStatus(folder, True))
    assert code == 0, out
    by_command = {argv[3]: env for argv, env in started}
    assert sorted(by_command) == ["explore", "prove"]
    env = by_command["explore"]
    assert env["PYTHONSAFEPATH"] == "1"
    assert env["PYTHONPATH"].startswith(str(folder) + os.pathsep)
    assert by_command["prove"]["PYTHONPATH"].split(os.pathsep)[0] == str(compiled_build.ROOT)
    assert str(folder) not in by_command["prove"]["PYTHONPATH"]
    assert ("code run: 1 phase(s) (named instances' searches) compiled: " in " ".join(
        out.split())) and "the others interpreted" in out
    assert "z3-induction" in (tmp_path / "job" / "records.json").read_text()
    assert "1 named instances judged; 0 fail" in out
    assert "$ python -m model_checks explore" in (tmp_path / "job" / "3-explore.txt").read_text()


def test_a_stale_build_never_runs_and_the_summary_says_why(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path,
) -> None:
    popen = subprocess.Popen
    paths: list[str] = []

    def watched(argv: list[str], **options: object) -> object:
        env = options["env"]
        assert isinstance(env, dict)
        paths.append(env["PYTHONPATH"])
        return popen(argv, **options)  # type: ignore[call-overload]

    monkeypatch.setattr(subprocess, "Popen", watched)
    stale = BuildStatus(tmp_path, False, "the build in x is stale (spec/a.py changed): rerun")
    code, out, err = _job(monkeypatch, capsys, tmp_path, stale)
    assert code == 0, out
    assert len(paths) == 2 and not any(str(tmp_path) in path for path in paths)
    assert "code run: every phase interpreted: the build in x is stale (spec/a.py changed)" in (
        " ".join(out.split()))
    assert "interpreted: the build in x is stale" in err


def test_the_main_job_runs_its_explorer_and_hypothesis_sweep_on_a_fresh_build(
        tmp_path: Path) -> None:
    """The phases whose records on the build were compared equal with the interpreted ones
    (`Phase.compiled`), named in the `code run:` line; `prove` and the rest interpreted."""
    marked = [phase.argv[:3] for phase in jobs.MAIN_JOB if phase.compiled and not phase.named]
    assert marked == [("simulate", "--profile", "ci"), ("explore", "--profile", "ci")]
    assert not any(phase.compiled for phase in jobs.MAIN_JOB if phase.command == "prove")
    line = run.code_run(BuildStatus(tmp_path, True), jobs.MAIN_JOB)
    assert line.startswith("4 phase(s) (simulate, explore, named instances' searches) "
                           "compiled: ") and line.endswith("; the others interpreted")
