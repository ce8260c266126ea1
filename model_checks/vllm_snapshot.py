"""The real run behind docs/vllm.md: `python -m model_checks.vllm_snapshot` (needs the release
scripts/setup-vllm installs) runs vLLM's caches and writes `docs/results/vllm.json`, from
which `model_checks.docs.vllm_page` renders the page (so `docs --check` needs no vLLM). It
drives the commands users run, in process, so it lives beside the command line, not in the
site generator; what the page needs of it (the snapshot's file, this command, the reproducer)
is in `model_checks.adapters.vllm_run`.

What it runs, all through the commands users run:
- `conform --adapter model_checks.adapters.vllm:factory` per variant the release implements
  (every drift source, the ci profile; in one process and with the engine side in a second
  process, tensors crossing a socket), and per deployment environment with
  ``--require S1,S2,S3``: the verdict per property and the RESULT line;
- `conform --replay` of every trace the committed lattice keeps for the variant's S1, and of
  the variant's S1 breaks with D7 and one more source (`docs/results/conform-traces/`);
- `REPRODUCER`, the shortest stale pairing as vLLM calls, executed as shown on the page;
- the shared-memory object store: `conform --design shm --adapter
  model_checks.adapters.vllm_shm:factory` (seeded lockstep runs per environment) and
  `--replay` of every committed witness of the shm design.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path
from typing import Any

from model_checks.adapters import vllm_release
from model_checks.adapters.vllm_run import COMMAND, REPRODUCER, SNAPSHOT
from model_checks.designs import witness_files
from model_checks.doctor.facts import Deployment, environment
from spec import safety_ids
from spec.drift import Environment

ADAPTER = "model_checks.adapters.vllm:factory"

DEPLOYMENTS: dict[str, Deployment] = {
    "content-hash identities, one API server (the doctor's defaults)": Deployment(),
    "client uuids, rejections after processing": Deployment(client_uuids=True),
    "sleep mode (clears racing in-flight requests)": Deployment(sleep_mode=True),
}
"""The deployments the page answers, each as the doctor reads it (`doctor.facts`)."""

def reproduce() -> dict[str, Any]:
    """Run `REPRODUCER`; what the engine served and which placeholders came with it."""
    scope: dict[str, Any] = {}
    exec(compile(REPRODUCER, "<docs/vllm.md reproducer>", "exec"), scope)
    tensor = scope["served"]["pixel_values"].data
    return {"data_sent": scope["data"] is not None,
            "placeholders_of_image": int(scope["updates"][0].offset),
            "tensor_of_image": int(tensor[0].item()) if bool((tensor == tensor[0]).all())
            else None}


_VERDICT = re.compile(r"^  (?P<id>\S+) (?P<title>[^:\[]+?)(?: \[required\])?: "
                      r"(?P<verdict>kept|INHERITED WEAKNESS|REGRESSION|not checked|not judged)")


def _cli(argv: list[str]) -> tuple[int, str]:
    from model_checks.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(argv)
    return code, out.getvalue()


def _conform(extra: list[str]) -> dict[str, Any]:
    code, out = _cli(["conform", "--adapter", ADAPTER, *extra])
    steps = re.search(r"(\d+) lockstep\s+steps", out)
    verdicts = {m["id"]: m["verdict"] for m in map(_VERDICT.match, out.splitlines()) if m}
    return {"argv": " ".join(["conform", "--adapter", ADAPTER, *extra]), "exit": code,
            "steps": int(steps.group(1)) if steps else 0, "verdicts": verdicts,
            "result": out.rstrip().splitlines()[-1] if out.strip() else ""}


PAIR_TRACES = Path("docs") / "results" / "conform-traces"
"""V2's S1 breaks with D7 and one more drift source, kept as conformance inputs once the
lattice's minimal set became D7 alone (their README says where each came from)."""


def _replays(variant: str, root: Path) -> list[dict[str, Any]]:
    found = []
    paths = [*sorted((root / "results" / "lattice").glob(f"{variant}_*_S1.json.gz")),
             *sorted((root.parent / PAIR_TRACES).glob(f"{variant}_*_S1.json"))]
    for path in paths:
        code, out = _cli(["conform", "--adapter", ADAPTER, "--replay", str(path)])
        found.append({"trace": path.relative_to(root.parent).as_posix(), "exit": code,
                      "result": out.rstrip().splitlines()[-1]})
    return found


SHM_ADAPTER = "model_checks.adapters.vllm_shm:factory"
SHM_STEPS = 2000
"""Lockstep steps per environment of the shared-memory design's run."""
SHM_WITNESSES = Path("results") / "designs" / "shm" / "witnesses"
_SHM_ENVIRONMENT = re.compile(r"^  environment (?P<env>\S+): (?P<steps>\d+) lockstep steps, "
                              r"(?P<said>.+)$")


def _shm(root: Path) -> dict[str, Any]:
    """The shared-memory store: seeded lockstep runs per environment, then every committed
    witness of the shm design replayed on the release."""
    argv = ["conform", "--design", "shm", "--adapter", SHM_ADAPTER, "--steps", str(SHM_STEPS)]
    code, out = _cli(argv)
    lines = out.rstrip().splitlines()
    environments = [{"environment": m["env"], "steps": int(m["steps"]), "said": m["said"]}
                    for m in map(_SHM_ENVIRONMENT.match, lines) if m]
    byte_map = next((line.strip() for line in lines if line.strip().startswith("byte map")),
                    "")
    replays = []
    for path in sorted((root / SHM_WITNESSES).glob("*.json")):
        replayed, said = _cli([*argv[:5], "--replay", str(path)])
        replays.append({"witness": path.relative_to(root.parent).as_posix(),
                        "property": witness_files.read(path).property_id,
                        "exit": replayed, "result": said.rstrip().splitlines()[-1]})
    return {"argv": " ".join(argv), "exit": code, "environments": environments,
            "byte_map": byte_map, "result": lines[-1] if lines else "", "replays": replays}


def run(root: Path) -> dict[str, Any]:
    """The snapshot: every run above, made now on the installed release."""
    import torch
    import vllm

    version = vllm_release.require_supported()
    variant = vllm_release.variant_of(version)
    deployments = []
    for name, deployment in DEPLOYMENTS.items():
        env = environment(deployment)
        deployments.append({"name": name, "environment": list(env), **_conform(
            ["--variant", variant, "--environment", Environment.of(env).text,
             "--require", ",".join(safety_ids())])})
    return {"vllm": str(vllm.__version__), "torch": str(torch.__version__),
            "variant": variant, "command": COMMAND,
            "conformance": {variant: {str(n): _conform(["--variant", variant, "--processes",
                                                         str(n)]) for n in (1, 2)}},
            "deployments": deployments, "replays": _replays(variant, root),
            "reproducer": reproduce(), "shm": _shm(root)}


def main(root: Path = Path("docs")) -> int:
    snapshot = run(root)
    (root / SNAPSHOT).write_text(json.dumps(snapshot, indent=1, sort_keys=True) + "\n")
    print(f"wrote {root / SNAPSHOT} (vllm {snapshot['vllm']}); now run "
          "`python -m model_checks docs`")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
