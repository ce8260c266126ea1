"""A step's observations (`spec.observations`) against a second statement of each, on every
scenario of the catalog and every variant: a step sent a message exactly when the channel to
P1 grew by one, and that message is its last; P0 took a miss exactly when the step is P0
receiving a reply that lists identities. Both must be seen at least once (non-vacuity)."""

from __future__ import annotations

from model_checks.scenarios import SCENARIOS
from spec import VARIANTS
from spec.observations import miss_taken, sent_message
from spec.transitions import P0ReceiveReply


def test_the_observations_agree_with_the_channels_on_every_scenario() -> None:
    sent = taken = 0
    for scenario in SCENARIOS:
        for variant in VARIANTS:
            for _, before, action, after in scenario.run(variant).transitions():
                grew = len(after.to_engine) == len(before.to_engine) + 1
                message = sent_message(before, after)
                assert (message is not None) == grew, (scenario.name, variant.name, action)
                if message is not None:
                    assert message == after.to_engine[-1]
                    sent += 1
                reply = miss_taken(before, action)
                took = isinstance(action, P0ReceiveReply) and bool(before.to_front_end[0].missed)
                assert (reply is not None) == took, (scenario.name, variant.name, action)
                if reply is not None:
                    assert reply == before.to_front_end[0] and reply.missed
                    taken += 1
    assert sent and taken
