"""The LRU design's lockstep observations in the one trace notation
(`model_checks.kernel.lru_notation`, docs/notation.md): how the binding's report of a disagreement
(`disagreement`) writes both sides, as another design's binding states its views'
differences (`design_lockstep.Binding.differences`).

The lockstep compares plain tuples (`views`); this module writes them as the notation writes
a state, where only contents are observable: a content stands for a processing (`a/2:a@1`,
`a=a@1`, `served a:a@1/a`), a tag is the spec's processing id it maps to (`#3`; `#?` for an
implementation tag the bijection never learnt), a stage and an outcome by their values.
Nothing here prints a Python repr.
"""

from __future__ import annotations

import enum

from model_checks.kernel import lru_notation
from spec import Content


def value_text(value: object) -> str:
    """A content as `a@1`, a garbled tensor as `garbled`, an enum by its value, a tuple as
    its parts; anything else by `str`."""
    if isinstance(value, Content):
        return lru_notation.content(value.identity, value.version)
    if isinstance(value, enum.Enum):
        return str(value.value)
    if isinstance(value, tuple) and value and value[0] == "garbled":
        return "garbled"
    if isinstance(value, tuple | list):
        return "(" + " ".join(value_text(v) for v in value) + ")"
    if value is None:
        return "none"
    return str(value)


def _tag(tag: object) -> object | None:
    if tag is None:
        return None
    if isinstance(tag, tuple) and tag and tag[0] == "unmapped":
        return "?"
    return tag


def _entries(value: object) -> str:
    slots = []
    for slot in value if isinstance(value, tuple) else ():
        if slot[0] == "ghost":
            slots.append(lru_notation.ghost_text(slot[1]))
        else:
            identity, size, content, tag = slot
            slots.append(lru_notation.entry_text(identity, size, value_text(content), _tag(tag)))
    return lru_notation.cache_text(slots)


def _channel(value: object) -> str:
    messages = []
    for rid, front_end, items in value if isinstance(value, tuple) else ():
        wire = [
            lru_notation.wire_text(identity, None if payload is None else value_text(payload),
                             value_text(placeholders), _tag(tag))
            + ("" if size is None else f"({size}B)")
            for identity, payload, size, placeholders, tag in items
        ]
        messages.append(lru_notation.message_text(rid, front_end, wire))
    return " ".join(messages) or "(empty)"


def _delivery(value: object) -> str:
    if value is None:
        return "nothing"
    if not isinstance(value, tuple):
        return value_text(value)
    if value[0] == "fault":
        return f"FAULT {value[1]}"
    rid, kind, detail = value
    if kind == "missed":
        return f"r{rid}: missed {','.join(detail)}"
    return f"r{rid}: served " + " ".join(
        lru_notation.served_text(identity, value_text(tensor), value_text(placeholders))
        for identity, tensor, placeholders in detail
    )


def _requests(value: object) -> str:
    return " ".join(
        f"r{rid}:{value_text(stage)}" + (f"/{value_text(outcome)}" if outcome else "")
        + (f"+{retries}" if retries else "")
        for rid, stage, outcome, retries in (value if isinstance(value, tuple) else ())
    ) or "(none)"


def _replies(value: object) -> str:
    return " ".join(lru_notation.reply_text(rid, missed) for rid, missed in (
        value if isinstance(value, tuple) else ())) or "(empty)"


def observation_text(label: str, value: object) -> str:
    """One compared observation (`label` as in `lockstep.views`) in the notation."""
    try:
        if label.startswith("shadow") or label == "receiver":
            return _entries(value)
        if label == "channel":
            return _channel(value)
        if label == "delivery":
            return _delivery(value)
        if label == "requests":
            return _requests(value)
        if label == "replies":
            return _replies(value)
    except (TypeError, ValueError):  # a shape this module does not know: plain values
        pass
    return value_text(value)
