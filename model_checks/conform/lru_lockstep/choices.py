"""Where the spec lets a correct implementation choose: each choice is a spec action, the
alternatives of one step are actions with the same arguments, and a lockstep run matches the
implementation's step to whichever of them it agrees with (`driver.Lockstep.apply`).

The choices: on a rejection after P0's update (D2), P0 keeps its shadow update
(`P0HandleRejected`) or undoes it, dropping what the attempt recorded
(`P0HandleRejectedUndo`); under size skew (D9), a receiver that resolves references first
(V3, V4) serves a reference that misses the cache as a miss (`P1Receive`) or from an earlier
payload of its own message (`P1ReceiveOwnPayload`). The spec enables each, so every property
is decided over all of them.
"""

from __future__ import annotations

from spec import Action, Config, State, is_enabled
from spec import transitions as t

NAMES: dict[type[Action], str] = {
    t.P0HandleRejected: "keeps its shadow update on a rejection (D2)",
    t.P0HandleRejectedUndo: "undoes its shadow update on a rejection (D2)",
    t.P1Receive: "reports a reference its own message's payload carries as a miss when it "
                 "could not cache that payload (D9)",
    t.P1ReceiveOwnPayload: "serves a reference from its own message's payload when it could "
                           "not cache that payload (D9)",
}
"""Each choice's action class, and what an implementation making it does."""

_GROUPS: tuple[tuple[type[Action], ...], ...] = (
    (t.P0HandleRejected, t.P0HandleRejectedUndo),
    (t.P1Receive, t.P1ReceiveOwnPayload),
)

def alternatives(action: Action) -> tuple[Action, ...]:
    """The other choices of `action`'s step, with its arguments (none if it is no choice)."""
    kind = type(action)
    group = next((g for g in _GROUPS if kind in g), ())
    return tuple(other(**action.arguments()) for other in group if other is not kind)


def choice_of(action: Action) -> str | None:
    """The choice `action` stands for (None: the step is no choice)."""
    return NAMES.get(type(action))


def enabled_alternatives(config: Config, action: Action, before: State) -> tuple[Action, ...]:
    """`alternatives(action)` whose guard holds in `before` (a receive's other choice only
    where its message carries a reference to its own payload, under D9)."""
    return tuple(other for other in alternatives(action) if is_enabled(config, before, other))
