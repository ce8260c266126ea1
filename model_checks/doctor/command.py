"""`python -m model_checks doctor`: a vLLM deployment's paired-cache risks, from its facts.

Given flags (``--client-uuids yes``, ``--sleep-mode``, ``--api-servers N``, ...) or a
``--serve 'vllm serve ...'`` line (its settings override the matching flags), it prints: the
cache vLLM builds there, each drift source's status (on, assumed, off) and how it arises,
the project's answer per safety property for the variant the release implements (with the
instance the answer is for), what removes each risk, and the counters to alert on.

Exit codes: 0 answered; 2 usage error (one line on stderr: bad flags, an unreadable serve
line, an unsupported vLLM release).
"""

from __future__ import annotations

import argparse
import textwrap
from dataclasses import replace

from model_checks.adapters import vllm_release
from model_checks.cells import environment_text
from model_checks.doctor.answer import LATTICE_PAGE, Answer, answer, instance_text
from model_checks.doctor.facts import (
    SOURCES,
    Deployment,
    ServeLineError,
    environment,
    from_serve_line,
    statuses,
)
from spec import Drift

WIDTH = 100

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
                                         "default: assumed)")}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    for flag, (dest, text) in _CHOICES.items():
        parser.add_argument(flag, dest=dest, type=_yes_no, metavar="yes|no", help=text)
    parser.add_argument("--sleep-mode", action="store_true", default=None,
                        help="sleep mode, /pause with cache clear or reset_mm_cache in use "
                             "(D4)")
    parser.add_argument("--api-servers", type=int, metavar="N", help="api_server_count")
    parser.add_argument("--data-parallel", type=int, metavar="N", help="data_parallel_size")
    parser.add_argument("--data-parallel-external-lb", dest="external_lb",
                        action="store_true", default=None)
    parser.add_argument("--serve", metavar="LINE", help="a 'vllm serve ...' command line")
    parser.add_argument("--vllm-version", metavar="X.Y.Z",
                        help="the release to answer for (default: the installed one)")


def deployment_of(args: argparse.Namespace) -> Deployment:
    """The deployment the arguments state (`ServeLineError` or `ValueError`: one line)."""
    given = {dest: getattr(args, dest) for dest, _ in _CHOICES.values()}
    for dest in ("sleep_mode", "api_servers", "data_parallel", "external_lb"):
        given[dest] = getattr(args, dest)
    for dest in ("api_servers", "data_parallel"):
        if given[dest] is not None and given[dest] < 1:
            raise ValueError(f"got --{dest.replace('_', '-')} {given[dest]}, expected >= 1")
    base = replace(Deployment(), **{k: v for k, v in given.items() if v is not None})
    return from_serve_line(args.serve, base) if args.serve else base


def _version(requested: str | None) -> tuple[str, str]:
    """(release, how it was chosen); `UnsupportedVllm` for a release not supported."""
    if requested is not None:
        return vllm_release.require_supported(requested), "as asked"
    installed = vllm_release.installed_version()
    if installed is not None:
        return vllm_release.require_supported(installed), "installed here"
    newest = list(vllm_release.IMPLEMENTS)[-1]
    return newest, f"vLLM is not installed here; answering for {newest}"


def _wrap(text: str, indent: str = "  ") -> list[str]:
    return textwrap.wrap(text, WIDTH, initial_indent=indent,
                         subsequent_indent=indent + "    ", break_on_hyphens=False)


def _sources(deployment: Deployment) -> list[str]:
    lines = _wrap("drift sources in this deployment (on: a fact switches it on; assumed: no "
                  "fact rules it out, so it stays in; off):", "")
    found = statuses(deployment)
    for drift, source in SOURCES.items():
        ref = f"; {source.reference}" if source.reference else ""
        lines += _wrap(f"{drift} {Drift(drift).title}: {found[drift].value} "
                       f"({source.arises}{ref})")
    return lines


def _answer_lines(result: Answer) -> list[str]:
    head = f"{result.property_id} {result.title}: "
    if not result.breaks:
        return _wrap(head + "no breaking environment known inside this deployment: "
                     + result.bound)
    named = ", ".join(environment_text(e) for e in result.breaks_under)
    trace = f"; shortest trace {result.trace}" if result.trace else ""
    return _wrap(head + f"BREAKS under {named}{trace}; {result.removal}")


def _unpaired(deployment: Deployment, version: str) -> list[str]:
    kind = deployment.pairing()
    if kind == "none":
        why = "--mm-processor-cache-gb is 0: no multimodal cache at all"
    elif kind == "processor_only":
        why = (f"{deployment.api_servers} API server(s), data parallel "
               f"{deployment.data_parallel}{' (external LB)' if deployment.external_lb else ''}"
               f": vLLM {version} uses MultiModalProcessorOnlyCache there (each front end "
               f"keeps its own tensors, nothing is paired with the engine: D5 is avoided, "
               f"the IPC saving is lost; {SOURCES['D5'].reference})")
    else:
        why = ("--mm-processor-cache-type shm: the shared-memory pair, another design that "
               "this doctor and the adapter do not judge")
    return _wrap(f"no paired cache here: {why}; no drift source of the pairing applies",
                 "")


def report(deployment: Deployment, version: str, chosen: str) -> list[str]:
    """The doctor's answer, as lines of at most 100 columns."""
    variant = vllm_release.variant_of(version)
    lines = _wrap(f"doctor: vLLM {version} ({chosen}) implements {variant} "
                  f"(model_checks/adapters/vllm_release.py; conform checks it)", "")
    if deployment.pairing() != "lru":
        return lines + _unpaired(deployment, version)
    env = environment(deployment)
    lines += _sources(deployment)
    lines += _wrap(f"the project's answer for {variant} under {environment_text(env)} "
                   f"({LATTICE_PAGE}; from {instance_text(variant)}):", "")
    for result in answer(variant, env):
        lines += _answer_lines(result)
    lines.append("what removes each risk:")
    for drift in env:
        lines += _wrap(f"{drift}: {SOURCES[drift].removes}")
    lines.append("counters to alert on:")
    for counter in COUNTERS:
        lines += _wrap(counter)
    return lines


def run(args: argparse.Namespace) -> int:
    from model_checks.cli import UsageError

    try:
        deployment = deployment_of(args)
        version, chosen = _version(args.vllm_version)
    except (ServeLineError, ValueError, vllm_release.UnsupportedVllm) as error:
        raise UsageError(str(error)) from None
    print("\n".join(report(deployment, version, chosen)))
    return 0
