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

Exit codes: 0 answered (or no paired cache to answer for); 2 usage error (one line on
stderr: bad flags, an unreadable serve line or --config file, an unknown cache type, an
unsupported vLLM release); 5 the deployment's paired cache is a design the project does not
model, so no answer is given (no cache type of the supported releases is such a design).
"""

from __future__ import annotations

import argparse
import textwrap
from dataclasses import replace

from model_checks.adapters import vllm_release
from model_checks.doctor import design_answer
from model_checks.doctor.answer import LATTICE_PAGE, Answer, answer, instance_text
from model_checks.doctor.facts import (
    SOURCES,
    Deployment,
    ServeLineError,
    environment,
    from_serve_line,
    statuses,
)
from model_checks.kernel.cells import environment_text
from model_checks.kernel.exits import EXIT_OK, UsageError
from spec import DRIFT_IDS, VARIANT_NAMES, Drift

WIDTH = 100
EXIT_NOT_MODELLED = 5
"""0: answered; 5: the deployment's paired cache is a design the project does not model."""

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
    if deployment.pairing() == "none":
        why = ("--mm-processor-cache-gb is 0: no processor cache on either side (the engine's "
               "encoder cache still keys its outputs by identity: a reused uuid can still get "
               "another image's output or an error there; docs/vllm.md, \"On a real server\")")
    else:  # "processor_only"
        why = (f"{deployment.api_servers} API server(s), data parallel "
               f"{deployment.data_parallel}{' (external LB)' if deployment.external_lb else ''}"
               f": vLLM {version} uses MultiModalProcessorOnlyCache there (each front end "
               f"keeps its own tensors, nothing is paired with the engine: D5 is avoided, "
               f"the IPC saving is lost; {SOURCES['D5'].reference})")
    return _wrap(f"no paired cache here: {why}; no drift source of the pairing applies",
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
    return _wrap(f"doctor: vLLM {version} ({chosen}) with {vllm_release.CACHE_OPTION} "
                 f"{cache_type}{said}", "")


def _not_modelled(deployment: Deployment, version: str) -> list[str]:
    """Why no answer is given for a paired cache whose design the project does not model."""
    cache_type = deployment.cache_type
    lru = vllm_release.CACHE_TYPES[0]
    name, classes = vllm_release.DESIGNS[cache_type]
    return [
        *_wrap(f"not modelled: this deployment uses {name} ({classes}), which the project "
               f"does not model yet; none of the project's answers, which are for "
               f"{vllm_release.DESIGNS[lru][0]} ({VARIANT_NAMES[0]}-{VARIANT_NAMES[-1]}, drift "
               f"sources {DRIFT_IDS[0]}-{DRIFT_IDS[-1]}), apply to it, so none is given", ""),
        *_wrap(f"what is known of it (vLLM {version}'s source): "
               f"{vllm_release.KNOWN.get(cache_type, 'its classes only')}", ""),
        *_wrap(f"for the project's answers, run {vllm_release.CACHE_OPTION} {lru} (vLLM's "
               f"default), which vLLM {version} implements as "
               f"{vllm_release.implements(version, lru)} (exit {EXIT_NOT_MODELLED}: no answer "
               "for a design not modelled)", ""),
    ]


def exit_code(deployment: Deployment, version: str) -> int:
    """`EXIT_NOT_MODELLED` when vLLM builds a paired cache of a design the project does not
    model, else `EXIT_OK`."""
    kind = deployment.pairing()
    modelled = kind not in vllm_release.CACHE_TYPES or vllm_release.implements(version, kind)
    return EXIT_OK if modelled else EXIT_NOT_MODELLED


def report(deployment: Deployment, version: str, chosen: str) -> list[str]:
    """The doctor's answer, as lines of at most 100 columns: the lattice's answers only for
    a paired cache whose design implements a variant."""
    lines = _header(deployment, version, chosen)
    kind = deployment.pairing()
    if kind not in vllm_release.CACHE_TYPES:
        return lines + _unpaired(deployment, version)
    variant = vllm_release.implements(version, kind)
    if variant is None:
        return lines + _not_modelled(deployment, version)
    design = vllm_release.DESIGN_OF[kind]
    if design != "lru":
        return lines + design_answer.lines(deployment, design, variant)
    return lines + _answered(deployment, variant)


def _answered(deployment: Deployment, variant: str) -> list[str]:
    """Drift sources, the lattice's answer for `variant` under them, remedies, counters."""
    env = environment(deployment)
    lines = _sources(deployment)
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
    try:
        deployment = deployment_of(args)
        version, chosen = _version(args.vllm_version)
    except (ServeLineError, ValueError, vllm_release.UnsupportedVllm) as error:
        raise UsageError(str(error)) from None
    print("\n".join(report(deployment, version, chosen)))
    return exit_code(deployment, version)
