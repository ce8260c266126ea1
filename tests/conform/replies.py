"""The miss semantics every test pair shares, in one place: an engine answers a message with
one miss reply naming what it missed (each identity as often as the message named it, in
the order met: `adapter.Missed` keeps each once) or with the model's inputs; a front end
reads what a delivery's reply names (`missed_of`) and drops each named identity from its
shadow (`invalidate`). A pair that changes how misses are listed or handled changes it here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from model_checks.conform import adapter as api


def answer(inputs: Sequence[api.ModelInput], missed: Iterable[str]) -> api.Delivered:
    """The engine's answer: the miss reply naming `missed` (per occurrence, as met) if it
    names any, else the model's `inputs`."""
    named = tuple(missed)
    return api.Missed(named) if named else api.Served(tuple(inputs))


def missed_of(delivered: api.Delivered) -> tuple[str, ...]:
    """The identities a delivery's miss reply names (none for a served one)."""
    return delivered.identities if isinstance(delivered, api.Missed) else ()


def invalidate(drop: Callable[[str], object], missed: Iterable[str]) -> None:
    """The front end's handling of a miss reply: drop each identity it names."""
    for identity in missed:
        drop(identity)
