"""docs/vllm.md: vLLM's released caches under the checks, rendered from the committed
snapshot of a real run (`docs/results/vllm.json`, written by
`python -m model_checks.vllm_snapshot`), the doctor's table of how vLLM's settings and
clients switch on each drift source (`model_checks.doctor.facts.SOURCES`) and the lattice's
answers (`model_checks.doctor.answer`). Rendering needs no vLLM, so `docs --check` keeps the
page fresh anywhere; refreshing the snapshot needs scripts/setup-vllm.

Everything from the `HAND_WRITTEN` marker line to the end of the committed page is written by
hand and kept as it is (the generated part stops before it).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from model_checks.adapters import vllm_code_map, vllm_release
from model_checks.adapters.vllm_run import COMMAND, REPRODUCER, SNAPSHOT
from model_checks.docs import server_section
from model_checks.docs.markdown import GENERATED, table
from model_checks.doctor.answer import LATTICE_PAGE, answer, instance_text, judged_properties
from model_checks.doctor.facts import SOURCES
from spec import VARIANT_NAMES, Drift
from spec.drift import Environment

PAGE = "vllm.md"
HAND_WRITTEN = "<!-- Written by hand from here on; `python -m model_checks docs` keeps it. -->"
"""The line after which the committed page is hand-written (kept, never generated)."""


def hand_written(root: Path) -> str:
    """The committed page's hand-written tail, from the `HAND_WRITTEN` line on ("" if none)."""
    path = root / PAGE
    text = path.read_text() if path.is_file() else ""
    start = text.find(HAND_WRITTEN)
    return "" if start < 0 else text[start:]


def load(root: Path) -> dict[str, Any]:
    """The committed snapshot ({} when absent: the page then says so)."""
    path = root / SNAPSHOT
    if not path.is_file():
        return {}
    loaded: dict[str, Any] = json.loads(path.read_text())
    return loaded


def _intro(snap: dict[str, Any]) -> list[str]:
    return [
        GENERATED, "", "# vLLM's released caches under the checks", "",
        f"Produced by `{COMMAND}`, a real run on **vllm {snap['vllm']}** (the published "
        f"wheel) beside torch {snap['torch']} on CPU, and rendered from its snapshot "
        f"(`docs/{SNAPSHOT.as_posix()}`) by `python -m model_checks docs`. The caches are "
        "vLLM's own `LruKeyReplicatedSenderCache` (P0, the API server's shadow) and "
        "`LruKeyReplicatedReceiverCache` (P1, the engine core's tensors), imported from the "
        "installed release; the glue that calls them as vLLM's input processor and engine "
        "core do is `model_checks/adapters/vllm.py`. Supported releases: "
        f"{vllm_release.supported_text()} (`model_checks/adapters/vllm_release.py`; any "
        "other is refused in one line). Per cache type (`IMPLEMENTS`, keyed by release and "
        f"cache type): {vllm_release.designs_text(snap['vllm'])}. The first runs below are "
        "of the LRU pair; the shared-memory object store's, from the same run, are in its "
        "own section (\"The shared-memory object store\").", "",
        "```sh",
        "bash scripts/setup && bash scripts/setup-vllm    # vLLM --no-deps: requirements-vllm.txt",
        ".venv/bin/python -m model_checks conform --adapter model_checks.adapters.vllm:factory "
        "--variant V2",
        ".venv/bin/python -m pytest -m vllm tests/vllm    # skipped where setup-vllm did not run",
        "```",
    ]


def _conformance(snap: dict[str, Any]) -> list[str]:
    props = [p for p, _ in judged_properties()]
    rows = []
    for variant in VARIANT_NAMES:
        runs = snap["conformance"].get(variant)
        if runs is None:
            rows.append((variant, "", "not implemented by this release: not checked", "", "",
                         *["" for _ in props]))
            continue
        for processes, run in sorted(runs.items()):
            rows.append((variant, processes, f"`{run['result']}`", run["steps"], run["exit"],
                         *[run["verdicts"].get(p, "") for p in props]))
    return ["", "## Conformance per variant", "",
            "`conform` under every drift source (the ci profile), in one process and with "
            "the engine side in a second process (`--processes 2`: the tensors cross a "
            "socket): every step of the release compared with the spec's; per property, "
            "*kept* (never broken in these runs) or *INHERITED WEAKNESS* (broken where the "
            "variant's spec breaks it too). Backed by "
            "`tests/vllm/test_vllm_conform.py`.", "",
            table(("variant", "processes", "result", "lockstep steps", "exit", *props),
                  rows)]


def _lattice_answer(variant: str, env: tuple[str, ...], prop: str) -> str:
    for result in answer(variant, env):
        if result.property_id == prop:
            return ("breaks: " + ", ".join(Environment.of(e).text for e in result.breaks_under)
                    if result.breaks else "no breaking environment known")
    return ""


def _deployments(snap: dict[str, Any]) -> list[str]:
    variant = snap["variant"]
    props = [p for p, _ in judged_properties()]
    rows = []
    for run in snap["deployments"]:
        env = tuple(run["environment"])
        rows.append((run["name"], Environment.of(env).text, run["exit"],
                     *[f"{run['verdicts'].get(p, '')}; lattice: "
                       f"{_lattice_answer(variant, env, p)}" for p in props]))
    return ["", "## What it keeps per deployment environment", "",
            "Each deployment's environment is the one the doctor reads from its facts "
            "(`python -m model_checks doctor`; sources no fact rules out stay in). Per "
            "property: the verdict of `conform --environment ENV --require S1,S2,S3` on the "
            "release (its generated runs are bounded: 2 examples of 20 steps per "
            "configuration), then the project's answer for the variant under that environment "
            f"({LATTICE_PAGE}; {instance_text(variant)}). Where the answer breaks a "
            "property that conform's runs kept, the gate exits 4 all the same, and the "
            "witness is the stronger evidence: its S1 traces replay on the release (next "
            "section).", "",
            table(("deployment", "environment", "exit", *props), rows)]


def _replays(snap: dict[str, Any]) -> list[str]:
    rows = [(f"`{r['trace']}`", r["exit"], f"`{r['result']}`") for r in snap["replays"]]
    return ["", f"## The lattice's {snap['variant']} S1 traces on the release", "",
            "`conform --adapter model_checks.adapters.vllm:factory --replay TRACE` for every "
            "minimal breaking trace the committed lattice keeps for S1, and for the variant's "
            "S1 breaks with D7 and one more source (`docs/results/conform-traces/`; exit 4: the "
            "release pairs the stale tensor exactly where the spec does). D7 alone is a "
            "hand-built run, four requests on a budget of 3: two requests failed by P0's "
            "assertion leave the shadow updated for requests P1 never sees. A trace with D6's "
            "per-item "
            "updates (`p0_update_item`) is followed item by item through the adapter's "
            "`update_item` (one `get_and_update_item` call each), so the two requests' items "
            "interleave as recorded. Backed by `tests/vllm/test_vllm_conform.py`.", "",
            table(("trace", "exit", "result"), rows)]


def _reproducer(snap: dict[str, Any]) -> list[str]:
    seen = snap["reproducer"]
    outcome = (f"P0 sent {'data' if seen['data_sent'] else 'no data'} with the placeholders "
               f"of image {seen['placeholders_of_image']}; P1 served the tensor of image "
               f"{seen['tensor_of_image']}")
    return ["", "## The shortest stale pairing, as vLLM calls", "",
            "A budget of one 64-byte item, one client uuid reused for a new image (D7, "
            "vllm#55547) and two requests rejected after P0 updated its shadow (D2, as in "
            "vllm#43941): six `get_and_update_item` calls on the release's classes (V2 under "
            "D2+D7, a breaking environment of the lattice). The snapshot run "
            "executed this block as shown; what it observed: " + outcome + ". Backed by "
            "`tests/vllm/test_vllm_stale_pairing.py`, which also runs the same requests on "
            "the reference's V3: a miss, then the retry serves image 1.", "",
            "```python", REPRODUCER.rstrip(), "```"]


def _settings() -> list[str]:
    rows = [(drift, Drift(drift).title, s.arises, s.reference or "none known", s.removes)
            for drift, s in SOURCES.items()]
    return ["", "## Which vLLM settings and client behaviours switch on which drift source",
            "", "The doctor's table (`model_checks/doctor/facts.py`); `doctor` marks a source "
            "*on* when a fact says so, *assumed* when no fact rules it out. Several API "
            "servers, or data parallelism balanced internally, switch vLLM to "
            "`MultiModalProcessorOnlyCache` (no pairing, so no D5): read from the release's "
            "own cache factories by `tests/vllm/test_vllm_settings.py`, which also reads "
            "the rows D3, D4 (the release's sleep, pause and reset clear the front end's "
            "cache first) and D6 (one processing thread) from the release's source.", "",
            table(("drift", "source", "in vLLM", "reference", "what removes it"), rows), "",
            "```sh",
            "python -m model_checks doctor --client-uuids yes --rejections yes",
            "python -m model_checks doctor --serve 'vllm serve MODEL --enable-sleep-mode'",
            "python -m model_checks doctor --serve 'vllm serve MODEL --config serve.yaml'",
            "python -m model_checks doctor --serve 'vllm serve MODEL "
            "--mm-processor-cache-type shm'  # design shm's own answer",
            "python -m model_checks doctor --client-uuids yes --require S1,S3  # exit 4: "
            "at risk",
            "```"]


def _shm(snap: dict[str, Any]) -> list[str]:
    """The shared-memory store's section: its lockstep runs and its witnesses' replays."""
    shm = snap.get("shm")
    if not shm:
        return ["## The shared-memory object store", "",
                f"Not in this snapshot: run `{COMMAND}` again.", ""]
    rows = [[f"`{e['environment']}`", f"{e['steps']:,}", e["said"]]
            for e in shm["environments"]]
    replays = [[f"[{Path(r['witness']).name}]({r['witness'].removeprefix('docs/')})",
                r["property"], str(r["exit"]), r["result"]] for r in shm["replays"]]
    return [
        "## The shared-memory object store", "",
        "`--mm-processor-cache-type shm`: vLLM's `ShmObjectStoreSenderCache` (P0, the single "
        "writer of a ring in shared memory) and `ShmObjectStoreReceiverCache` (each worker, a "
        "reader), run in lockstep with the shm design (`spec/designs/shm/`, variant O1) by "
        "`model_checks/adapters/vllm_shm.py`, which states the model's bytes in the "
        f"release's own ({shm['byte_map']}). Its answers for every environment of its sources "
        "are on docs/drift-combinations.md, section \"Design `shm`\"; the doctor answers a "
        "deployment of it with them.", "",
        f"`python -m model_checks {shm['argv']}`: exit {shm['exit']}, {shm['result']}", "",
        table(["environment", "lockstep steps", "outcome"], rows), "",
        "Every committed witness of the design replayed on the release (`conform --design shm "
        "--adapter model_checks.adapters.vllm_shm:factory --replay FILE`; exit 4: the release "
        "breaks the property as the model does):", "",
        table(["witness", "property", "exit", "result"], replays), "",
        "The adapter runs each worker's `get` on a thread of its own and holds it between its "
        "checks and its copy (`PausedSerde`), so the spec's `Check` and `Copy` are the "
        "release's own two halves and P0's steps run between them as the witness orders "
        "them: on the D3 witness of S1 the release serves b's tensor for a's item with no "
        "error, and a side whose read runs whole at its check disagrees there "
        "(`tests/vllm/test_vllm_shm_conform.py`). The findings, each reproduced above: P0's "
        "clear (`reset_mm_cache`, `/sleep`, `pause_generation` by default) while a request "
        "is in flight kills the engine (S3) or, between a worker's check and its copy, "
        "serves another object silently (S1); a client's handle (C1, only with "
        "`--enable-scale-out` or `--tokens-only`) and, with tensor or pipeline parallel "
        ">= 2, a preempted request sent to the workers again (R1) are read by every worker "
        "without P0 counting them, so those reads pay for another request's handle of the "
        "same chunk: P0 frees it while a worker has yet to read that request, and a new "
        "chunk takes its place.", "",
    ]


def _code_map() -> list[str]:
    """Per design, the release's code for each spec action (`vllm_code_map.TABLES`)."""
    lines = [
        "## What runs each spec action", "",
        "For each design, the code of vLLM 0.33.0 that performs each spec action: the "
        "process, the lock it holds, and its functions, each pinned to its source by hash "
        "(`model_checks/adapters/vllm_code_map.py`; `tests/vllm/test_vllm_code_map.py` reads "
        "every function from the installed release and fails on a changed or missing one, "
        "or on an action without a row). A spec step is as coarse as the release's critical "
        "section: the shm worker's check and copy are two steps because the writer takes no "
        "lock the worker holds between them.", ""]
    for design, rows in vllm_code_map.TABLES.items():
        lines += [f"Design `{design}`:", "", table(
            ("action", "process", "lock", "functions", "what it does"),
            [(f"`{r.action}`", r.process, r.lock,
              "<br>".join(f"`{f}` ({vllm_code_map.PINS[f]})" for f in r.functions) or "none",
              r.does) for r in rows]), ""]
    lines += [
        "Why the LRU design has no preemption re-send: its P1 is the engine core's receiver "
        "cache, applied in `EngineCore.preprocess_add_request` before the request becomes the "
        "scheduler's `Request`; a preempted request is scheduled again from that `Request`, "
        "whose items the cache already resolved, and the workers hold no receiver cache in "
        "`lru` mode. The shm store's readers are the workers themselves, which read every "
        "request the scheduler sends them as new: with the V2 model runner a resumed request "
        "is one, handles included (`Preempt`, source R1). Both read from the release's "
        "source by `tests/vllm/test_vllm_code_map.py`.", ""]
    return lines


def vllm_page(snap: dict[str, Any], tail: str = "",
              server_runs: list[dict[str, Any]] | None = None) -> str:
    """The page's Markdown, from the snapshot (`load`) and the committed server run
    (`server_section.load`), then the committed page's hand-written `tail` (`hand_written`)."""
    if not snap:
        return "\n".join([GENERATED, "", "# vLLM's released caches under the checks", "",
                          f"No snapshot (`docs/{SNAPSHOT.as_posix()}`): run `{COMMAND}` after "
                          "scripts/setup-vllm."]) + "\n"
    parts = [*_intro(snap), *_conformance(snap), *_deployments(snap), *_replays(snap),
             *_reproducer(snap), *_shm(snap), *_code_map(), *_settings(),
             *server_section.section(server_runs or [])]
    return "\n".join(parts) + "\n" + ("\n" + tail if tail else "")
