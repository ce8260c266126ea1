"""The doctor as an operator meets it: a headline per property first, what to change in
vLLM's options (and the project's patch), `--require` exit codes, `--json`, refused input
(an option vLLM does not have, a flag contradicting the serve line) and the
``python -m vllm.entrypoints.openai.api_server`` form."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from model_checks.cli import main
from model_checks.doctor.answer import judged_properties
from model_checks.doctor.command import EXIT_AT_RISK
from model_checks.doctor.facts import Deployment, from_serve_line
from model_checks.doctor.findings import Level
from model_checks.doctor.serve_line import ServeLineError
from model_checks.kernel import shipped

ASKED = ["doctor", "--vllm-version", "0.33.0"]


def doctor(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main([*ASKED, *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_a_headline_per_property_comes_first(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = doctor(["--client-uuids", "yes"], capsys)
    assert code == 0
    lines = out.splitlines()
    heads = [line for line in lines[:40] if re.match(r"[SHLU]\d ", line)]
    assert [h.split()[0] for h in heads] == [p for p, _ in judged_properties()]
    assert "S1 consistent pairing: AT RISK, clients reuse uuids" in lines
    assert "S2 budget: KEPT, every instance" in lines
    assert lines.index(heads[-1]) < lines.index("details:")
    assert all(len(line) <= 100 for line in lines)


def test_the_remedies_are_vllm_options_and_the_patch(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = doctor(["--client-uuids", "yes"], capsys)
    joined = re.sub(r"\n {4,}", " ", out)
    actions = joined.split("to remove the risks, in vLLM", 1)[1].split("details:", 1)[0]
    assert "D7: clients send no multi_modal_uuids" in actions
    assert "--mm-processor-cache-gb above the largest request's media" in actions
    assert "apply patches/vllm-0.33.0-tags.diff: vLLM becomes V3, which keeps S1, S3" in actions
    assert "--mm-processor-cache-gb 0" in actions
    assert "say so: --large-requests no" in joined  # D8 is assumed on a plain deployment


def test_an_assumed_source_names_what_rules_it_out(capsys: pytest.CaptureFixture[str]) -> None:
    """A plain `vllm serve`: S3 breaks only under D8, which no fact rules out."""
    _, out, _ = doctor(["--serve", "vllm serve M"], capsys)
    assert ("S3 no crash: AT RISK, a request's media may exceed the cache (D8, assumed)"
            in out.splitlines())
    code, out, _ = doctor(["--serve", "vllm serve M", "--large-requests", "no", "--require",
                           "S3"], capsys)
    assert code == 0 and "S3 no crash: KEPT" in out


@pytest.mark.parametrize(("argv", "code"), [
    (["--client-uuids", "yes", "--require", "S1,S3"], EXIT_AT_RISK),
    (["--client-uuids", "yes", "--require", "S2"], 0),
    (["--client-uuids", "no", "--large-requests", "no", "--require", "S1,S3"], 0),
    (["--client-uuids", "yes"], 0),  # without --require the answer alone: exit 0
    (["--serve", "vllm serve M --mm-processor-cache-gb 0", "--require", "S1"], 0),
    (["--cache-type", "shm", "--require", "U1"], EXIT_AT_RISK),
    (["--cache-type", "shm", "--require", "S1,S2"], 0),
])
def test_require_exits_4_exactly_when_a_required_property_is_at_risk(
    argv: list[str], code: int, capsys: pytest.CaptureFixture[str],
) -> None:
    assert EXIT_AT_RISK == 4
    got, out, err = doctor(argv, capsys)
    assert (got, err) == (code, "")
    if "--require" in argv:
        assert f"(exit {code})" in re.sub(r"\n {4,}", " ", out)


def test_json_with_a_path_writes_the_answer_there_beside_the_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    target = tmp_path / "answer.json"
    code, out, _ = doctor(["--client-uuids", "yes", "--json", str(target)], capsys)
    assert json.loads(target.read_text())["exit"] == code and "S1" in out
    code, _, err = doctor(["--json", str(tmp_path / "no" / "such" / "dir.json")], capsys)
    assert code == 2 and err.startswith("error: --json: cannot write ") and err.count("\n") == 1


def test_json_carries_the_findings_and_the_exit(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = doctor(["--client-uuids", "yes", "--require", "S1", "--json"], capsys)
    data = json.loads(out)
    assert code == data["exit"] == EXIT_AT_RISK and data["at_risk"] == ["S1"]
    assert data["variant"] == "V2" and data["sources"]["D7"] == "on"
    first = data["findings"][0]
    assert (first["property"], first["level"], first["reason"]) == (
        "S1", Level.AT_RISK.value, "clients reuse uuids")
    assert first["witness"] and first["remedies"] and first["patch_keeps"]
    assert [f["property"] for f in data["findings"]] == [p for p, _ in judged_properties()]


@pytest.mark.parametrize(("argv", "message"), [
    (["--serve", "vllm serve M --mm-processer-cache-gb 0"],
     "got --mm-processer-cache-gb, which vLLM 0.33.0 does not have; did you mean "
     "--mm-processor-cache-gb?"),
    (["--serve", "vllm serve M --enable-sleep-mod"],
     "got --enable-sleep-mod, an abbreviation vLLM may expand to --enable-sleep-mode; write "
     "the option out"),
    (["--api-servers", "1", "--serve", "vllm serve M --api-server-count 2"],
     "got --api-servers 1 beside a serve line with --api-server-count 2: give one"),
    (["--cache-type", "lru", "--serve", "vllm serve M --mm-processor-cache-type shm"],
     "got --cache-type lru beside a serve line with --mm-processor-cache-type shm: give one"),
    (["--sleep-mode", "--serve", "vllm serve M --no-enable-sleep-mode"],
     "got --sleep-mode yes beside a serve line with --enable-sleep-mode no: give one"),
    (["--require", "S9"], "got --require 'S9', expected properties from "
                          "S1,S2,S3,S4,H1,L1,L2,L3,L4,U1,E2E,P.S1,P.S4,E.S1,E.S2,E.S3,E.S4,"
                          "E.U1"),
])
def test_bad_or_conflicting_options_are_refused_in_one_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str],
) -> None:
    assert doctor(argv, capsys) == (2, "", f"error: {message}\n")


def test_options_vllm_has_are_accepted() -> None:
    line = ("vllm serve M --port 8000 --tensor-parallel-size 2 --max-model-len 4096 "
            "--limit-mm-per-prompt.image 2 --no-enable-prefix-caching --trust-remote-code "
            "--mm_shm_cache_max_object_size_mb=64 -tp 2 --gpu-memory-utilization 0.9")
    assert from_serve_line(line, Deployment()) == Deployment(tensor_parallel=2)


def test_a_flag_agreeing_with_the_serve_line_is_accepted(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = doctor(["--api-servers", "2", "--serve", "vllm serve M -asc 2"], capsys)
    assert (code, err) == (0, "")


@pytest.mark.parametrize("python", ["python", "python3", "python3.11", "/usr/bin/python3"])
def test_the_api_server_module_form_reads_as_vllm_serve(python: str) -> None:
    tail = "--model M --mm-processor-cache-type shm --api-server-count 1"
    module = from_serve_line(f"{python} -m vllm.entrypoints.openai.api_server {tail}",
                             Deployment())
    assert module == from_serve_line(f"vllm serve {tail}", Deployment())
    assert module.cache_type == "shm"
    with pytest.raises(ServeLineError, match="expected a line starting 'vllm serve'"):
        from_serve_line("python -m vllm.entrypoints.api_server --model M", Deployment())


def test_every_cited_witness_opens_and_the_build_ships_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every witness the doctor cites (LRU and shm answers) opens from where it runs, and is
    among the files the build copies into the package (setup.py's `cited_files`)."""
    source = (shipped.CHECKOUT / "setup.py").read_text().split("\nsetup(")[0]
    namespace: dict[str, object] = {"__file__": str(shipped.CHECKOUT / "setup.py")}
    exec(compile(source, "setup.py", "exec"), namespace)
    cited = set(namespace["cited_files"]())  # type: ignore[operator]
    monkeypatch.chdir(tmp_path)  # an empty directory: paths must open from anywhere
    for argv in (["--client-uuids", "yes", "--sleep-mode", "--json"],
                 ["--cache-type", "shm", "--json"]):
        main([*ASKED, *argv])
        data = json.loads(capsys.readouterr().out)
        witnesses = [f["witness"].rsplit(" (", 1)[0] for f in data["findings"] if f["witness"]]
        assert witnesses
        for path in witnesses:
            assert Path(path).is_file(), path
            assert Path(path).relative_to(shipped.CHECKOUT).as_posix() in cited
    assert "docs/notation.md" in cited
