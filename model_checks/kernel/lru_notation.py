"""The LRU design's trace notation: how every page, `replay` and conformance failure writes
its traces (per design by nature, as its Z3 encoding is: its states and actions in words).

`NOTATION` is its declaration for the one step table (`model_checks.kernel.render`) and
`LEGEND` its only description; everything that prints one of its states, actions or wire
items calls a function of this module, so a trace reads the same wherever it is shown. The
grammar:

- content: `a` (identity a, content version 0), `a@1` (version 1 under the same identity, D7);
  a client item sent as its identity only (no media) is `a?`.
- processing: `p3` is the 4th run of P0's processor; `processings: p0=a p1=b p2=a@1` under a
  step table says which content each processed.
- cache entry: `a/2:p0#0` (identity a, 2 bytes, holding processing 0; `#0` its tag, where the
  variant tags entries); `ghost(a)` an identity in the order with no entry; a cache is
  `[oldest ... newest]`; several front ends' shadows are separated by ` | `.
- wire item: `a=p0` a payload of processing 0, `a->p0` a reference trusting the placeholders
  of processing 0 (tags as above); a message is `r0(a=p0 b->p1)`, `fe1:` in front when
  front end 1 sent it, `>e1` after it when the router sent it to engine 1; a reply is
  `r0:ok` or `r0:miss a,b`; engines' receivers are separated by ` | ` like shadows.
- what P1 did: `served a:t0/p1` (tensor of processing 0 with the placeholders of processing 1:
  a stale pairing when their contents differ), `missed a,b`, or `FAULT p0-assert`.

Where only contents are observable (an implementation under conformance has no processing
ids), a content takes the place of the processing: `a/2:a@1`, `a=a@1`, `served a:a@1/a`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from model_checks.kernel import render
from spec import lru
from spec.state import ClientItem, Message, Reply, State, WireItem
from spec.trace import Trace
from spec.transitions import Action

LEGEND = (
    "`a` is identity a (its content version 0), `a@1` version 1 of a's content (identity "
    "reuse, D7), `a?` an item the client sent as its identity only; `p3` is processing 3 (one "
    "run of P0's processor; the `processings:` line says which content each processed). A "
    "cache entry is `a/2:p0` (identity a, 2 bytes, processing 0; `#0` follows where the variant "
    "tags entries), `ghost(a)` an identity in the LRU order without an entry; a cache is "
    "`[oldest ... newest]`, front ends' shadows separated by `|`. A wire item is `a=p0` (payload "
    "of processing 0) or `a->p0` (reference trusting the placeholders of processing 0); a "
    "message is `r0(a=p0 b->p1)` (`fe1:` in front: sent by front end 1; `>e1` after it: routed "
    "to engine 1, whose receiver follows engine 0's after `|`); a reply `r0:ok` or "
    "`r0:miss a,b`. `served a:t0/p1` is what P1 handed to the model: the tensor of processing "
    "0 with the placeholders of processing 1. Where only contents are observable "
    "(conformance), a content stands for the processing: `a/2:a@1`, `served a:a@1/a`."
)
"""The legend of the notation, in one place: pages quote it, `replay` prints it."""

HEADERS = (*render.STEP, "shadow", "P1", "to P1", "to P0", "P1 did")
"""The columns of a step table, on pages and in `replay` alike."""


# -- primitives: plain values in, notation out (conformance uses these directly) -------------


def content(identity: str, version: int = 0) -> str:
    """`a` or `a@1`."""
    return f"{identity}@{version}" if version else identity


def processing(pid: int) -> str:
    return f"p{pid}"


def _tagged(text: str, tag: object | None) -> str:
    return text if tag is None else f"{text}#{tag}"


def entry_text(identity: str, size: int, holds: str, tag: object | None = None) -> str:
    """`a/2:p0#0`: `holds` is a processing (`p0`) or, where only contents are observable, a
    content (`a@1`)."""
    return _tagged(f"{identity}/{size}:{holds}", tag)


def ghost_text(identity: str) -> str:
    return f"ghost({identity})"


def cache_text(entries: Iterable[str]) -> str:
    return "[" + " ".join(entries) + "]"


def wire_text(identity: str, payload: str | None, placeholders: str, tag: object | None = None
              ) -> str:
    """`a=p0` (payload), `a->p0` (reference); a payload whose placeholders come from another
    processing than its data is `a=t0/p1`."""
    if payload is None:
        return _tagged(f"{identity}->{placeholders}", tag)
    if payload == placeholders:
        return _tagged(f"{identity}={payload}", tag)
    return _tagged(f"{identity}=t{payload.removeprefix('p')}/{placeholders}", tag)


def message_text(rid: int, front_end: int, items: Iterable[str]) -> str:
    """`r0(a=p0 b->p1)`, with `fe1:` in front for front end 1."""
    prefix = f"fe{front_end}:" if front_end else ""
    return f"{prefix}r{rid}(" + " ".join(items) + ")"


def reply_text(rid: int, missed: Sequence[str]) -> str:
    return f"r{rid}:" + ("ok" if not missed else "miss " + ",".join(missed))


def served_text(identity: str, tensor: str, placeholders: str) -> str:
    """One served item, `a:t0/p1`; with contents: `a:a@1/a`."""
    if tensor.startswith("p"):
        tensor = "t" + tensor.removeprefix("p")
    return f"{identity}:{tensor}/{placeholders}"


# -- spec values ------------------------------------------------------------------------------


def entry(slot: lru.Slot) -> str:
    if isinstance(slot, lru.Ghost):
        return ghost_text(slot.identity)
    return entry_text(slot.identity, slot.size, processing(slot.processing), slot.tag)


def cache(slots: lru.Lru) -> str:
    return cache_text(entry(s) for s in slots)


def wire_item(item: WireItem) -> str:
    payload = None if item.data is None else processing(item.data)
    return wire_text(item.identity, payload, processing(item.placeholders), item.tag)


def message(m: Message) -> str:
    routed = f">e{m.engine}" if m.engine else ""
    return message_text(m.rid, m.front_end, (wire_item(i) for i in m.items)) + routed


def reply(r: Reply) -> str:
    return reply_text(r.rid, r.missed)


def client_item(item: ClientItem) -> str:
    return content(item.identity, item.version) + ("" if item.has_data else "?")


def action(a: Action) -> str:
    """`label(arg=value, ...)`, client items as `[a b@1 c?]`; the router's engine argument
    only where it is not engine 0 (a single-engine trace reads as before the router)."""
    parts = []
    for name, value in a.arguments().items():
        if name == "engine" and value == 0:
            continue
        if name == "items" and isinstance(value, tuple):
            parts.append("[" + " ".join(client_item(i) for i in value) + "]")
        else:
            parts.append(f"{name}={value}")
    return f"{a.label}({', '.join(parts)})"


def columns(state: State) -> dict[str, str]:
    """The state as named text columns (HEADERS after `#` and `action`)."""
    delivered = ""
    if state.last_delivery is not None:
        d = state.last_delivery
        if d.missed:
            delivered = "missed " + ",".join(d.missed)
        else:
            delivered = "served " + " ".join(
                served_text(s.identity, processing(s.tensor), processing(s.placeholders))
                for s in d.served
            )
    if state.fault is not None:
        delivered = f"FAULT {state.fault.kind.value}"
    to_p1 = " ".join(message(m) for m in state.to_engine)
    if state.reset_pending:
        to_p1 = (to_p1 + " " if to_p1 else "") + "(reset pending)"
    return {
        "shadow": " | ".join(cache(s) for s in state.shadows),
        "P1": " | ".join(cache(r) for r in state.receivers()),
        "to P1": to_p1,
        "to P0": " ".join(reply(r) for r in state.to_front_end),
        "P1 did": delivered,
    }


def processings(state: State) -> str:
    """`processings: p0=a p1=a@1` (empty when nothing was processed)."""
    if not state.processings:
        return ""
    return "processings: " + " ".join(
        f"{processing(pid)}={content(p.identity, p.version)}"
        for pid, p in enumerate(state.processings)
    )


class LruNotation:
    """The LRU design's `render.Notation`."""

    legend = LEGEND
    headers = HEADERS

    def action(self, a: Action) -> str:
        return action(a)

    def columns(self, state: State) -> tuple[str, ...]:
        return tuple(columns(state).values())

    def footer(self, final: State) -> str:
        return processings(final)


NOTATION = LruNotation()
"""The LRU design's notation, as the one step table reads it."""


def step_rows(trace: Trace, fair_from: int | None = None) -> list[tuple[str, ...]]:
    """One row per step (HEADERS); a step the fair scheduler took is marked `(fair)`."""
    return render.step_rows(NOTATION, trace, fair_from)


def step_text(trace: Trace, fair_from: int | None = None) -> str:
    """The step table as plain text, then the processings line (what `replay` prints)."""
    return render.step_text(NOTATION, trace, fair_from)
