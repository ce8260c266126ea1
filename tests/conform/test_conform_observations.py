"""What a lockstep step compares beyond the caches: the identities a rejection names and the
processor calls, each with a mutant that only they catch; sizes that vary in every
environment's generated runs, so that a P0 counting items instead of bytes is caught with
no drift at all; and the independent set `observed_mutants`, killed by conformance
alone."""

from __future__ import annotations

import pytest

from model_checks.conform.lru_lockstep import Disagreement, raised, replay
from model_checks.conform.lru_lockstep.cases import configurations
from model_checks.conform.lru_lockstep.run import ConformRun, conform
from model_checks.conform.profiles import PROFILES
from model_checks.conform.reference_adapter import factory
from model_checks.scenarios.base import item, submit, uuid_only
from model_checks.scenarios.catalog import configured, round_trip
from spec import V2, V3, Content, ItemSize
from spec.transitions import P0Process, P0UpdateItem
from tests.conform import ordered_pair
from tests.conform.observed_mutants import by_name

_LOST = (
    *round_trip(0, item("a"), item("b")),
    submit(uuid_only("a"), uuid_only("b")), P0Process(1),
    *round_trip(2, item("c")),
    P0UpdateItem(1),
)
"""a and b probed as hits, sent UUID-only, evicted by a two-byte c before the update."""


def _config() -> object:
    return configured("D6", sizes=(ItemSize(Content("c"), 2, 2),))(V3)


def test_a_rejection_naming_fewer_identities_is_caught() -> None:
    config = _config()
    raised(replay(config, factory(), _LOST))  # the reference: rejected naming a and b
    with pytest.raises(Disagreement) as found:
        raised(replay(config, by_name("p0-late-miss-pre-check-dropped").adapter, _LOST))
    assert found.value.caught_by == "rejection of request 1"
    assert (found.value.spec_side, found.value.impl_side) == (("a", "b"), ("a",))


def test_processor_calls_before_a_rejection_are_caught() -> None:
    outcome = conform(by_name("p0-late-miss-pre-check-dropped").adapter, PROFILES["ci"])
    assert outcome.findings
    assert outcome.findings[0].disagreement.caught_by == "processor calls"


def test_every_generated_configuration_has_items_of_several_sizes() -> None:
    for label, config in configurations(V2, wide=True):
        if config.budget < 2:
            continue  # one byte: every item that fits is one byte
        sizes = {config.shadow_bytes(Content(i)) for i in config.identities}
        assert len(sizes) > 1, label


def test_a_front_end_evicting_by_item_count_is_caught_with_no_drift() -> None:
    outcome = conform(ordered_pair.factory_sender_evicting_by_count(), PROFILES["ci"],
                      ConformRun(environment=frozenset()))
    assert outcome.findings and outcome.findings[0].where == "V2 generated none"
    assert conform(ordered_pair.factory(), PROFILES["ci"],
                   ConformRun(environment=frozenset())).conforms


def test_the_observed_set_is_new_and_killed_by_conformance_alone() -> None:
    from model_checks.mutant_run.reference_mutants import reference_mutants
    from tests.conform.client_mutants import CLIENT_MUTANTS
    from tests.conform.observed_mutants import OBSERVED_MUTANTS
    from tests.conform.serving_mutants import SERVING_MUTANTS

    names = [m.name for m in OBSERVED_MUTANTS]
    assert len(names) >= 20 and len(set(names)) == len(names)
    others = {m.name for m in (*reference_mutants(), *SERVING_MUTANTS, *CLIENT_MUTANTS)}
    assert not set(names) & others
    survivors = [m.name for m in OBSERVED_MUTANTS
                 if not conform(m.adapter, PROFILES["ci"]).findings]
    assert len(survivors) <= 0.05 * len(names), survivors
