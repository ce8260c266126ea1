"""The shape every implementation mutant is built in, shared by the three mutant sets
(`mutants`: the bugs of the system's history; `reference_mutants` and `serving_mutants`: the
independent single-change sets).

A mutant is one subclass of a reference class (reference/ is never edited), wired into the
reference adapter by the wrappers below: an LRU class into a cache (`receiver_with_lru`,
`sender_with_lru`), a cache class into its side (`engine_with`, `front_end_with`), and the
sides into an adapter checked against the spec of the variant the mutant mutates
(`impl_mutant`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from model_checks.conform.reference_adapter import ReferenceAdapter
from reference import Engine, FrontEnd, ReceiverCache, SenderCache
from reference.lru import ByteLru


@dataclass(frozen=True)
class ImplMutant:
    """name: stable id; base: the variant it mutates; story: the bug it mirrors."""

    name: str
    base: str
    story: str
    adapter: ReferenceAdapter


def impl_mutant(
    name: str,
    base: str,
    story: str,
    *,
    front_end: Callable[..., FrontEnd] = FrontEnd,
    engine: Callable[..., Engine] = Engine,
    adapter_class: type[ReferenceAdapter] = ReferenceAdapter,
) -> ImplMutant:
    """The mutant `name` of variant `base`: the reference adapter (or `adapter_class`) over
    these two sides, supporting `base` alone."""
    adapter = adapter_class(f"reference-{name}", front_end, engine, (base,))
    return ImplMutant(name, base, story, adapter)


def receiver_with_lru(lru_class: type[ByteLru[Any, Any]]) -> type[ReceiverCache]:
    """The reference receiver cache (P1) over `lru_class` instead of its LRU."""

    class Receiver(ReceiverCache):
        def __init__(self, budget: int, **kwargs: Any) -> None:
            super().__init__(budget, **kwargs)
            self._lru = lru_class(budget)

    return Receiver


def sender_with_lru(lru_class: type[ByteLru[Any, Any]]) -> type[SenderCache]:
    """The reference sender cache (P0) over `lru_class` instead of its LRU."""

    class Sender(SenderCache):
        def __init__(self, budget: int, **kwargs: Any) -> None:
            super().__init__(budget, **kwargs)
            self._lru = lru_class(budget)

    return Sender


def engine_with(receiver_class: type[ReceiverCache]) -> Callable[..., Engine]:
    """The reference engine over `receiver_class` instead of its receiver cache."""

    class MutantEngine(Engine):
        def __init__(self, budget: int, **kwargs: Any) -> None:
            super().__init__(budget, **kwargs)
            self._receiver = receiver_class(budget, **kwargs)

    return MutantEngine


def front_end_with(sender_class: type[SenderCache]) -> Callable[..., FrontEnd]:
    """The reference front end over `sender_class` instead of its sender cache."""

    class MutantFrontEnd(FrontEnd):
        def __init__(self, budget: int, processor: Any, **kwargs: Any) -> None:
            super().__init__(budget, processor, **kwargs)
            self._sender = sender_class(budget, **kwargs)

    return MutantFrontEnd


def mutant_named(mutants: Iterable[ImplMutant], name: str) -> ImplMutant:
    """The mutant of `mutants` called `name`; a `KeyError` lists the names there are."""
    known = tuple(mutants)
    for mutant in known:
        if mutant.name == name:
            return mutant
    names = ", ".join(m.name for m in known)
    raise KeyError(f"unknown mutant {name!r}, expected one of {names}")
