"""The shape every implementation mutant is built in, shared by every mutant set of the
reference (the registry's history bugs and slips, and the sets only tests run, in
tests/conform/).

A mutant is one subclass of a reference class (reference/ is never edited), wired into the
reference adapter by the wrappers below (through the seams of `reference.extension`): an LRU
class into a cache (`receiver_with_lru`, `sender_with_lru`), a cache class into its side
(`engine_with`, `front_end_with`), and the sides into an adapter checked against the spec of
the variant the mutant mutates (`impl_mutant`). `PARTS` maps each part of the reference a
registry entry names to the wrapper that puts a class there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from model_checks.conform.reference_adapter import ReferenceAdapter
from model_checks.mutation.registry import Part
from reference import Engine, FrontEnd, ReceiverCache, SenderCache
from reference.extension import use_lru, use_receiver, use_sender
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
            use_lru(self, lru_class(budget))

    return Receiver


def sender_with_lru(lru_class: type[ByteLru[Any, Any]]) -> type[SenderCache]:
    """The reference sender cache (P0) over `lru_class` instead of its LRU."""

    class Sender(SenderCache):
        def __init__(self, budget: int, **kwargs: Any) -> None:
            super().__init__(budget, **kwargs)
            use_lru(self, lru_class(budget))

    return Sender


def engine_with(receiver_class: type[ReceiverCache]) -> Callable[..., Engine]:
    """The reference engine over `receiver_class` instead of its receiver cache."""

    class MutantEngine(Engine):
        def __init__(self, budget: int, **kwargs: Any) -> None:
            super().__init__(budget, **kwargs)
            use_receiver(self, receiver_class(budget, **kwargs))

    return MutantEngine


def front_end_with(sender_class: type[SenderCache]) -> Callable[..., FrontEnd]:
    """The reference front end over `sender_class` instead of its sender cache."""

    class MutantFrontEnd(FrontEnd):
        def __init__(self, budget: int, processor: Any, **kwargs: Any) -> None:
            super().__init__(budget, processor, **kwargs)
            use_sender(self, sender_class(budget, **kwargs))

    return MutantFrontEnd


def mutant_named(mutants: Iterable[ImplMutant], name: str) -> ImplMutant:
    """The mutant of `mutants` called `name`; a `KeyError` lists the names there are."""
    known = tuple(mutants)
    for mutant in known:
        if mutant.name == name:
            return mutant
    names = ", ".join(m.name for m in known)
    raise KeyError(f"unknown mutant {name!r}, expected one of {names}")


def sender_mutant(name: str, base: str, story: str, sender: type[SenderCache]) -> ImplMutant:
    """A mutant of P0's sender cache: the reference front end over `sender`."""
    return impl_mutant(name, base, story, front_end=front_end_with(sender))


def receiver_mutant(name: str, base: str, story: str,
                    receiver: type[ReceiverCache]) -> ImplMutant:
    """A mutant of P1's receiver cache: the reference engine over `receiver`."""
    return impl_mutant(name, base, story, engine=engine_with(receiver))


def sender_lru_mutant(name: str, base: str, story: str,
                      lru: type[ByteLru[Any, Any]]) -> ImplMutant:
    """A mutant of P0's LRU: the reference sender cache over `lru`, in its front end."""
    return sender_mutant(name, base, story, sender_with_lru(lru))


def receiver_lru_mutant(name: str, base: str, story: str,
                        lru: type[ByteLru[Any, Any]]) -> ImplMutant:
    """A mutant of P1's LRU: the reference receiver cache over `lru`, in its engine."""
    return receiver_mutant(name, base, story, receiver_with_lru(lru))


def adapter_factories(
    module: str, prefix: str, mutants: Iterable[ImplMutant]
) -> Callable[[str], Callable[[], ReferenceAdapter]]:
    """A mutant module's `__getattr__`: attribute `<prefix><name>` (the mutant's name with
    `-` spelt `_`) is a factory of that mutant's adapter, for `--adapter module:factory`;
    any other name, or an unknown mutant (its error lists the names there are), is an
    `AttributeError`."""
    known = tuple(mutants)

    def factory(name: str) -> Callable[[], ReferenceAdapter]:
        if name.startswith(prefix):
            try:
                mutant = mutant_named(known, name[len(prefix):].replace("_", "-"))
            except KeyError as error:
                raise AttributeError(f"module {module!r} has no attribute {name!r}: "
                                     f"{error.args[0]}") from None
            return lambda: mutant.adapter
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    return factory


def _front_end(name: str, base: str, story: str, cls: Callable[..., FrontEnd]) -> ImplMutant:
    return impl_mutant(name, base, story, front_end=cls)


def _engine(name: str, base: str, story: str, cls: Callable[..., Engine]) -> ImplMutant:
    return impl_mutant(name, base, story, engine=cls)


def _adapter(name: str, base: str, story: str, cls: type[ReferenceAdapter]) -> ImplMutant:
    return impl_mutant(name, base, story, adapter_class=cls)


PARTS: dict[Part, Callable[[str, str, str, Any], ImplMutant]] = {
    Part.SENDER: sender_mutant,
    Part.RECEIVER: receiver_mutant,
    Part.SENDER_LRU: sender_lru_mutant,
    Part.RECEIVER_LRU: receiver_lru_mutant,
    Part.FRONT_END: _front_end,
    Part.ENGINE: _engine,
    Part.ADAPTER: _adapter,
}
"""Part of the reference -> the wrapper building a mutant (name, base, story, class) whose
class replaces that part."""
