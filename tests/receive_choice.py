"""The instance and the planted wrong choice shared by the tests of the choice on a receive
under size skew (D9, `P1ReceiveOwnPayload`) that a checker reading `enabled` must decide over
both (`tests/explore`, `tests/simulate`; lockstep's deferred judgement in `tests/conform`
runs on the instance too). Importable from any test folder because
`tests/conftest.py` puts this folder on the path."""

from __future__ import annotations

import pytest

from spec import V3, Config, Content, ItemSize, environment
from spec.state import Message
from spec.transitions import engine as receive


def skewed_config(*drift: str, versions: int = 1, max_requests: int,
                  max_in_flight: int = 2) -> Config:
    """V3 under D9 (and `drift`), with a request allowed to name one identity twice: every
    content of a and b is 1 byte at P0 and 3 at P1, over P1's 2-byte budget, so P1 caches
    neither and a reference after its own payload misses (the choice is enabled)."""
    sizes = tuple(ItemSize(Content(i, v), 1, 3) for i in "ab" for v in range(versions))
    return Config(identities=("a", "b"), budget=2, variant=V3, versions=versions,
                  environment=environment(*drift, "D9"), duplicates=True,
                  max_requests=max_requests, max_in_flight=max_in_flight, max_items=2,
                  sizes=sizes)


def any_payload(config: Config, message: Message) -> tuple[tuple[int, int], ...]:
    """Planted: every reference paired with the message's first payload, any identity (a
    choice the spec does not allow: a reference served another identity's tensor)."""
    items = message.items
    payload = next((i for i, w in enumerate(items) if w.data is not None), None)
    if payload is None:
        return ()
    return tuple((payload, i) for i, w in enumerate(items) if w.data is None)


def plant_wrong_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the spec's receive pair references with payloads by `any_payload` for the rest of
    the test: a checker that explores the choice must then find the stale pairing (S1)."""
    monkeypatch.setattr(receive, "own_payload_pairs", any_payload)
