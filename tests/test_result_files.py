"""The results files' one reader and writer (`model_checks.kernel.result_files`): a
compressed file's bytes depend on its data alone, either form reads under either name, the
conversion keeps the data, and a file that is not a plain JSON result is refused in one line
with nothing changed."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from model_checks.kernel import itf, result_files
from model_checks.kernel.result_files import ResultFileError, main

DATA = {"format": "x", "outcomes": [{"variant": "V2", "traces": {"S1": [1, 2, 3]}}]}
RESULTS = Path(__file__).resolve().parent.parent / "docs" / "results"


def test_a_compressed_file_is_byte_stable_and_reads_back(tmp_path: Path) -> None:
    first = result_files.write(tmp_path / "a.json.gz", DATA).read_bytes()
    second = result_files.write(tmp_path / "b.json.gz", DATA).read_bytes()
    assert first == second  # no timestamp, no file name
    assert gzip.decompress(first).decode() == json.dumps(DATA) + "\n"
    assert result_files.read(tmp_path / "a.json.gz") == DATA


def test_either_form_reads_under_either_name(tmp_path: Path) -> None:
    result_files.write(tmp_path / "plain.json", DATA)
    result_files.write(tmp_path / "packed.json.gz", DATA)
    assert result_files.read(tmp_path / "plain.json.gz") == DATA
    assert result_files.read(tmp_path / "packed.json") == DATA
    assert result_files.exists(tmp_path / "packed.json")
    assert not result_files.exists(tmp_path / "absent.json")
    with pytest.raises(OSError):
        result_files.read(tmp_path / "absent.json")


def test_writing_one_form_removes_the_other(tmp_path: Path) -> None:
    result_files.write(tmp_path / "r.json", {"old": True})
    result_files.write(tmp_path / "r.json.gz", DATA)
    assert not (tmp_path / "r.json").exists()
    assert result_files.read(tmp_path / "r.json") == DATA


def test_a_file_named_compressed_that_is_not_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "r.json.gz").write_text(json.dumps(DATA))
    with pytest.raises(ResultFileError, match=r"r\.json\.gz: not a gzip-compressed JSON"):
        result_files.read(tmp_path / "r.json.gz")


def test_the_conversion_keeps_the_data_and_equals_a_fresh_write(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "r.json").write_text(json.dumps(DATA, indent=2))
    assert main([str(tmp_path / "r.json")]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "r.json.gz")
    assert not (tmp_path / "r.json").exists()
    assert (tmp_path / "r.json.gz").read_bytes() == result_files.compress(
        json.dumps(DATA, indent=2))  # the very text, as its writer would compress it


@pytest.mark.parametrize("name, content", [("bad.json", "not json"), ("r.json.gz", None),
                                           ("absent.json", None)])
def test_converting_what_is_not_a_plain_result_changes_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str,
        content: str | None) -> None:
    (tmp_path / "good.json").write_text(json.dumps(DATA))
    if name == "r.json.gz":
        result_files.write(tmp_path / name, DATA)
    elif content is not None:
        (tmp_path / name).write_text(content)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    assert main([str(tmp_path / "good.json"), str(tmp_path / name)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {tmp_path / name}: not a ") and err.count("\n") == 1
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_the_committed_compressed_results_are_byte_stable() -> None:
    """Every committed compressed result is its text as the writer compresses it (no
    timestamp, no name), so regenerating it with the same data changes no byte; and no
    result is kept in both forms."""
    committed = sorted(RESULTS.rglob("*.json.gz"))
    assert committed, "no compressed results committed"
    for path in committed:
        assert path.read_bytes() == result_files.compress(result_files.read_text(path)), path
        assert not result_files.other_form(path).exists(), f"{path} kept in both forms"


def test_a_trace_reads_the_same_from_either_form(tmp_path: Path) -> None:
    """`itf.write_trace` keeps its one-state-per-line text in both forms; `itf.load` reads
    either under either name."""
    plain = RESULTS / "traces" / "V2_D8_S3.json"
    data = itf.load(plain)
    itf.write_trace(tmp_path / "t.json.gz", data)
    assert result_files.read_text(tmp_path / "t.json.gz") == itf.text(data)
    assert itf.load(tmp_path / "t.json") == itf.load(tmp_path / "t.json.gz") == data
    assert result_files.stem(tmp_path / "t.json.gz") == result_files.stem(plain.with_name(
        "t.json")) == "t"
    (tmp_path / "bad.json.gz").write_text("{}")
    with pytest.raises(itf.BadTraceFile, match="not a gzip-compressed JSON"):
        itf.load(tmp_path / "bad.json.gz")
