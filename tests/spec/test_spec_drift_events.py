"""The drift events module declares its own action classes (`DRIFT_EVENT_TYPES`, exported by
`__all__`), and `spec.ACTION_TYPES` is derived from it without changing the order in which
`enabled` lists actions (which fixes every trace): a class defined there but missing from the
tuple or the exports is named here."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from spec import ACTION_TYPES, Action, Drift
from spec.transitions import drift_events
from spec.transitions.base import describe

MODULE_FILE = "spec/transitions/drift_events.py"


def unlisted(namespace: Mapping[str, object], module: str,
             declared: Sequence[type[Action]], exported: Sequence[str]) -> list[str]:
    """What the module at `namespace` gets wrong: a public action class it defines that its
    tuple (`declared`) or its exports lack, or an entry of the tuple defined elsewhere."""
    defined = [v for name, v in namespace.items() if isinstance(v, type)
               and issubclass(v, Action) and v.__module__ == module
               and not name.startswith("_")]
    found = [f"{c.__name__}: defined in {MODULE_FILE} but not in DRIFT_EVENT_TYPES"
             for c in defined if c not in declared]
    found += [f"{c.__name__}: defined in {MODULE_FILE} but not in its __all__"
              for c in defined if c.__name__ not in exported]
    found += [f"{c.__name__}: in DRIFT_EVENT_TYPES but not defined in {MODULE_FILE}"
              for c in declared if c not in defined]
    return found


def test_spec_drift_events_lists_every_class_it_defines() -> None:
    assert unlisted(vars(drift_events), drift_events.__name__, drift_events.DRIFT_EVENT_TYPES,
                    drift_events.__all__) == []
    assert len(set(drift_events.DRIFT_EVENT_TYPES)) == len(drift_events.DRIFT_EVENT_TYPES)
    assert sorted(drift_events.__all__) == sorted(
        ["DRIFT_EVENT_TYPES", *(c.__name__ for c in drift_events.DRIFT_EVENT_TYPES)])


def test_spec_action_types_keep_their_order() -> None:
    """`enabled` lists actions in this order, and traces follow it: deriving the tuple must
    not reorder it."""
    assert [t.__name__ for t in ACTION_TYPES] == [
        "Submit", "P0Handle", "P0Process", "P0UpdateItem", "P0HandleRejected",
        "P0HandleRejectedUndo", "P1Receive", "P1ReceiveOwnPayload", "P0ReceiveReply", "Retry",
            "ClearBoth", "P0Clear",
        "P1Clear", "P0ClearForReset", "P1Reset", "P0Restart", "P1Restart"]
    assert ACTION_TYPES[-len(drift_events.DRIFT_EVENT_TYPES):] == drift_events.DRIFT_EVENT_TYPES


def test_spec_a_drift_event_left_out_of_the_tuple_is_named() -> None:
    """Known-bad input: a planted event class defined in the module but listed nowhere."""

    @dataclass(frozen=True, slots=True)
    class P1Nap(Action):
        """D3: a planted event."""

    describe(P1Nap, "p1_nap", drift=Drift.D3, requires=Drift.D3)
    P1Nap.__module__ = drift_events.__name__
    namespace = {**vars(drift_events), "P1Nap": P1Nap}
    assert unlisted(namespace, drift_events.__name__, drift_events.DRIFT_EVENT_TYPES,
                    drift_events.__all__) == [
        f"P1Nap: defined in {MODULE_FILE} but not in DRIFT_EVENT_TYPES",
        f"P1Nap: defined in {MODULE_FILE} but not in its __all__"]
    listed = (*drift_events.DRIFT_EVENT_TYPES, P1Nap)
    assert unlisted(namespace, drift_events.__name__, listed,
                    [*drift_events.__all__, "P1Nap"]) == []
    stray = (*drift_events.DRIFT_EVENT_TYPES, int)
    assert unlisted(vars(drift_events), drift_events.__name__, stray,  # type: ignore[arg-type]
                    drift_events.__all__) == [
        f"int: in DRIFT_EVENT_TYPES but not defined in {MODULE_FILE}"]
