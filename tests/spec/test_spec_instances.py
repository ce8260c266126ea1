"""The instance builder's rules (`spec.instances`), each on a small family: identities grown
and contents sized only where their need holds, items per request by the family's rule, a
cut that never widens, and a family naming no need of `Needs` rejected."""

from __future__ import annotations

import pytest

from spec import V1, Content, ItemSize, environment
from spec.instances import Cut, Family, Grown, Items, Sized, realise

SMALL = Family(
    identities=("a",), budget=2, max_requests=2, max_in_flight=2, max_retries=1, max_items=2,
    grown=(Grown("x", "extra_identity"),),
    sizes=(Sized(Content("a"), 1, 2, need="skewed_sizes", unless="oversized"),
           Sized(Content("a", 1), 2, 2), Sized(Content("x"), 3, 3)),
)


def test_with_no_drift_the_family_is_its_base() -> None:
    instance = realise(SMALL, frozenset())
    assert (instance.identities, instance.sizes, instance.versions) == (("a",), (), 1)
    assert (instance.front_ends, instance.engines, instance.max_items) == (1, 1, 2)


def test_each_need_grows_only_what_exists_with_it() -> None:
    assert realise(SMALL, environment("D8")).identities == ("a", "x")
    assert realise(SMALL, environment("D8")).sizes == (ItemSize(Content("x"), 3, 3),)
    assert realise(SMALL, environment("D9")).sizes == (ItemSize(Content("a"), 1, 2),)
    assert realise(SMALL, environment("D9", "D11")).sizes == ()
    assert realise(SMALL, environment("D7")).sizes == (ItemSize(Content("a", 1), 2, 2),)
    assert realise(SMALL, environment("D5")).front_ends == 2
    routed = realise(SMALL, environment("D5"), routed=True)
    assert (routed.front_ends, routed.engines) == (1, 2)


@pytest.mark.parametrize(("rule", "items"), [(Items.GROWN, 3), (Items.NEEDED, 2),
                                             (Items.FIXED, 2)])
def test_items_per_request_follow_the_rule(rule: Items, items: int) -> None:
    family = Family(("a",), 2, 2, 2, 1, 2, items=rule)
    assert realise(family, environment("D8")).max_items == items
    assert realise(family, frozenset()).max_items == (1 if rule is Items.NEEDED else 2)


def test_a_cut_never_widens_and_sets_retries() -> None:
    instance = realise(SMALL, environment("D8"))
    assert instance.cut(Cut(identities=9, max_requests=9, max_items=9)) == instance
    cut = instance.cut(Cut(identities=1, max_requests=1, retries=5))
    assert (cut.identities, cut.sizes, cut.max_requests, cut.max_retries) == (("a",), (), 1, 5)
    with pytest.raises(ValueError, match="cut: max_requests must be at least 1"):
        Cut(max_requests=0)


def test_a_family_naming_no_need_is_rejected() -> None:
    """Known-bad: a misspelt need would otherwise never hold, silently."""
    with pytest.raises(ValueError, match="unknown need 'skewed'"):
        Grown("x", "skewed")
    with pytest.raises(ValueError, match="unknown need 'versions'"):
        Sized(Content("a"), 1, 1, need="versions")


def test_the_family_config_is_the_realised_instance_with_a_variant() -> None:
    drift = environment("D7")
    assert SMALL.config(V1, drift) == realise(SMALL, drift).config(V1, drift)
