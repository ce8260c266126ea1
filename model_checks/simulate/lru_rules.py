"""The LRU design's rules for the one Hypothesis machine (`model_checks.simulate.machine`),
and `rules_for`, the table of every design's.

Rules: one per action type the configuration allows (`spec.transitions.ACTION_TYPES`), in
`PRIORITY` order. A pick rule takes one of the spec's enabled actions of its type; `submit`
draws the request itself (identities, contents, media attached or not, front end), filtered
by the spec's guard. The spec's enabled actions are listed with only the first `Submit`
(`enabled`: the submit rule draws its own request). A fault is absorbing: the machine halts.

Events (`is_event`): drift actions and the synchronised clear, at most `default_events` per
example, the only rules focused swarm testing turns off; whether requests may carry UUID-only
items is drawn once per example (`UUID_ONLY`) when focused.

Checks: after every step, every checked state property of the registry (S1-S4, H1) on the new
state, and the checked trace properties (L1-L4) over the trace so far: L1-L3 are bounded-
response monitors, L4 judges quiescent states. At teardown the run is driven to quiescence
under the fairness assumption (`spec.fairness`) and the whole trace checked again, so L3 and
L4 are judged on the recovery path.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from model_checks.kernel.judged import Judged, Table
from model_checks.simulate.machine import DesignRules, GenericRules, Rule
from spec import Config, Drift, Kind, State, Trace, by_id, initial, registry
from spec.designs.base import Design
from spec.designs.lru_design import LRU
from spec.fairness import FairnessBoundExceeded, drive_to_quiescence
from spec.state import ClientItem
from spec.trace import Step
from spec.transitions import ACTION_TYPES, Action, ClearBoth, P1Reset, Submit
from spec.transitions.client import request_fits_unless_d8

PICK = st.integers(min_value=0, max_value=7)
"""Which enabled action of a type to take, modulo how many there are."""

PRIORITY: tuple[str, ...] = (
    "p1_receive",
    "p0_receive_reply",
    "retry",
    "p0_handle",
    "p0_update_item",
    "submit",
    "p0_process",
    "p0_handle_rejected",
    "p0_handle_rejected_undo",
    "p1_receive_own_payload",
    "p1_clear",
    "p1_restart",
    "p1_reset",
    "p0_clear_for_reset",
    "p0_clear",
    "p0_restart",
    "clear_both",
    "halted",
)
"""The order rules are offered in. Hypothesis sorts rules by name and draws low indices more
often; in name order the always-enabled `clear_both` came first and fired five times as often
as `p1_clear`, and messages were rarely delivered. Protocol steps first, then drift events."""

COMPLETIONS: frozenset[type[Action]] = frozenset({P1Reset})
"""Drift steps that finish an event an example already took (D4's reset reaching P1 after
P0's clear): owed, not chosen, so neither budgeted nor swarmed. Budgeting one stranded it
whenever the clear was the example's last event: enabled in every later step, never fired."""


def is_event(action_type: type[Action]) -> bool:
    """Drift events (a clear, a restart, a rejection, a split P0 update) and the protocol's
    synchronised clear: the steps an example may take only `events` times. The completion of
    an event taken (`COMPLETIONS`) is none."""
    if action_type in COMPLETIONS:
        return False
    return action_type.drift is not None or action_type is ClearBoth


SWARMED = frozenset(t.label for t in ACTION_TYPES if is_event(t))
"""The rules of events: the ones Hypothesis's swarm testing may turn off for an example."""

UUID_ONLY = "UUID-only items in this example"
"""The key of the example-wide choice whether requests may carry UUID-only items."""


def _items_strategy(config: Config, focused: bool) -> st.SearchStrategy[tuple[ClientItem, ...]]:
    @st.composite
    def items(draw: st.DrawFn) -> tuple[ClientItem, ...]:
        identities = draw(
            st.lists(
                st.sampled_from(config.identities),
                min_size=1,
                max_size=config.max_items,
                unique=not config.duplicates,  # with duplicates, one identity may recur
            )
        )
        # Swarm testing of a request feature: UUID-only items appear in an example or not at
        # all (drawn once per example; shrinks towards none). A UUID-only item P0 does not
        # hold ends its request as a client error at once, spending one of the instance's
        # few requests: breaks that need every request (V2's S1 under D7+D8 takes all 4)
        # were out of reach while every example spent some that way.
        uuid_only = draw(st.shared(st.booleans(), key=UUID_ONLY)) if focused else True
        drawn = []
        for identity in identities:
            version = draw(st.integers(0, config.versions - 1))
            # UUID-only one time in four where allowed (it shrinks towards media attached).
            has_data = not uuid_only or draw(st.integers(0, 3)) != 3
            drawn.append(ClientItem(identity, version, has_data))
        return tuple(drawn)

    # Without D8 the spec's guard also asks that the items fit the budget together.
    return items().filter(lambda drawn: request_fits_unless_d8(config, drawn))


def _request(config: Config, focused: bool) -> Mapping[str, st.SearchStrategy[Any]]:
    """A new request's arguments (the spec's `Submit`): its items and its front end."""
    return {"items": _items_strategy(config, focused),
            "front_end": st.integers(0, config.front_ends - 1)}


def _available(action_type: type[Action], config: Config) -> bool:
    return action_type.requires is None or config.enables(action_type.requires)


def default_events(config: Config) -> int:
    """R+1 events, enough for an adversary to defeat R retries; 2(R+1) under D4, where each P1
    wipe takes two events (the clear and the reset). More events only add noise: the always-
    enabled clears crowd out the protocol's steps."""
    return (config.max_retries + 1) * (2 if config.enables(Drift.D4) else 1)


@dataclass(frozen=True)
class LruRules:
    """The LRU design's declaration for the one machine (module doc)."""

    design: Design = LRU
    priority: tuple[str, ...] = PRIORITY
    event_rules: frozenset[str] = SWARMED

    def rules(self, config: Config) -> tuple[Rule, ...]:
        return tuple(Rule(t.label, drawn=_request, build=Submit) if t is Submit
                     else Rule(t.label, pick=PICK)
                     for t in ACTION_TYPES if _available(t, config))

    def rule_of(self, action: Action) -> str:
        return action.label

    def enabled(self, config: Config, state: State) -> list[Action]:
        """The spec's enabled actions, except that of `Submit` only the first is listed: the
        submit rule draws its own request, and listing hundreds of request shapes every step
        would dominate the run time."""
        if state.fault is not None:
            return []
        found: list[Action] = []
        for action_type in ACTION_TYPES:
            if not _available(action_type, config):
                continue
            for action in action_type.enabled_instances(config, state):
                found.append(action)
                if action_type is Submit:
                    break
        return found

    def halted(self, config: Config, state: State) -> bool:
        return state.fault is not None

    def events(self, config: Config) -> int:
        return default_events(config)

    def record(self, action: Action, state: State) -> Step:
        return Step(action, state)

    def trace(self, config: Config, steps: Sequence[Step]) -> Trace:
        return Trace(config, initial(config), tuple(steps))

    def actions(self, trace: Trace) -> tuple[Action, ...]:
        return tuple(s.action for s in trace.steps)

    def settle(self, config: Config, state: State
               ) -> tuple[Sequence[tuple[Action, State]], tuple[str, str] | None]:
        """The fair scheduler's steps to quiescence, or L4 broken where it cannot get there
        within its bound."""
        try:
            return drive_to_quiescence(config, state), None
        except FairnessBoundExceeded as error:
            return (), ("L4", str(error))

    def broken(self, config: Config, trace: Trace, checked: Sequence[str], final: bool
               ) -> tuple[str, int, str] | None:
        state = trace.final
        number = len(trace.steps)
        for prop_id in checked:
            prop = by_id(prop_id)
            if prop.kind is Kind.LIVENESS:
                if prop_id == "L4" and not final and state.fault is None:
                    # L4 judges quiescent traces only, and what it judges there (a fault, a
                    # request ended as a miss with no retry left) is final: judging it at
                    # teardown, after the fair tail, finds the same violations, without a full
                    # `enabled` at every step.
                    continue
                violation = prop.check_trace(trace)
                if violation is not None:
                    return prop_id, violation.step, violation.reason
            elif not final:
                reasons = prop.check_state(config, state)
                if reasons:
                    return prop_id, number, "; ".join(reasons)
            else:
                found = prop.check_trace(trace)  # the fair tail's states too
                if found is not None:
                    return prop_id, found.step, found.reason
        return None


LRU_RULES = LruRules()


def rules_for(design: Design) -> DesignRules:
    """The one table of each design's rules: the LRU design's own, every other design's
    from its interface (`GenericRules`)."""
    return LRU_RULES if design.name == LRU.name else GenericRules(design)


def judged() -> Table:
    """What the Hypothesis machines judge on the LRU design: every property of the registry,
    a state property on every state after every step and on the fair tail's states at
    teardown, a trace property over the trace so far and over the whole trace at teardown
    (`LruRules.broken`)."""
    return {
        prop.id: Judged("every state after every step, and the fair tail at teardown")
        if prop.state_check is not None else
        Judged("the trace so far after every step, and the whole trace at teardown")
        for prop in registry()
    }
