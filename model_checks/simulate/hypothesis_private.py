"""Every use of Hypothesis's private API, in one module.

Hypothesis has no public setting for three things `simulate` needs: the order in which a
stateful machine's rules are offered (it sorts them by name and draws low indices more
often), swarm testing restricted to some rules, and shrinking bounded by a count rather than
by the clock (a verdict must not depend on the machine's speed). This module reaches into
`hypothesis.stateful` and `hypothesis.internal.conjecture.engine` for them; nothing else in
the project names a private attribute of Hypothesis.

Contract: the names in `REQUIRED` exist on the running Hypothesis. They do on
`TESTED_RELEASE`, the release `requirements-ci.txt` pins. Importing this module on a release
that lacks one raises `UnsupportedHypothesis`, naming every missing name and the tested
release, instead of failing later inside a search or, worse, searching differently in
silence (`tests/simulate/test_sim_hypothesis_private.py` plants a missing name).
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import re
from collections.abc import Iterator
from functools import lru_cache
from typing import ClassVar

import hypothesis
from hypothesis import strategies as st
from hypothesis.internal.conjecture import engine
from hypothesis.stateful import Rule, RuleBasedStateMachine, RuleStrategy

TESTED_RELEASE = "6.170.17"
"""The Hypothesis release these names were read from (pinned in requirements-ci.txt)."""

REQUIRED: tuple[tuple[str, str], ...] = (
    ("hypothesis.stateful", "RuleStrategy._setup_for"),
    ("hypothesis.stateful", "RuleStrategy._rule_is_enabled"),
    ("hypothesis.stateful", "RuleStrategy.is_valid"),
    ("hypothesis.stateful", "RuleStrategy.self._feature_flags"),
    ("hypothesis.stateful", "RuleBasedStateMachine.self._rules_strategy"),
    ("hypothesis.internal.conjecture.engine", "MAX_SHRINKS"),
    ("hypothesis.internal.conjecture.engine", "MAX_SHRINKING_SECONDS"),
)
"""(module, name) of each private name used: `Class.attribute` an attribute of a class,
`Class.self.attribute` an instance attribute its source assigns, else a module constant."""


class UnsupportedHypothesis(ImportError):
    """The running Hypothesis lacks a private name this module needs."""


def _present(module_name: str, name: str) -> bool:
    module = importlib.import_module(module_name)
    owner_name, _, attribute = name.partition(".")
    owner = getattr(module, owner_name, None)
    if owner is None or not attribute:
        return owner is not None
    if attribute.startswith("self."):
        assigned = re.compile(re.escape(attribute) + r"\s*(:[^=\n]*)?=(?!=)")
        return assigned.search(inspect.getsource(owner)) is not None
    return hasattr(owner, attribute)


def missing(required: tuple[tuple[str, str], ...] = REQUIRED) -> list[str]:
    """The names of `required` the running Hypothesis lacks, as `module:name`."""
    return [f"{module}:{name}" for module, name in required if not _present(module, name)]


def check(required: tuple[tuple[str, str], ...] = REQUIRED) -> None:
    """Raise `UnsupportedHypothesis` if any name of `required` is missing."""
    gone = missing(required)
    if gone:
        raise UnsupportedHypothesis(
            f"Hypothesis {hypothesis.__version__} lacks {', '.join(gone)}, which "
            f"model_checks/simulate/hypothesis_private.py uses; this project is tested with "
            f"hypothesis=={TESTED_RELEASE} (requirements-ci.txt): install that release"
        )


check()


class OrderedRules(RuleStrategy):
    """Hypothesis's rule strategy with the rules offered in `priority` order, and swarm
    testing (rules turned off for a whole example) only on the rules `swarmed` accepts.
    Subclasses set `priority` and may override `swarmed`."""

    priority: ClassVar[tuple[str, ...]] = ()

    def swarmed(self, name: str) -> bool:
        """Whether swarm testing may turn the rule `name` off for an example."""
        return True

    def _rule_is_enabled(self, r: Rule) -> bool:
        if not self.is_valid(r):  # Hypothesis's order: the precondition first
            return False
        name = r.function.__name__
        if not self.swarmed(name):
            return True
        assert self._feature_flags is not None
        return self._feature_flags.is_enabled(name)

    @classmethod
    @lru_cache
    def _setup_for(
        cls, machine_type: type[RuleBasedStateMachine]
    ) -> tuple[list[Rule], frozenset[str], st.SearchStrategy[Rule]]:
        rules, names, _ = RuleStrategy._setup_for(machine_type)
        rank = {name: index for index, name in enumerate(cls.priority)}
        ordered = sorted(rules, key=lambda r: rank.get(r.function.__name__, len(rank)))
        return ordered, names, st.sampled_from(ordered)


def use_rules(machine: RuleBasedStateMachine, strategy: RuleStrategy) -> None:
    """Make `machine` draw its rules from `strategy` (set in its `__init__`)."""
    machine._rules_strategy = strategy


NO_CLOCK = 2**62
"""Hypothesis's shrinking time limit while a count bounds it: never reached."""


@contextlib.contextmanager
def shrink_bound(max_shrinks: int) -> Iterator[None]:
    """Bound Hypothesis's shrinking by a count, never by the clock. Hypothesis stops
    shrinking after `engine.MAX_SHRINKS` successful shrinks (500) or after
    `engine.MAX_SHRINKING_SECONDS` (300 s), module constants with no setting: this sets the
    count to `max_shrinks` and lifts the time limit, so that a slow or busy machine shrinks
    exactly as far as a fast one (the shrinker's own stall limit, counted in calls, ends a
    shrink that stops making progress). With a small count a counterexample may be longer
    than minimal: its length is an upper bound."""
    saved = engine.MAX_SHRINKS, engine.MAX_SHRINKING_SECONDS
    engine.MAX_SHRINKS, engine.MAX_SHRINKING_SECONDS = max_shrinks, NO_CLOCK
    try:
        yield
    finally:
        engine.MAX_SHRINKS, engine.MAX_SHRINKING_SECONDS = saved
