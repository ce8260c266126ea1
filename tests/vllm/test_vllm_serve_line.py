"""The doctor reads a ``vllm serve`` line as the release's own parser does: vLLM's
`FlexibleArgumentParser` (underscores, ``=``, ``--config FILE`` and its precedence) with the
release's definitions of ``--mm-processor-cache-type`` and ``--mm-processor-cache-gb``
(`get_kwargs(MultiModalConfig)`, as `EngineArgs.add_cli_args` adds them). The other options
the doctor reads are added as 0.33.0 defines them (the parallel and model configs' kwargs
import the engine, which the CPU set-up leaves out)."""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path
from typing import Any

import pytest

from model_checks.doctor.facts import Deployment, from_serve_line
from model_checks.doctor.serve_line import ServeLineError

pytestmark = pytest.mark.vllm

LINES = [
    "vllm serve m", "vllm serve m --mm-processor-cache-type shm",
    "vllm serve m --mm_processor_cache_type shm", "vllm serve m --mm_processor_cache_type=shm",
    "vllm serve m --mm-processor-cache-type=shm --mm-processor-cache-gb=0",
    "vllm serve m --mm-processor-cache-type shm --mm-processor-cache-type lru",
    "vllm serve m --config dash.yaml", "vllm serve m --config under.yml",
    "vllm serve m --config dash.yaml --mm-processor-cache-type lru",
    "vllm serve m --mm_processor_cache_type=lru --config dash.yaml",
    "vllm serve m --config=dash.yaml", "vllm serve m --config off.yaml --enable-sleep-mode",
    "vllm serve m --mm_processor_cache_gb=0.5 -asc=2 --data_parallel_size 2 -dpe",
    "vllm serve m --mm-processor-cache-type disk", "vllm serve m --config bad.yaml",
    "vllm serve m --mm-processor-cache-gb 2k",
]


def vllm_parser() -> argparse.ArgumentParser:
    """`vllm serve`'s parser, with the options the doctor reads."""
    from vllm.config import MultiModalConfig
    from vllm.engine.arg_utils import get_kwargs
    from vllm.utils.argparse_utils import FlexibleArgumentParser

    top = FlexibleArgumentParser(exit_on_error=False)
    serve = top.add_subparsers(dest="subparser").add_parser("serve", exit_on_error=False)
    serve.add_argument("model_tag", nargs="?")
    serve.add_argument("--config")
    serve.add_argument("--api-server-count", "-asc", type=int, default=1)
    serve.add_argument("--data-parallel-size", "-dp", type=int, default=1)
    serve.add_argument("--data-parallel-external-lb", "-dpe",
                       action=argparse.BooleanOptionalAction, default=False)
    serve.add_argument("--enable-sleep-mode", action=argparse.BooleanOptionalAction,
                       default=False)
    kwargs = get_kwargs(MultiModalConfig)
    for field in ("mm_processor_cache_gb", "mm_processor_cache_type"):
        serve.add_argument("--" + field.replace("_", "-"), **kwargs[field])
    return top


def vllm_reads(line: str) -> tuple[Any, ...] | None:
    """What vLLM's parser reads from `line`, or None where it refuses it."""
    try:
        args = vllm_parser().parse_args(shlex.split(line)[1:])
    except (SystemExit, argparse.ArgumentError, ValueError):
        return None
    return (args.mm_processor_cache_type, float(args.mm_processor_cache_gb),
            args.api_server_count, args.data_parallel_size, args.data_parallel_external_lb,
            args.enable_sleep_mode)


def doctor_reads(line: str) -> tuple[Any, ...] | None:
    try:
        got = from_serve_line(line, Deployment())
    except ServeLineError:
        return None
    return (got.cache_type, got.cache_gb, got.api_servers, got.data_parallel,
            got.external_lb, got.sleep_mode)


@pytest.mark.parametrize("line", LINES)
def test_vllm_serve_line_the_doctor_reads_it_as_the_release_does(
    line: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "dash.yaml").write_text("mm-processor-cache-type: shm\n"
                                        "mm-processor-cache-gb: 2\n")
    (tmp_path / "under.yml").write_text("mm_processor_cache_type: shm\n"
                                        "enable_sleep_mode: true\n")
    (tmp_path / "off.yaml").write_text("mm_processor_cache_gb: 0\nenable-sleep-mode: false\n")
    (tmp_path / "bad.yaml").write_text("mm_processor_cache_type: disk\n")
    assert doctor_reads(line) == vllm_reads(line)
    capsys.readouterr()


def test_the_committed_option_names_are_the_releases() -> None:
    """`model_checks/doctor/vllm-0.33.0-options.txt` is what the installed release's source
    defines (`vllm_options.scan`): the doctor refuses exactly the options vLLM does not have."""
    import vllm

    from model_checks.doctor import vllm_options

    scanned = vllm_options.scan(Path(vllm.__file__).parent)
    assert frozenset(scanned) == vllm_options.known()
    for option in ("--mm-processor-cache-gb", "--api-server-count", "--enable-sleep-mode",
                   "--limit-mm-per-prompt", "--port", "-tp"):
        assert option in scanned
