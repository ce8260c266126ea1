"""Plain-text renderings of spec values, shared by tables, docs and counterexamples."""

from __future__ import annotations

from spec import lru
from spec.state import ClientItem, Message, Reply, State, WireItem
from spec.transitions import Action

NOTATION = (
    "a cache entry is `a/1:p0` (identity a, 1 byte, processing 0; `#0` follows where the "
    "variant tags entries); caches are listed oldest first inside `[...]`, one per front end; "
    "a wire item is `a=p0` (payload of processing 0) or `a->p0` (reference trusting the "
    "placeholders of processing 0); `served a:t0/p0` is what P1 handed to the model (tensor "
    "of processing 0, placeholders of processing 0); in actions, `a@1` is version 1 of a's "
    "content and `a?` an item sent as its identity only."
)


def entry(slot: lru.Slot) -> str:
    if isinstance(slot, lru.Ghost):
        return f"ghost({slot.identity})"
    tag = "" if slot.tag is None else f"#{slot.tag}"
    return f"{slot.identity}/{slot.size}:p{slot.processing}{tag}"


def cache(slots: lru.Lru) -> str:
    return "[" + " ".join(entry(s) for s in slots) + "]"


def wire_item(item: WireItem) -> str:
    tag = "" if item.tag is None else f"#{item.tag}"
    if item.data is None:
        return f"{item.identity}->p{item.placeholders}{tag}"
    return f"{item.identity}=p{item.data}{tag}"


def message(m: Message) -> str:
    return f"r{m.rid}(" + " ".join(wire_item(i) for i in m.items) + ")"


def reply(r: Reply) -> str:
    return f"r{r.rid}:" + ("ok" if not r.missed else "miss " + ",".join(r.missed))


def action(a: Action) -> str:
    """`label(arg=value, ...)` with client items shortened to `a`, `a@1` (version 1), `a?`
    (UUID only)."""
    parts = []
    for name, value in a.arguments().items():
        if name == "items" and isinstance(value, tuple):
            parts.append("[" + " ".join(_client_item(i) for i in value) + "]")
        else:
            parts.append(f"{name}={value}")
    return f"{a.label}({', '.join(parts)})"


def _client_item(item: ClientItem) -> str:
    version = f"@{item.version}" if item.version else ""
    return f"{item.identity}{version}{'' if item.has_data else '?'}"


def columns(state: State) -> dict[str, str]:
    """The state as named text columns: shadows, P1, both channels, and what happened."""
    shadows = " | ".join(cache(s) for s in state.shadows)
    delivered = ""
    if state.last_delivery is not None:
        d = state.last_delivery
        if d.missed:
            delivered = "missed " + ",".join(d.missed)
        else:
            delivered = "served " + " ".join(
                f"{s.identity}:t{s.tensor}/p{s.placeholders}" for s in d.served
            )
    if state.fault is not None:
        delivered = f"FAULT {state.fault.kind.value}"
    return {
        "shadow": shadows,
        "P1": cache(state.receiver),
        "to P1": " ".join(message(m) for m in state.to_engine),
        "to P0": " ".join(reply(r) for r in state.to_front_end),
        "P1 did": delivered,
    }
