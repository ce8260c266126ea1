"""Configuration errors name the fix; drift-only configurations need their drift source."""

from __future__ import annotations

import math

import pytest

from spec import Config, Content, InvalidConfiguration, ItemSize, environment, variant_named


@pytest.mark.parametrize(
    ("fields", "hint"),
    [
        ({"budget": 0}, "budget must be a positive int"),
        ({"budget": -1}, "budget must be a positive int"),
        ({"budget": math.nan}, "budget must be a positive int"),
        ({"budget": math.inf}, "budget must be a positive int"),
        ({"budget": True}, "budget must be a positive int"),
        ({"identities": ()}, "give at least one identity"),
        ({"identities": ("a", "a")}, "list each identity once"),
        ({"versions": 2}, "enable D7"),
        ({"front_ends": 2}, "need D5 enabled"),
        ({"max_items": 0}, "max_items must be an int >= 1"),
        ({"sizes": (ItemSize(Content("a"), 1, 2),)}, "enable D9"),
        ({"sizes": (ItemSize(Content("a"), 3, 3),)}, "enable D11"),
        ({"sizes": (ItemSize(Content("z"), 1, 1),)}, "not one of the configuration's contents"),
        ({"sizes": (ItemSize(Content("a"), 0, 0),)}, "must be > 0"),
    ],
)
def test_bad_configuration_names_the_fix(fields: dict[str, object], hint: str) -> None:
    with pytest.raises(InvalidConfiguration, match=hint):
        Config(**fields)  # type: ignore[arg-type]


def test_drift_enables_the_matching_configuration() -> None:
    config = Config(
        environment=environment("D5", "D7", "D9", "D11"),
        front_ends=2,
        versions=2,
        sizes=(ItemSize(Content("a", 1), 1, 5),),
    )
    assert config.receiver_bytes(Content("a", 1)) == 5 and config.shadow_bytes(Content("a")) == 1


def test_size_skew_alone_lets_one_side_skip_what_the_other_caches() -> None:
    # D9 alone: c fits P0's accounting and exceeds the budget on P1's, so P0 caches it and P1
    # skips it; over the budget on both sides is D11's.
    skew = environment("D9")
    config = Config(environment=skew, sizes=(ItemSize(Content("c"), 1, 3),))
    assert config.fits_budget(Content("c")) and config.receiver_bytes(Content("c")) == 3
    with pytest.raises(InvalidConfiguration, match="enable D11"):
        Config(environment=skew, sizes=(ItemSize(Content("c"), 3, 3),))


def test_unknown_names_are_clear_errors() -> None:
    with pytest.raises(ValueError, match="got 'D12', expected ids among D1-D11"):
        environment("D12")
    with pytest.raises(ValueError, match="unknown variant 'V9'"):
        variant_named("V9")
