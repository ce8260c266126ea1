"""`python -m model_checks doctor`: a vLLM deployment's paired-cache risks, from its facts.

Given flags (``--client-uuids yes``, ``--sleep-mode``, ``--api-servers N``, ...) or a
``--serve 'vllm serve ...'`` line (its settings override the matching flags; read as vLLM
reads it, ``--config FILE`` included: `serve_line`), it prints: the release and cache type
with the design and variant it implements (`vllm_release.IMPLEMENTS`, keyed by both), the
cache vLLM builds there, each drift source's status (on, assumed, off) and how it arises,
the project's answer per property for that variant (with the instance the answer is for),
what removes each risk, and (for the LRU pair) the counters to alert on. The shared-memory
object store (``--mm-processor-cache-type shm``) is answered with its own design's sources
and properties (`design_answer`), never with the LRU pair's. For a design the project does
not model it answers nothing: it says so, and what is known of the design.

The answer opens with a headline per property (`findings.Finding`: "S1 consistent pairing:
AT RISK, clients reuse uuids"), then what to change in vLLM (its options, the project's patch,
no cache) and what rules an assumption out, then the details. ``--json`` prints the same as
one JSON object instead.

Exit codes: 0 answered (or no paired cache to answer for), and no ``--require``d property at
risk; 2 usage error (one line on stderr: bad flags, an option vLLM does not have, a flag that
contradicts the serve line, an unreadable serve line or --config file, an unknown cache type
or property, an unsupported vLLM release); 4 a ``--require``d property is AT RISK in the
deployment; 5 the deployment's paired cache is a design the project does not model, so no
answer is given (no cache type of the supported releases is such a design).
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass, replace
from pathlib import Path

from model_checks.adapters import vllm_release
from model_checks.doctor import design_answer, encoder_answer
from model_checks.doctor.answer import (
    LATTICE_PAGE,
    Answer,
    answer,
    instance_text,
    judged_properties,
)
from model_checks.doctor.design_answer import wrap
from model_checks.doctor.facts import (
    NO_CACHE,
    SOURCES,
    Deployment,
    ServeLineError,
    environment,
    from_serve_line,
    statuses,
)
from model_checks.doctor.findings import Finding, lru_finding, patch_line
from model_checks.doctor.serve_line import FLAGS, VALUES, settings
from model_checks.kernel.exits import EXIT_OK, UsageError
from spec import DRIFT_IDS, VARIANT_NAMES, Drift
from spec.drift import Environment

EXIT_AT_RISK = 4
"""A ``--require``d property is at risk in the deployment."""
EXIT_NOT_MODELLED = 5
"""The deployment's paired cache is a design the project does not model."""

COUNTERS = (
    "engine warnings 'Multi-modal cache miss for request ...' (MultiModalCacheMissError, "
    "EngineCoreOutput.mm_cache_miss_hashes): each is a drift recovered by the client's "
    "retry; a steady rate above zero is H1 broken",
    "responses finished with finish_reason error and no tokens: a client that ignored the "
    "retryable miss (silent empty success)",
    "warnings 'Skipping multi-modal processor cache insert' (oversize skips, D11)",
    "HTTP 500 'Expected a cached item for mm_hash' (P0's assertion: S3 under D6 or D8)",
)


def _yes_no(text: str) -> bool:
    if text.lower() in ("yes", "y", "true", "1"):
        return True
    if text.lower() in ("no", "n", "false", "0"):
        return False
    raise argparse.ArgumentTypeError(f"got {text!r}, expected yes or no")


_CHOICES = {"--client-uuids": ("client_uuids", "clients send their own uuids and may "
                                               "reuse one for new content (D7)"),
            "--rejections": ("rejections", "requests can be rejected or aborted after "
                                           "processing (D2; default yes)"),
            "--restarts": ("restarts", "the engine core can restart alone (D10)"),
            "--engine-only-clears": ("engine_only_clears", "a client clears the engine "
                                     "core's cache alone (D3)"),
            "--oversize": ("oversize", "items larger than the cache occur (D11)"),
            "--reordering": ("reordering", "requests can reach the engine out of order "
                                           "(D1; default: assumed)"),
            "--large-requests": ("large_requests", "a request's media can exceed the cache "
                                                   "(D8; default: assumed)"),
            "--size-skew": ("size_skew", "the sides can size an item differently (D9; "
                                         "default: assumed)"),
            "--client-handles": ("client_handles", "clients send back shared-memory handles "
                                 "(C1, the shm design only; default: assumed)")}


STDOUT = Path("-")
"""`--json` without a path: the answer printed instead of the report."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    for flag, (dest, text) in _CHOICES.items():
        parser.add_argument(flag, dest=dest, type=_yes_no, metavar="yes|no", help=text)
    parser.add_argument("--sleep-mode", action="store_true", default=None,
                        help="sleep mode, /pause with cache clear or reset_mm_cache in use "
                             "(D4; with --cache-type shm, the store's clear D3)")
    parser.add_argument("--api-servers", type=int, metavar="N", help="api_server_count")
    parser.add_argument("--data-parallel", type=int, metavar="N", help="data_parallel_size")
    parser.add_argument("--data-parallel-external-lb", dest="external_lb",
                        action="store_true", default=None)
    parser.add_argument("--cache-type", choices=vllm_release.CACHE_TYPES,
                        help="--mm-processor-cache-type (default lru; shm is answered "
                             "with the shared-memory design's own sources and properties)")
    parser.add_argument("--cache-gb", type=float, metavar="GIB",
                        help="--mm-processor-cache-gb (0: no processor cache)")
    parser.add_argument("--serve", metavar="LINE",
                        help="a 'vllm serve ...' command line, read as vLLM reads it "
                             "(--config FILE too)")
    parser.add_argument("--vllm-version", metavar="X.Y.Z",
                        help="the release to answer for (default: the installed one)")
    parser.add_argument("--require", metavar="S1,S3",
                        help="properties the deployment must keep, comma separated: exit "
                             f"{EXIT_AT_RISK} when one of them is AT RISK, 0 otherwise")
    parser.add_argument("--json", type=Path, nargs="?", const=STDOUT, default=None,
                        metavar="PATH",
                        help="write the answer as one JSON object here (the findings, the "
                             "sources, the exit code); without PATH, or '-': print it instead "
                             "of the report")


_FLAG_OF: dict[str, str] = {
    **{dest: flag for flag, (dest, _) in _CHOICES.items()},
    "sleep_mode": "--sleep-mode", "api_servers": "--api-servers",
    "data_parallel": "--data-parallel", "external_lb": "--data-parallel-external-lb",
    "cache_type": "--cache-type", "cache_gb": "--cache-gb"}
"""`Deployment` field -> the doctor's flag that states it."""


def _serve_option(field: str) -> str:
    """The serve line's option that sets `field` (its long spelling)."""
    named = [o for o, f in VALUES.items() if f == field]
    named += [o for o, (f, _) in FLAGS.items() if f == field]
    return next(o for o in named if o.startswith("--"))


def _shown(value: object) -> str:
    return ("yes" if value else "no") if isinstance(value, bool) else f"{value:g}" if (
        isinstance(value, float)) else str(value)


def _conflicts(given: dict[str, object], line: str) -> None:
    """A flag stating what the serve line states otherwise: `ValueError`, one line."""
    from_line = settings(line)
    for field, value in given.items():
        if value is not None and field in from_line and from_line[field] != value:
            raise ValueError(f"got {_FLAG_OF[field]} {_shown(value)} beside a serve line with "
                             f"{_serve_option(field)} {_shown(from_line[field])}: give one")


def deployment_of(args: argparse.Namespace) -> Deployment:
    """The deployment the arguments state (`ServeLineError` or `ValueError`: one line)."""
    given = {dest: getattr(args, dest) for dest, _ in _CHOICES.values()}
    for dest in ("sleep_mode", "api_servers", "data_parallel", "external_lb", "cache_type",
                 "cache_gb"):
        given[dest] = getattr(args, dest)
    for dest in ("api_servers", "data_parallel"):
        if given[dest] is not None and given[dest] < 1:
            raise ValueError(f"got --{dest.replace('_', '-')} {given[dest]}, expected >= 1")
    if given["cache_gb"] is not None and not given["cache_gb"] >= 0:
        raise ValueError(f"got --cache-gb {given['cache_gb']}, expected >= 0")
    if args.serve:
        _conflicts(given, args.serve)
    base = replace(Deployment(), **{k: v for k, v in given.items() if v is not None})
    return from_serve_line(args.serve, base) if args.serve else base


def _version(requested: str | None) -> tuple[str, str]:
    """(release, how it was chosen); `UnsupportedVllm` for a release not supported."""
    if requested is not None:
        return vllm_release.require_supported(requested), "as asked"
    installed = vllm_release.installed_version()
    if installed is not None:
        return vllm_release.require_supported(installed), "installed here"
    newest = vllm_release.releases()[-1]
    return newest, f"vLLM is not installed here; answering for {newest}"


def _sources(deployment: Deployment) -> list[str]:
    lines = wrap("drift sources in this deployment (on: a fact switches it on; assumed: no "
                  "fact rules it out, so it stays in; off):", "")
    found = statuses(deployment)
    for drift, source in SOURCES.items():
        ref = f"; {source.reference}" if source.reference else ""
        lines += wrap(f"{drift} {Drift(drift).title}: {found[drift].value} "
                       f"({source.arises}{ref})")
    return lines


def _answer_lines(result: Answer) -> list[str]:
    head = f"{result.property_id} {result.title}: "
    if not result.breaks:
        return wrap(head + "no breaking environment known inside this deployment: "
                     + result.bound)
    named = ", ".join(Environment.of(e).text for e in result.breaks_under)
    trace = f"; shortest trace {result.trace}" if result.trace else ""
    return wrap(head + f"BREAKS under {named}{trace}; {result.removal}")


def _unpaired(deployment: Deployment, version: str) -> list[str]:
    if deployment.pairing() == "none":
        why = "--mm-processor-cache-gb is 0: no processor cache"
        return [*wrap(f"no paired cache here: {why}; no drift source of the pairing "
                       "applies", ""), *encoder_answer.lines(deployment)]
    else:  # "processor_only"
        why = (f"{deployment.api_servers} API server(s), data parallel "
               f"{deployment.data_parallel}{' (external LB)' if deployment.external_lb else ''}"
               f": vLLM {version} uses MultiModalProcessorOnlyCache there (each front end "
               f"keeps its own tensors, nothing is paired with the engine: D5 is avoided, "
               f"the IPC saving is lost; {SOURCES['D5'].reference})")
    return wrap(f"no paired cache here: {why}; no drift source of the pairing applies",
                 "")


def _header(deployment: Deployment, version: str, chosen: str) -> list[str]:
    """The release and cache type, with the variant that design implements (or that the
    project does not model it): never a variant for a design that does not implement it."""
    cache_type = deployment.cache_type
    variant = vllm_release.implements(version, cache_type)
    design = vllm_release.DESIGN_OF.get(cache_type, cache_type)
    said = (f" implements design {design}'s {variant} (model_checks/adapters/vllm_release.py;"
            " conform checks it)" if variant else ": not modelled by the project "
            "(model_checks/adapters/vllm_release.py)")
    if deployment.pairing() not in vllm_release.CACHE_TYPES:
        said = ": no paired cache of that type is built here (below)"
    return wrap(f"doctor: vLLM {version} ({chosen}) with {vllm_release.CACHE_OPTION} "
                 f"{cache_type}{said}", "")


def _not_modelled(deployment: Deployment, version: str) -> list[str]:
    """Why no answer is given for a paired cache whose design the project does not model."""
    cache_type = deployment.cache_type
    lru = vllm_release.CACHE_TYPES[0]
    name, classes = vllm_release.DESIGNS[cache_type]
    return [
        *wrap(f"not modelled: this deployment uses {name} ({classes}), which the project "
               f"does not model yet; none of the project's answers, which are for "
               f"{vllm_release.DESIGNS[lru][0]} ({VARIANT_NAMES[0]}-{VARIANT_NAMES[-1]}, drift "
               f"sources {DRIFT_IDS[0]}-{DRIFT_IDS[-1]}), apply to it, so none is given", ""),
        *wrap(f"what is known of it (vLLM {version}'s source): "
               f"{vllm_release.KNOWN.get(cache_type, 'its classes only')}", ""),
        *wrap(f"for the project's answers, run {vllm_release.CACHE_OPTION} {lru} (vLLM's "
               f"default), which vLLM {version} implements as "
               f"{vllm_release.implements(version, lru)} (exit {EXIT_NOT_MODELLED}: no answer "
               "for a design not modelled)", ""),
    ]


@dataclass(frozen=True)
class Report:
    """The doctor's answer for one deployment: the header, a finding per property (none
    without a paired cache, or for a design not modelled), the details below them."""

    header: list[str]
    findings: tuple[Finding, ...]
    details: list[str]
    modelled: bool
    version: str
    deployment: Deployment
    variant: str | None
    replay: str = "python -m model_checks replay PATH"
    """The command that replays a finding's witness."""

    def at_risk(self, required: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(f.property_id for f in self.findings
                     if f.at_risk and f.property_id in required)

    def exit_code(self, required: tuple[str, ...]) -> int:
        if not self.modelled:
            return EXIT_NOT_MODELLED
        return EXIT_AT_RISK if self.at_risk(required) else EXIT_OK

    def lines(self, required: tuple[str, ...] = ()) -> list[str]:
        """The answer as lines of at most 100 columns: headlines first."""
        out = list(self.header)
        for finding in self.findings:
            out += wrap(finding.headline(), "")
        out += _actions(self.findings, self.replay)
        if required and self.modelled:
            risky = self.at_risk(required)
            out += wrap(f"required {','.join(required)}: " + (
                f"{', '.join(risky)} AT RISK (exit {EXIT_AT_RISK})" if risky else
                "none at risk (exit 0)"), "")
        return out + self.details

    def to_json(self, required: tuple[str, ...] = ()) -> dict[str, object]:
        d = self.deployment
        found = statuses(d) if self.variant and d.pairing() == "lru" else {}
        return {"vllm": self.version, "cache_type": d.cache_type, "pairing": d.pairing(),
                "variant": self.variant, "modelled": self.modelled,
                "sources": {k: v.value for k, v in found.items()},
                "environment": list(environment(d)) if found else [],
                "findings": [f.to_json() for f in self.findings],
                "required": list(required), "at_risk": list(self.at_risk(required)),
                "exit": self.exit_code(required)}


def _actions(findings: tuple[Finding, ...], replay: str) -> list[str]:
    """What to change in vLLM, and what rules an assumption out, for the findings at risk."""
    risky = [f for f in findings if f.at_risk]
    if not risky:
        return []
    out = ["to remove the risks, in vLLM (a source's line removes every risk that needs it):"]
    remedies = sorted(dict.fromkeys(r for f in risky for r in f.remedies),
                      key=lambda r: int(r[1:r.index(":")]) if r[:1] in "CD" else 99)
    patch = patch_line(findings)
    for remedy in [r for r in remedies if r != NO_CACHE] + [patch] * bool(patch) + [
            r for r in remedies if r == NO_CACHE]:
        out += wrap(remedy)
    assumed = list(dict.fromkeys(r for f in risky for r in f.rule_out))
    if assumed:
        out += wrap("if your deployment rules a source out, say so: " + ", ".join(assumed)
                     + " (a source no fact rules out is assumed)", "")
    witnesses = [f"{f.property_id}: {f.witness}" for f in risky if f.witness]
    if witnesses:
        out += wrap(f"witnesses ({replay}): " + "; ".join(witnesses), "")
    return out


def build(deployment: Deployment, version: str, chosen: str) -> Report:
    """The doctor's answer: findings only for a paired cache whose design implements a
    variant."""
    header = _header(deployment, version, chosen)
    kind = deployment.pairing()
    if kind not in vllm_release.CACHE_TYPES:
        return Report(header, (), _unpaired(deployment, version), True, version, deployment,
                      None)
    variant = vllm_release.implements(version, kind)
    if variant is None:
        return Report(header, (), _not_modelled(deployment, version), False, version,
                      deployment, None)
    design = vllm_release.DESIGN_OF[kind]
    if design != "lru":
        return Report(header, design_answer.findings(deployment, design),
                      ["details:", *design_answer.lines(deployment, design, variant)], True,
                      version, deployment, variant,
                      f"python -m model_checks conform --design {design} --replay PATH")
    results = answer(variant, environment(deployment))
    return Report(header, tuple(lru_finding(r, deployment) for r in results),
                  ["details:", *_answered(deployment, variant, results)], True, version,
                  deployment, variant)


def _answered(deployment: Deployment, variant: str, results: tuple[Answer, ...]) -> list[str]:
    """Drift sources, the lattice's answer for `variant` under them, removals, counters."""
    env = environment(deployment)
    lines = _sources(deployment)
    lines += wrap(f"the project's answer for {variant} under {Environment.of(env).text} "
                   f"({LATTICE_PAGE}; from {instance_text(variant)}):", "")
    for result in results:
        lines += _answer_lines(result)
    lines.append("what removes each risk, in the model's terms:")
    for drift in env:
        lines += wrap(f"{drift}: {SOURCES[drift].removes}")
    lines.append("counters to alert on:")
    for counter in COUNTERS:
        lines += wrap(counter)
    return lines


def required_of(text: str | None, known: tuple[str, ...]) -> tuple[str, ...]:
    """The ``--require`` list, checked (`ValueError`: one line)."""
    if text is None:
        return ()
    wanted = tuple(p.strip() for p in text.split(","))
    for prop in wanted:
        if prop not in known:
            raise ValueError(f"got --require {prop!r}, expected properties from "
                             f"{','.join(known)}")
    return wanted


def _known_properties() -> tuple[str, ...]:
    """Every property the doctor answers: the LRU pair's, then the other designs' own."""
    ids = [prop for prop, _ in judged_properties()]
    for data in design_answer.load().values():
        ids += [p["id"] for p in data["properties"]]
    return tuple(dict.fromkeys(ids))


def run(args: argparse.Namespace) -> int:
    try:
        required = required_of(args.require, _known_properties())
        deployment = deployment_of(args)
        version, chosen = _version(args.vllm_version)
    except (ServeLineError, ValueError, vllm_release.UnsupportedVllm) as error:
        raise UsageError(str(error)) from None
    result = build(deployment, version, chosen)
    answer = json.dumps(result.to_json(required), indent=2)
    if args.json == STDOUT:
        print(answer)
    else:
        print("\n".join(result.lines(required)))
    if args.json not in (None, STDOUT):
        try:
            args.json.write_text(answer + "\n")
        except OSError as error:
            raise UsageError(f"--json: cannot write {args.json}: {error.strerror}") from None
    return result.exit_code(required)
