"""Mutants of the reference's client retry loop (`reference.retry`), each one change, that
show only when the loop is driven whole, across every retry of a request
(`adapter.ClientLoop`): asked for one resend at a time, each builds the right first resend.

`loop_mutant_<name>` factories (`--adapter tests.conform.client_mutants:...`) build
the reference adapter with that loop, variant V3.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from model_checks.conform import adapter as api
from model_checks.conform.reference_adapter import ReferenceAdapter, ReferenceFrontEnd
from model_checks.mutant_run.factory import (
    ImplMutant,
    adapter_factories,
    impl_mutant,
    mutant_named,
)
from reference import MissingMediaError, MultiModalCacheMissError, Request
from reference.client import next_attempt


def retry_repeating_first_attempt(send: Callable[[Request], Any], request: Request, *,
                                  max_retries: int = 3,
                                  media: Mapping[str, object] | None = None) -> Any:
    """`reference.retry` with one change: from the second resend on, the loop resends the
    request as first sent (the same attempt again), not the request with its media."""
    attempt = request
    for resend in range(max_retries):
        try:
            return send(attempt)
        except (MultiModalCacheMissError, MissingMediaError) as error:
            attempt = next_attempt(request, attempt, error, media) if resend == 0 else request
    return send(attempt)


def retry_at_most_once(send: Callable[[Request], Any], request: Request, *,
                       max_retries: int = 3,
                       media: Mapping[str, object] | None = None) -> Any:
    """`reference.retry` with one change: it resends at most once, whatever `max_retries`."""
    attempt = request
    for _ in range(min(max_retries, 1)):  # the change: `range(max_retries)`
        try:
            return send(attempt)
        except (MultiModalCacheMissError, MissingMediaError) as error:
            attempt = next_attempt(request, attempt, error, media)
    return send(attempt)


def _with_loop(loop: Callable[..., Any]) -> type[ReferenceAdapter]:
    class _LoopAdapter(ReferenceAdapter):
        """The reference adapter whose front ends' client retries through `loop`."""

        def front_end(self, setup: api.Setup, index: int) -> ReferenceFrontEnd:
            return ReferenceFrontEnd(setup, index, make=self.front_end_class, resend=loop)

    return _LoopAdapter


CLIENT_MUTANTS: tuple[ImplMutant, ...] = (
    impl_mutant("retry-repeats-first-attempt", "V3",
                "the second resend repeats the first attempt",
                adapter_class=_with_loop(retry_repeating_first_attempt)),
    impl_mutant("retry-at-most-once", "V3",
                "the retry loop resends at most once",
                adapter_class=_with_loop(retry_at_most_once)),
)


def by_name(name: str) -> ImplMutant:
    return mutant_named(CLIENT_MUTANTS, name)


__getattr__ = adapter_factories(__name__, "loop_mutant_", CLIENT_MUTANTS)
"""`loop_mutant_<name>` factories, one per mutant, for `--adapter module:factory`."""
