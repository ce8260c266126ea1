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

from model_checks.adapters import vllm_release
from model_checks.adapters.vllm_run import COMMAND, REPRODUCER, SNAPSHOT
from model_checks.docs.markdown import GENERATED, table
from model_checks.doctor.answer import LATTICE_PAGE, answer, instance_text, judged_properties
from model_checks.doctor.facts import SOURCES
from model_checks.kernel.cells import environment_text
from spec import VARIANT_NAMES, Drift

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
            return ("breaks: " + ", ".join(environment_text(e) for e in result.breaks_under)
                    if result.breaks else "no breaking environment known")
    return ""


def _deployments(snap: dict[str, Any]) -> list[str]:
    variant = snap["variant"]
    props = [p for p, _ in judged_properties()]
    rows = []
    for run in snap["deployments"]:
        env = tuple(run["environment"])
        rows.append((run["name"], environment_text(env), run["exit"],
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
            "S1 breaks with D7 and one more source (`tests/conform/traces/`; exit 4: the "
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
        "C1 is the finding: a client that sends back a handle it was given (the token-in, "
        "token-out endpoint validates it and passes it on) has it read by every worker, but "
        "P0 never counted it as issued, so those reads pay for another request's handle of "
        "the same chunk: P0 frees the chunk while a worker has yet to read that request, a "
        "new chunk takes its place, and the worker raises inside the model's execution.", "",
    ]


def vllm_page(snap: dict[str, Any], tail: str = "") -> str:
    """The page's Markdown, from the snapshot (`load`), then the committed page's
    hand-written `tail` (`hand_written`)."""
    if not snap:
        return "\n".join([GENERATED, "", "# vLLM's released caches under the checks", "",
                          f"No snapshot (`docs/{SNAPSHOT.as_posix()}`): run `{COMMAND}` after "
                          "scripts/setup-vllm."]) + "\n"
    parts = [*_intro(snap), *_conformance(snap), *_deployments(snap), *_replays(snap),
             *_reproducer(snap), *_shm(snap), *_settings()]
    return "\n".join(parts) + "\n" + ("\n" + tail if tail else "")
