"""A pair that undoes its shadow update when a request is rejected after it (D2): the
reference's front end, which on `abandon` drops every identity the abandoned message
carried as a payload (what its update recorded). The spec allows it
(`P0HandleRejectedUndo`): conformance must accept it and say which choice it observed.
(`factory` is the entry point: ``--adapter tests.conform.undoing_pair:factory``.)"""

from __future__ import annotations

from dataclasses import dataclass, field

from model_checks.conform import adapter as api
from model_checks.conform.reference_adapter import ReferenceAdapter, ReferenceFrontEnd


@dataclass
class UndoingFrontEnd(ReferenceFrontEnd):
    """The reference front end that forgets what a rejected request recorded."""

    updated: dict[int, api.WireMessage] = field(default_factory=dict)

    def update(self, probed: object) -> api.WireMessage | api.ClientRejected | api.Fault:
        result = super().update(probed)
        if isinstance(result, api.WireMessage):
            self.updated[result.request_id] = result
        return result

    def abandon(self, request_id: int) -> None:
        message = self.updated.pop(request_id, None)
        super().abandon(request_id)
        if message is not None:
            recorded = [i.identity for i in message.items if i.payload is not None]
            self.front_end.sender.invalidate(recorded)


@dataclass
class UndoingAdapter(ReferenceAdapter):
    name: str = "reference, undoing its shadow on a rejection"

    def front_end(self, setup: api.Setup, index: int) -> ReferenceFrontEnd:
        return UndoingFrontEnd(setup, index, make=self.front_end_class)


def factory() -> UndoingAdapter:
    return UndoingAdapter()
