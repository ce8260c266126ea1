"""The gate a serving team puts in CI, on a pair written from the docs alone
(`tests/conform/ordered_pair.py`: OrderedDict LRUs, the payload wins, no tags: V2).

- the docs' CI job for V0-V2, run unchanged with the environment the docs recommend, exits 0;
- `--require S1` under every drift source exits with the inherited-weakness code (4) and names
  the minimal environments, read from the committed lattice and the matrix;
- the same pair with a planted bug (eviction by count) exits with the regression code (1);
- a disagreement trace replays with `conform --replay` (exit 1, the step table printed);
- nothing is "kept" where nothing was checked.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from model_checks.cli import main
from model_checks.conform.lru_lockstep.weakness import weakness
from spec import DRIFT_IDS, VARIANT_NAMES, VARIANTS
from spec.drift import Environment

PAIR = "tests.conform.ordered_pair:factory"
BUGGY = "tests.conform.ordered_pair:factory_evicting_by_count"
THREADED_PAIR = "tests.history.hookless_pair:factory"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "conformance.md"


def _ci_job() -> tuple[list[dict[str, str]], list[str]]:
    """The YAML of docs/conformance.md's "In your CI": its matrix entries and its conform
    command lines (continuation lines joined)."""
    text = DOCS.read_text()
    yaml = text[text.index("# .github/workflows/conformance.yml"):]
    yaml = yaml[: yaml.index("```")]
    entries = [dict(re.findall(r'(\w+): "?([\w+]+)"?', line))
               for line in yaml.splitlines() if line.strip().startswith("- {variant:")]
    joined = yaml.replace("\\\n", " ")
    commands = [line.strip() for line in joined.splitlines()
                if line.strip().startswith("python -m model_checks conform")]
    return entries, commands


def _argv(command: str, entry: dict[str, str], adapter: str, out: Path) -> list[str]:
    command = (command.replace("${{ matrix.variant }}", entry["variant"])
               .replace("${{ matrix.environment }}", entry["environment"])
               .replace('"$ADAPTER"', adapter).replace("build/conform", str(out)))
    return shlex.split(command)[3:]  # after "python -m model_checks"


def test_gate_the_docs_ci_job_for_v0_v2_passes_on_a_pair_written_from_the_docs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    entries, every = _ci_job()
    commands = [c for c in every if "--threads" not in c]
    untagged = [e for e in entries if e["variant"] in {v.name for v in VARIANTS if not v.tagged}]
    assert untagged and len(commands) == 2  # one process, then two
    assert any(e["variant"] == "V3" and len(e["environment"].split("+")) == len(DRIFT_IDS)
               for e in entries)  # V3 is gated under every source
    for entry in untagged:
        for command in commands:
            code = main(_argv(command, entry, PAIR, tmp_path))
            out = capsys.readouterr().out
            assert code == 0, out[-3000:]
            last = out.rstrip().splitlines()[-1]
            assert last.startswith("RESULT: CONFORMS: every step agreed; required properties "
                                   "kept in ") and last.endswith("sampled steps: S1, S2, S3 "
                                                                 "(exit 0)"), last


def test_gate_the_docs_ci_job_runs_concurrent_clients_on_a_threaded_pair(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    """The job's concurrent step, on a threaded V2 pair written without the harness's hooks:
    it passes; the same pair with one lock removed is a race."""
    entries, every = _ci_job()
    threaded = [c for c in every if "--threads" in c]
    assert len(threaded) == 1
    entry = next(e for e in entries if e["variant"] == "V2")
    for adapter, expected in ((THREADED_PAIR, 0), (f"{THREADED_PAIR}_unlocked_fe_clear", 1)):
        code = main(_argv(threaded[0], entry, adapter, tmp_path))
        out = capsys.readouterr().out
        assert code == expected, out[-3000:]
        assert ("RESULT: EXPLAINED" if expected == 0 else "RESULT: RACE") in out


def test_gate_require_s1_under_every_source_is_the_inherited_weakness(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["conform", "--adapter", PAIR, "--require", "s1"]) == 4
    out = capsys.readouterr().out
    minimal = weakness("V2", "S1").minimal
    assert minimal and all("D7" in e for e in minimal)  # read, not written here
    assert ", ".join(Environment.of(e).text for e in minimal) in out.replace("\n          ", " ")
    assert "or by a deployment without D7" in out.replace("\n          ", " ")
    assert out.rstrip().splitlines()[-1] == (
        "RESULT: CONFORMS, BUT INHERITED WEAKNESS of the variant: required S1 on V2 (exit 4)")
    assert all(len(line) <= 100 for line in out.splitlines())
    assert "Content(" not in out and "Stage." not in out  # no raw reprs


def test_gate_the_same_pair_with_a_planted_bug_is_a_regression(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    records = tmp_path / "records.json"
    code = main(["conform", "--adapter", BUGGY, "--require", "S1,S2,S3", "--json",
                 str(records)])
    out = capsys.readouterr().out
    assert code == 1
    assert out.rstrip().splitlines()[-1].startswith("RESULT: REGRESSION: the implementation "
                                                    "breaks S2 on V2 where the spec keeps it")
    trace = tmp_path / "records.disagreement-1.trace.json"
    assert trace.exists() and trace.with_suffix(".txt").exists()
    # the disagreement replays against the implementation, with its step table
    assert main(["conform", "--adapter", BUGGY, "--replay", str(trace)]) == 1
    replayed = capsys.readouterr().out
    assert "action, then the state after it" in replayed and "P1: [" in replayed
    assert replayed.rstrip().splitlines()[-1].startswith("RESULT: REPRODUCED REGRESSION")
    # and the correct pair does not reproduce it
    assert main(["conform", "--adapter", PAIR, "--replay", str(trace)]) == 0
    assert "RESULT: NOT REPRODUCED" in capsys.readouterr().out


def test_gate_a_weakness_trace_replays_with_exit_4_without_require(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    records = tmp_path / "r.json"
    assert main(["conform", "--adapter", PAIR, "--json", str(records)]) == 0  # not required
    capsys.readouterr()
    assert main(["conform", "--adapter", PAIR, "--replay", str(tmp_path / "r.S1.trace.json")]) == 4
    assert "RESULT: REPRODUCED INHERITED WEAKNESS: S1" in capsys.readouterr().out


def test_gate_a_deployment_without_d7_keeps_s1(capsys: pytest.CaptureFixture[str]) -> None:
    """The flag really narrows the drift: D7 alone breaks S4 (inherited), D1+D2 keeps it."""
    assert main(["conform", "--adapter", PAIR, "--environment", "d7", "--require", "S4"]) == 4
    capsys.readouterr()
    assert main(["conform", "--adapter", PAIR, "--environment", "D2+D1",
                 "--require", "S1,S4"]) == 0
    out = capsys.readouterr().out
    assert "environment D1+D2" in out and "S4 freshness [required]: kept (sampled" in out


def test_gate_nothing_is_kept_where_nothing_was_checked(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["conform", "--adapter", "tests.conform.test_conform_outcomes:no_variant",
                 "--require", "S1"]) == 1
    out = capsys.readouterr().out
    assert "kept" not in out and out.rstrip().endswith("RESULT: NOTHING CHECKED (exit 1)")


def test_gate_a_bad_environment_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conform", "--adapter", PAIR, "--environment", "D5+D7x"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "'D7x'" in err and "D1-D11" in err


def _recommended() -> list[tuple[str, str]]:
    """(variant, environment) of the docs' table in "Safe in this deployment"."""
    text = DOCS.read_text()
    section = text[text.index("## Safe in this deployment"):text.index("## Replayable")]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 3 and cells[2].startswith("`D"):
            for variant in re.findall(r"V\d", cells[0]):
                rows.append((variant, cells[2].strip("`")))
    return rows


def test_gate_the_recommended_environments_keep_s1_s3_on_the_reference(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """What the docs recommend per variant holds for the reference: S1-S3 kept (exit 0); and
    adding D7 to V2's makes S1 an inherited weakness (exit 4), so the table is not vacuous."""
    rows = _recommended()
    assert sorted(v for v, _ in rows) == sorted(VARIANT_NAMES)
    reference = "model_checks.conform.reference_adapter:factory"
    for variant, env in rows:
        code = main(["conform", "--adapter", reference, "--variant", variant,
                     "--environment", env, "--require", "S1,S2,S3"])
        assert code == 0, (variant, env, capsys.readouterr().out[-3000:])
    capsys.readouterr()
    v2 = dict(rows)["V2"]
    assert main(["conform", "--adapter", reference, "--variant", "V2", "--environment",
                 f"{v2}+D7", "--require", "S1"]) == 4
