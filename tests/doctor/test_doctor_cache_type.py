"""The doctor reads the cache type and size from every spelling vLLM 0.33.0 accepts (dashes,
underscores, ``=``, a ``--config`` YAML file with either spelling of its keys, a line option
over the file's), answers for the LRU pair as before, and answers the shared-memory object
store with its own design's sources and answers (never the LRU pair's); a design the project
does not model gets no answer and exit 5."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from model_checks.adapters import vllm_release
from model_checks.cli import main
from model_checks.doctor.command import EXIT_NOT_MODELLED
from model_checks.doctor.facts import Deployment, from_serve_line
from model_checks.doctor.serve_line import ServeLineError, normalised, with_config
from spec import DRIFT_IDS, VARIANT_NAMES


def doctor(line: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """The doctor's exit code, stdout (wrapped lines joined) and stderr for a serve line."""
    code = main(["doctor", "--vllm-version", "0.33.0", "--serve", line])
    captured = capsys.readouterr()
    return code, re.sub(r"\n {4,}", " ", captured.out), captured.err


def read(line: str) -> Deployment:
    return from_serve_line(line, Deployment())


@pytest.fixture
def configs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """YAML files in the working directory, as an operator would name them."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "dash.yaml").write_text("mm-processor-cache-type: shm\n"
                                        "mm-processor-cache-gb: 2\n")
    (tmp_path / "under.yml").write_text("mm_processor_cache_type: shm\nenable_sleep_mode: true\n")
    (tmp_path / "off.yaml").write_text("mm_processor_cache_gb: 0\n")
    (tmp_path / "bad.yaml").write_text("mm_processor_cache_type: disk\n")
    (tmp_path / "list.yaml").write_text("- mm_processor_cache_type\n")
    (tmp_path / "shm.json").write_text("mm_processor_cache_type: shm\n")
    return tmp_path


@pytest.mark.parametrize("option", [
    "--mm-processor-cache-type shm", "--mm_processor_cache_type shm",
    "--mm-processor-cache-type=shm", "--mm_processor_cache_type=shm",
    "--mm-processor_cache-type=shm",
])
def test_doctor_reads_every_spelling_of_the_cache_type(option: str) -> None:
    assert read(f"vllm serve m --seed 3 {option}").pairing() == "shm"


@pytest.mark.parametrize(("option", "gib"), [
    ("--mm-processor-cache-gb 0", 0.0), ("--mm_processor_cache_gb=0", 0.0),
    ("--mm-processor-cache-gb=0.0", 0.0), ("--mm-processor-cache-gb 1e-1", 0.1),
    ("--mm-processor-cache-gb ' 3 '", 3.0),
])
def test_doctor_reads_every_spelling_of_the_cache_size(option: str, gib: float) -> None:
    got = read(f"vllm serve m --mm-processor-cache-type shm {option}")
    assert got.cache_gb == gib
    assert got.pairing() == ("none" if gib == 0 else "shm")


def test_doctor_a_later_option_wins_as_in_vllm() -> None:
    assert read("vllm serve m --mm-processor-cache-type shm "
                "--mm_processor_cache_type lru").pairing() == "lru"


@pytest.mark.parametrize(("line", "pairing", "gib", "sleep"), [
    ("vllm serve m --config dash.yaml", "shm", 2.0, False),
    ("vllm serve m --config under.yml", "shm", 4.0, True),
    ("vllm serve m --config off.yaml", "none", 0.0, False),
    # the line's option wins over the file's, before or after --config, as in vLLM
    ("vllm serve m --config dash.yaml --mm-processor-cache-type lru", "lru", 2.0, False),
    ("vllm serve m --mm_processor_cache_type=lru --config dash.yaml", "lru", 2.0, False),
    ("vllm serve m --config off.yaml --mm-processor-cache-gb 1", "lru", 1.0, False),
    ("vllm serve m --config under.yml --disable-sleep-mode", "shm", 4.0, False),
    # vLLM reads the file only after the word --config: --config=FILE is not read
    ("vllm serve m --config=dash.yaml", "lru", 4.0, False),
])
def test_doctor_reads_a_config_file_as_vllm_does(
    configs: Path, line: str, pairing: str, gib: float, sleep: bool,
) -> None:
    got = read(line)
    assert (got.pairing(), got.cache_gb, got.sleep_mode) == (pairing, gib, sleep)


def test_doctor_places_the_config_file_after_the_model(configs: Path) -> None:
    assert with_config(["m", "--seed", "3", "--config", "dash.yaml", "-dp", "2"]) == [
        "m", "--mm-processor-cache-type", "shm", "--mm-processor-cache-gb", "2",
        "--seed", "3", "-dp", "2"]
    assert normalised("--mm_processor_cache_type=a_b") == "--mm-processor-cache-type=a_b"
    assert normalised("--media_io_kwargs.video_x=1") == "--media-io-kwargs.video_x=1"


SHM_SPELLINGS = ("vllm serve M --mm-processor-cache-type shm",
                 "vllm serve M --mm_processor_cache_type=shm",
                 "vllm serve M --config under.yml")


@pytest.mark.parametrize("line", SHM_SPELLINGS)
def test_doctor_answers_an_shm_deployment_with_the_shm_design(
    configs: Path, capsys: pytest.CaptureFixture[str], line: str,
) -> None:
    code, out, err = doctor(line, capsys)
    assert (code, err) == (0, "")
    head = out.splitlines()[0]
    assert head.startswith("doctor: vLLM 0.33.0 (as asked) with --mm-processor-cache-type shm "
                           "implements design shm's O1")
    assert "V2" not in out and "drift sources in this deployment" not in out
    assert "drift sources of the shared-memory object store in this deployment" in out
    for source in ("D1", "D2", "D3", "D7", "D8", "D10", "D11", "C1"):
        assert f"  {source} " in out
    for source in ("D4", "D5", "D6", "D9"):  # the LRU pair's, refused by the shm design
        assert f"  {source} " not in out
    assert "the project's answer for design shm O1 under" in out
    for prop in ("S1", "S2", "S3", "S4", "H1", "U1"):
        assert f"  {prop} " in out
    assert "S1 consistent pairing: holds: proved for every instance" in out
    assert "U1 the store stays usable: BREAKS under D2" in out
    assert all(len(line) <= 100 for line in capsys.readouterr().out.splitlines())


def test_doctor_reads_the_shm_sources_from_the_deployment(
    configs: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    """No rejections, no clears, no restarts, no reuse: U1 and S4 no longer break; the
    sleep mode of the config file switches P0's clear (D3) on."""
    quiet = ["doctor", "--vllm-version", "0.33.0", "--cache-type", "shm", "--rejections", "no",
             "--client-handles", "no", "--client-uuids", "no", "--restarts", "no"]
    assert main(quiet) == 0
    out = re.sub(r"\n {4,}", " ", capsys.readouterr().out)
    assert "U1 the store stays usable: holds" in out and "S4 served is sent: holds" in out
    assert "S3 no crash: holds" in out
    code, out, _ = doctor("vllm serve M --config under.yml", capsys)
    assert code == 0 and "D3 P0 clears the store: on" in out


def test_doctor_declines_a_design_not_modelled_with_exit_5(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A cache type whose design is not modelled gets no answer (exit 5), never another
    design's."""
    monkeypatch.setitem(vllm_release.IMPLEMENTS, ("0.33.0", "shm"), None)
    code, out, err = doctor("vllm serve M --mm_processor_cache_type=shm", capsys)
    assert (code, err) == (EXIT_NOT_MODELLED, "") and EXIT_NOT_MODELLED == 5
    assert "not modelled by the project" in out.splitlines()[0]
    assert "BREAKS" not in out and "project's answer for" not in out
    assert not any(f"{d}:" in out for d in DRIFT_IDS)
    assert f"({VARIANT_NAMES[0]}-{VARIANT_NAMES[-1]}, drift sources D1-D11)" in out


def test_doctor_still_answers_the_lru_pair(capsys: pytest.CaptureFixture[str]) -> None:
    for line in ("vllm serve M", "vllm serve M --mm-processor-cache-type=lru"):
        code, out, _ = doctor(line, capsys)
        assert code == 0
        assert out.startswith("doctor: vLLM 0.33.0 (as asked) with --mm-processor-cache-type "
                              "lru implements design lru's V2")
        assert "the project's answer for V2 under D1+D2+D8+D9" in out


@pytest.mark.parametrize(("line", "why"), [
    ("vllm serve M --mm-processor-cache-type shm --mm-processor-cache-gb 0",
     "--mm-processor-cache-gb is 0: no processor cache on either side"),
    ("vllm serve M --mm-processor-cache-type shm -asc=2", "MultiModalProcessorOnlyCache"),
])
def test_doctor_shm_without_a_pair_is_no_paired_cache(
    line: str, why: str, capsys: pytest.CaptureFixture[str],
) -> None:
    """vLLM checks the size, then the API servers, before the cache type
    (vllm.multimodal.cache.factories): no shared-memory store is built here."""
    code, out, _ = doctor(line, capsys)
    assert code == 0 and "no paired cache here: " in out and why in out
    assert "implements" not in out.splitlines()[0]


@pytest.mark.parametrize(("line", "message"), [
    ("vllm serve m --mm_processor_cache_type=disk",
     "got --mm-processor-cache-type 'disk', expected lru or shm"),
    ("vllm serve m --mm-processor-cache-type SHM",
     "got --mm-processor-cache-type 'SHM', expected lru or shm"),
    ("vllm serve m --mm-processor-cache-type=",
     "got --mm-processor-cache-type '', expected lru or shm"),
    ("vllm serve m --config bad.yaml", "got --mm-processor-cache-type 'disk', expected lru or shm"),
    ("vllm serve m --mm-processor-cache-type", "--mm-processor-cache-type has no value"),
    ("vllm serve m --mm-processor-cache-ty shm", "got --mm-processor-cache-ty, an abbreviation "
     "vLLM may expand to --mm-processor-cache-type; write the option out"),
    ("vllm serve m --mm-processor-cache-gb -1",
     "got --mm-processor-cache-gb -1, expected a number of GiB >= 0"),
    ("vllm serve m --mm-processor-cache-gb 2k", "got '2k' for --mm-processor-cache-gb, "
     "expected a number"),
    ("vllm serve m --config shm.json", "--config shm.json: vLLM reads only .yaml or .yml files"),
    ("vllm serve m --config list.yaml", "--config list.yaml: expected a mapping of options"),
    ("vllm serve m --config missing.yaml", "--config missing.yaml: No such file or directory"),
    ("vllm serve m --config dash.yaml --config off.yaml",
     "more than one --config file (vLLM refuses it)"),
    ("vllm serve --config dash.yaml", "no model: vLLM wants it right after 'vllm serve' or as "
     "model: in the --config file"),
])
def test_doctor_an_unreadable_cache_setting_is_one_line_and_exit_2(
    configs: Path, line: str, message: str, capsys: pytest.CaptureFixture[str],
) -> None:
    assert doctor(line, capsys)[1:] == ("", f"error: {message}\n")
    with pytest.raises(ServeLineError):
        read(line)


def test_doctor_an_unknown_cache_type_flag_names_the_accepted_values(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["doctor", "--cache-type", "disk"])
    assert stopped.value.code == 2
    assert "invalid choice: 'disk' (choose from 'lru', 'shm')" in capsys.readouterr().err


def test_doctor_the_design_table_is_keyed_by_release_and_cache_type() -> None:
    assert vllm_release.implements("0.33.0", "lru") == "V2"
    assert vllm_release.implements("0.33.0", "shm") == "O1"
    assert vllm_release.variant_of("0.33.0") == "V2"
    assert set(vllm_release.DESIGN_OF) == set(vllm_release.CACHE_TYPES)
    from spec.designs import design_named
    for (_, cache_type), variant in vllm_release.IMPLEMENTS.items():
        assert variant in design_named(vllm_release.DESIGN_OF[cache_type]).variants
    assert set(vllm_release.IMPLEMENTS) == {(r, t) for r in vllm_release.releases()
                                            for t in vllm_release.CACHE_TYPES}
    assert set(vllm_release.KNOWN) == {t for (_, t), v in vllm_release.IMPLEMENTS.items()
                                       if v is None}
    with pytest.raises(ValueError, match="expected lru or shm"):
        vllm_release.implements("0.33.0", "disk")
