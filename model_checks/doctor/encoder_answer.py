"""The doctor's facts and answers for the engine's encoder cache, which every multimodal
deployment has whatever its processor cache: it keys each item by its identity (the
client's uuid, else the content hash), so with client uuids (D7) a reused uuid can be
answered from the old content even with `--mm-processor-cache-gb 0`. The answers are the
encoder design's committed ones (package data `model_checks/answers/designs.json`).
"""

from __future__ import annotations

import textwrap
from typing import Any

from model_checks.doctor import design_answer
from model_checks.doctor.facts import Deployment

DESIGN = "encoder"
PROPERTIES = ("S1", "S4", "S3")


def lines(deployment: Deployment) -> list[str]:
    """What the encoder cache is here and each of its answers under the deployment's
    identities (D7 on with client uuids)."""
    found: dict[str, Any] = design_answer.load().get(DESIGN, {})
    environment = "D7" if deployment.client_uuids else "none"
    out = _wrap(
        "the engine's encoder cache is still here: it keys every item by its identity (the "
        "client's uuid, else the content hash), its budget in embeddings (at least the "
        "largest item; --max-num-batched-tokens by default), entries kept until their space "
        f"is needed (design {DESIGN}, docs/drift-combinations.md); under "
        f"{'D7 (client uuids)' if deployment.client_uuids else 'no drift (content hashes)'}:",
        "")
    answers = found.get("answers", {})
    titles = {p["id"]: p["title"] for p in found.get("properties", [])}
    for prop in PROPERTIES:
        answer = answers.get(prop, {}).get(environment)
        if answer is None:
            out += _wrap(f"{prop}: no committed answer", "  ")
            continue
        out += _wrap(f"{prop} {titles.get(prop, '')}: "
                                   + _said(answer), "  ")
    if deployment.client_uuids:
        out += _wrap(
            "risk: a reused uuid of equal size is answered from the old content, silently, "
            "while the encoder cache holds it; of another size, that request fails (the "
            "scheduler's guard); removes it: content-hash identities (let vLLM hash the "
            "media)", "  ")
    return out


def _wrap(text: str, indent: str) -> list[str]:
    return textwrap.wrap(text, design_answer.WIDTH, initial_indent=indent,
                         subsequent_indent=indent + "    ") or [indent]


def _said(answer: dict[str, Any]) -> str:
    if answer["verdict"] == "breaks":
        return (f"BREAKS under {'+'.join(answer['breaking_set'])} ({answer['steps']} steps, "
                f"{answer['basis']})")
    return f"{answer['verdict']} ({answer['basis']})"
