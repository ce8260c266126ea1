"""Output a CI gate can rely on: one short RESULT line with --keep-going, usage errors of one
line answered before torch or the adapter is imported (an unwritable --json, a missing
module or replay file, an empty --require, options --replay cannot apply, a factory that
exits), a short usage for a flag typo, no traceback when the reader of the output goes away,
no `.hypothesis/` folder in the working directory; and verdict words generated from the
evidence: a sampled "kept" says so, and the advice on an inherited weakness never names a
variant that does not keep the property."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from model_checks.cli import main
from model_checks.conform.lru_lockstep.run import ConformRun, conform
from model_checks.conform.lru_lockstep.weakness import vacuous, weakness
from model_checks.conform.profiles import PROFILES, ConformProfile
from spec import VARIANT_NAMES
from tests.conform.reference_named import by_name

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = "model_checks.conform.reference_adapter:factory"
TRACE = str(ROOT / "docs" / "results" / "conform-traces" / "V2_D6+D7_S1.json")


def _fresh(*argv: str, planted: str = "") -> tuple[int, str, str, bool]:
    """conform in a fresh interpreter (after the code `planted`): exit code, stdout, stderr,
    whether torch was imported."""
    code = (f"import sys\n{planted}\nfrom model_checks.cli import main\n"
            "c = main(sys.argv[1:])\n"
            "print('TORCH' if 'torch' in sys.modules else 'NO-TORCH', file=sys.stderr)\n"
            "sys.exit(c)")
    done = subprocess.run([sys.executable, "-c", code, "conform", *argv], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, check=False)
    err, _, marker = done.stderr.rstrip().rpartition("\n")
    return done.returncode, done.stdout, err if err else "", marker == "TORCH"


@pytest.mark.parametrize(("argv", "says"), [
    (("--adapter", REFERENCE, "--json", "/proc/none/records.json"), "--json: cannot write"),
    (("--adapter", "no_such_module:factory"), "--adapter: cannot import"),
    (("--adapter", REFERENCE, "--replay", "/no/such/trace.json"), "--replay: cannot read"),
    (("--adapter", REFERENCE, "--require", ""), "--require: got ''"),
    (("--adapter", REFERENCE, "--replay", TRACE, "--environment", "D6"), "cannot apply"),
    (("--adapter", REFERENCE, "--replay", TRACE, "--keep-going"), "cannot apply"),
])
def test_usage_errors_are_one_line_before_torch(argv: tuple[str, ...], says: str) -> None:
    code, out, err, torch = _fresh(*argv)
    assert code == 2 and out == "" and not torch, (code, out, err)
    assert err.startswith("error: ") and says in err and err.count("\n") == 0, err


def test_the_check_sees_a_usage_error_that_loads_torch() -> None:
    """Planted: torch loaded before the command answers, as a module the command loads would
    load it by importing it at its top (`conform.codec` imports it where it makes tensors):
    the same usage error, seen loading torch."""
    code, out, err, torch = _fresh("--adapter", REFERENCE, "--require", "",
                                   planted="import torch")
    assert code == 2 and out == "" and "--require: got ''" in err
    assert torch


def test_a_factory_that_exits_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conform", "--adapter", "tests.conform.exiting_factory:factory"]) == 2
    err = capsys.readouterr().err
    assert err == "error: tests.conform.exiting_factory:factory() raised SystemExit: 7\n"


def test_a_flag_typo_prints_two_short_lines() -> None:
    done = subprocess.run([sys.executable, "-m", "model_checks", "conform", "--adapter",
                           REFERENCE, "--jsn", "x"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, check=False)
    lines = done.stderr.splitlines()
    assert done.returncode == 2 and len(lines) == 2, lines
    assert lines[0].startswith("usage: python -m model_checks conform --adapter")
    assert all(len(line) <= 100 for line in lines)


def test_a_closed_pipe_ends_the_output_quietly() -> None:
    with subprocess.Popen([sys.executable, "-m", "model_checks", "conform", "--adapter",
                           REFERENCE, "--replay", TRACE], cwd=ROOT, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True) as child:
        assert child.stdout is not None and child.stderr is not None
        child.stdout.readline()
        child.stdout.close()  # as `| head -1` does
        err = child.stderr.read()
        child.wait(timeout=300)
    assert "Traceback" not in err and "BrokenPipe" not in err, err


def test_keep_going_keeps_the_result_line_short(capsys: pytest.CaptureFixture[str]) -> None:
    path = "model_checks.mutant_run.reference_mutants:mutant_reports_first_miss"
    assert main(["conform", "--adapter", path, "--keep-going"]) == 1
    out = capsys.readouterr().out
    assert out.count("DISAGREEMENT in ") > 1
    last = out.rstrip().splitlines()[-1]
    assert last.startswith("RESULT: ") and len(last) <= 100, last


def test_no_hypothesis_folder_in_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("HYPOTHESIS_STORAGE_DIRECTORY", raising=False)
    conform(by_name("reports-first-miss").adapter,
            ConformProfile("walks-only", walks=1, length=5, corpus=False),
            ConformRun(variants=("V3",)))
    assert not (tmp_path / ".hypothesis").exists()


def test_weakness_advice_never_names_a_variant_that_does_not_keep_it() -> None:
    for variant in VARIANT_NAMES:
        for prop in ("S1", "S3", "L1", "L2", "L3", "L4", "H1"):
            w = weakness(variant, prop)
            for other in w.kept_by:
                assert not weakness(other, prop).minimal and not vacuous(other, prop)
    assert "V0" not in weakness("V2", "L3").removal()
    assert ("V3/V4 (tags, references first, late-miss reprocessing) keeps S1"
            in weakness("V2", "S1").removal())
    assert "V4 (resends that bypass the shadow) keeps L3" in weakness("V2", "L3").removal()


def test_kept_says_sampled_with_the_steps(capsys: pytest.CaptureFixture[str]) -> None:
    outcome = conform(by_name("reports-first-miss").adapter, PROFILES["ci"],
                      ConformRun(variants=()))
    assert outcome.steps == 0  # nothing run: nothing kept
    assert main(["conform", "--adapter", "tests.conform.seed_pair:factory", "--require",
                 "S2"]) == 0
    out = capsys.readouterr().out
    assert "S2 budget [required]: kept (sampled: never broken in " in out
    assert "required properties kept in " in out.rstrip().splitlines()[-1]
