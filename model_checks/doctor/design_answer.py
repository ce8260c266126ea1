"""The doctor's answer for a deployment whose paired cache is a design other than the
key-replicated LRU: the design's own drift sources, each on, assumed or off from the
deployment's facts, and the design's committed answer per property under them (package data
`model_checks/answers/designs.json`, generated with docs/drift-combinations.md).
"""

from __future__ import annotations

import json
import textwrap
from importlib import resources
from typing import Any

from model_checks.doctor.facts import NO_CACHE, Deployment, Status
from model_checks.doctor.findings import Finding, Level, because
from model_checks.kernel.shipped import located
from spec.drift import Environment

WIDTH = 100

SHM_FACTS: dict[str, tuple[str, str]] = {
    "D1": ("reordering", "requests can reach the workers in another order than P0 "
           "processed them"),
    "D2": ("rejections", "a request is rejected or aborted after P0 issued its handles"),
    "D3": ("sleep_mode", "/sleep, reset_mm_cache, or pause_generation (its default cache clear "
           "runs in every mode, before the engine pauses) clear P0's store while requests "
           "are in flight"),
    "D7": ("client_uuids", "clients send their own multi_modal_uuids and may reuse one"),
    "D8": ("large_requests", "a request's media can exceed --mm-processor-cache-gb"),
    "D11": ("oversize", "objects larger than --mm-shm-cache-max-object-size-mb"),
    "C1": ("client_handles", "clients send back SHM handles (the token-in, token-out "
           "endpoint, registered by --enable-scale-out or --tokens-only, validates and "
           "passes them on; off without those flags)"),
    "R1": ("multiprocess", "tensor or pipeline parallel >= 2: the multiprocess executor sends "
           "a preempted request to the workers again with its handles (vLLM's default model "
           "runner)"),
}
"""The shm design's sources: the deployment fact that switches each on, and how it arises
(a fact `Deployment` derives is a method of it)."""

REMOVES: dict[str, str] = {
    "D2": "a request dropped after P0 issued handles pins their chunks for good (U1): "
          "restart the server when the store's hit rate falls to zero",
    "D3": "drain in-flight requests before a cache reset: a handle in flight then finds its "
          "chunk overwritten and the worker raises (S3)",
    "D7": "content-hash identities (let vLLM hash the media)",
    "C1": "do not accept client-supplied handles, or count them as issued",
    "R1": "VLLM_USE_V2_MODEL_RUNNER=0 (the V1 runner sends a resumed request without its "
          "handles), or --mm-processor-cache-type lru",
}


def load() -> dict[str, Any]:
    text = resources.files("model_checks").joinpath("answers/designs.json").read_text()
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def statuses(deployment: Deployment) -> dict[str, Status]:
    """Each shm source's status: a stated fact, or assumed where none is stated. C1 unstated
    is assumed only where an endpoint takes handles (`Deployment.takes_handles`), else
    off."""
    found = {}
    for source, (fact, _) in SHM_FACTS.items():
        value = getattr(deployment, fact)
        if callable(value):
            value = value()
        if source == "C1" and value is None and not deployment.takes_handles():
            value = False
        found[source] = Status.ASSUMED if value is None else Status.ON if value else Status.OFF
    return found


def deployment_environment(deployment: Deployment) -> Environment:
    """The deployment's sources that are on or assumed."""
    found = statuses(deployment)
    return Environment.of(s for s in SHM_FACTS if found[s] is not Status.OFF)


def lines(deployment: Deployment, design: str, variant: str) -> list[str]:
    """Sources, the design's answer per property under them, and what removes each risk."""
    data = load()[design]
    found = statuses(deployment)
    sources = deployment_environment(deployment)
    env = sources.text
    out = wrap(f"drift sources of the {data['title']} in this deployment (on: a fact switches "
                "it on; assumed: no fact rules it out; off):", "")
    for source in data["sources"]:
        fact = SHM_FACTS[source["id"]][1]
        out += wrap(f"{source['id']} {source['title']}: {found[source['id']].value} ({fact})")
    out += wrap(f"the project's answer for design {design} {variant} under {env} "
                 "(docs/drift-combinations.md, section \"Design `shm`\"):", "")
    for prop in data["properties"]:
        answer = data["answers"][prop["id"]][env]
        out += wrap(f"{prop['id']} {prop['title']}: " + _said(design, prop["id"], answer))
    out.append("what removes each risk:")
    for source in sources:
        if source in REMOVES:
            out += wrap(f"{source}: {REMOVES[source]}")
    return out


RULE_OUT: dict[str, str] = {"D1": "--reordering no", "D2": "--rejections no",
                            "D3": "no --sleep-mode", "D7": "--client-uuids no",
                            "D8": "--large-requests no", "D10": "--restarts no",
                            "D11": "--oversize no", "C1": "--client-handles no"}
"""The doctor's option that rules each shm source out."""


def _witness(design: str, prop: str, answer: dict[str, Any]) -> str:
    breaking = "+".join(answer["breaking_set"])
    return located(f"docs/results/designs/{design}/witnesses/{breaking}_{prop}.json")


def findings(deployment: Deployment, design: str) -> tuple[Finding, ...]:
    """One finding per property of `design` under the deployment's environment."""
    data = load()[design]
    found = statuses(deployment)
    env = deployment_environment(deployment).text
    facts = {source: text for source, (_, text) in SHM_FACTS.items()}
    out = []
    for prop in data["properties"]:
        answer = data["answers"][prop["id"]][env]
        if answer["verdict"] == "breaks":
            sources = tuple(answer["breaking_set"])
            out.append(Finding(
                prop["id"], prop["title"], Level.AT_RISK, because((sources,), found, facts),
                f"{_witness(design, prop['id'], answer)} ({answer['steps']} steps)",
                tuple(RULE_OUT[s] for s in sources if found[s] is Status.ASSUMED),
                (*(f"{s}: {REMOVES[s]}" for s in sources if s in REMOVES), NO_CACHE),
                _said(design, prop["id"], answer)))
        else:
            level = Level.KEPT if answer["verdict"] == "holds" else Level.UNDECIDED
            out.append(Finding(prop["id"], prop["title"], level, answer["basis"],
                               detail=_said(design, prop["id"], answer)))
    return tuple(out)


def _said(design: str, prop: str, answer: dict[str, Any]) -> str:
    if answer["verdict"] == "breaks":
        breaking = "+".join(answer["breaking_set"])
        return (f"BREAKS under {breaking} (witness {_witness(design, prop, answer)}, "
                f"{answer['steps']} steps, {answer['basis']})")
    if answer["verdict"] == "holds":
        return f"holds: {answer['basis']}"
    return f"undecided here ({answer['basis']})"


def wrap(text: str, indent: str = "  ") -> list[str]:
    """`text` as the doctor's lines of at most `WIDTH` characters under `indent`."""
    return textwrap.wrap(text, WIDTH, initial_indent=indent,
                         subsequent_indent=indent + "    ", break_on_hyphens=False,
                         break_long_words=False)  # a path stays whole, to copy
