"""The driver's judgement of one response (no server: a stand-in that reports a log and
whether the process lives)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from model_checks.server.drive import Answer, Outcome, Response, StepResult, _judge, key
from model_checks.server.launch import Server, last_error, strip_prefix
from model_checks.server.plan import Item, Send


@dataclass
class StandIn(Server):
    text: str = ""
    living: bool = True

    def alive(self) -> bool:
        return self.living

    def new_log(self) -> str:
        return self.text


ITEMS = (Item("a", 1, 1, True),)
FRESH = Answer(("x", "y"), (-5.1, -5.2))
EXPECTED = {key(ITEMS): FRESH}


def judged(response: Response, *, rejected: bool = False, log: str = "",
           living: bool = True) -> Outcome:
    server = StandIn([], Path("unused.log"), text=log, living=living)
    return _judge(Send(1, 0, ITEMS, rejected), response, server, EXPECTED).outcome


@pytest.mark.parametrize(("response", "outcome"), [
    (Response(200, FRESH, ""), Outcome.ANSWERED),
    (Response(200, Answer(("x", "y"), (-5.1, -5.2004)), ""), Outcome.ANSWERED),
    (Response(200, Answer(("x", "z"), (-5.1, -5.2)), ""), Outcome.WRONG_ANSWER),
    (Response(200, Answer(("x", "y"), (-5.1, -5.3)), ""), Outcome.WRONG_ANSWER),
    (Response(400, None, "Cache miss"), Outcome.CLIENT_ERROR),
    (Response(500, None, "Expected a cached item"), Outcome.SERVER_ERROR),
    (Response(0, None, "no answer"), Outcome.ENGINE_DEAD),
])
def test_each_response_is_judged(response: Response, outcome: Outcome) -> None:
    assert judged(response) is outcome


def test_breaks_are_the_server_error_the_engine_death_and_the_wrong_answer() -> None:
    assert {o for o in Outcome if o.breaks} == {
        Outcome.SERVER_ERROR, Outcome.ENGINE_DEAD, Outcome.WRONG_ANSWER}


def test_the_log_or_a_dead_process_makes_an_engine_death() -> None:
    died = "(APIServer pid=1) ERROR 12-05 09:00:00 [x.py:1] vllm.EngineDeadError"
    assert judged(Response(500, None, "x"), log=died) is Outcome.ENGINE_DEAD
    assert judged(Response(500, None, "x"), living=False) is Outcome.ENGINE_DEAD


def test_an_answered_rejection_is_the_drivers_miss_not_a_break() -> None:
    outcome = judged(Response(200, FRESH, ""), rejected=True)
    assert outcome is Outcome.NOT_REJECTED and not outcome.breaks


def test_log_lines_lose_vllms_prefix_and_the_last_error_is_found() -> None:
    line = ("(EngineCore pid=7) ERROR 12-05 09:03:07 [core.py:1] ValueError: Attempted to "
            "assign 10 = 10 multimodal tokens to 12 placeholders")
    assert strip_prefix(line).startswith("ValueError: Attempted")
    assert last_error("ok\n" + line + "\nINFO done") == strip_prefix(line)


def _held(response: Response, seen: bool) -> Outcome:
    import threading

    from model_checks.server.drive import Held, _release
    held = Held()
    thread = threading.Thread(target=lambda: None)
    thread.start()
    held.threads.append((Send(1, 0, ITEMS, False, held=True), thread, [response]))
    held.seen = seen
    server = StandIn([], Path("unused.log"))
    (result,) = _release(held, server, EXPECTED)
    assert result.action.endswith("(held in the engine's queue)")
    return result.outcome


def test_a_held_request_not_seen_waiting_did_not_reproduce_the_witness() -> None:
    assert _held(Response(200, FRESH, ""), seen=True) is Outcome.ANSWERED
    assert _held(Response(200, FRESH, ""), seen=False) is Outcome.NOT_HELD
    assert not Outcome.NOT_HELD.breaks


def test_a_break_of_a_held_request_stands_even_when_it_was_not_seen_waiting() -> None:
    assert _held(Response(0, None, "no answer"), seen=False) is Outcome.ENGINE_DEAD


def test_the_queue_counts_are_read_from_the_metrics() -> None:
    from model_checks.server.drive import parse_queue_counts
    text = ('# HELP vllm:num_requests_waiting x\n'
            'vllm:num_requests_running{engine="0",model_name="m"} 1.0\n'
            'vllm:num_requests_waiting{engine="0",model_name="m"} 2.0\n'
            'vllm:num_requests_waiting_by_reason{reason="x"} 7.0\n')
    assert parse_queue_counts(text) == (1.0, 2.0)


G1, G0, Z1 = Item("g", 1, 2, True), Item("g", 0, 1, True), Item("z", 1, 2, True)
FIRST_G = Answer(("g", "1"), (-1.0, -1.0))
"""A fresh server's answer for z.v1 beside g.v1: the content first sent under g."""
NEW_G = Answer(("g", "0"), (-2.0, -2.0))
"""A fresh server's answer for z.v1 beside g.v0: the content the request sends under g."""


def judged_reuse(answer: Answer, stale_content: bool = True) -> Outcome:
    """The judgement of request (z.v1, g.v0) after g was first sent as g.v1."""
    return judged_reuse_step(answer, stale_content).outcome


def judged_reuse_step(answer: Answer, stale_content: bool = True) -> StepResult:
    """The step judged by `judged_reuse`."""
    from model_checks.server.drive import remember, stale_keys
    first: dict[str, tuple[str, int, int]] = {}
    remember(first, (G1,))
    remember(first, (Z1, G0))
    stale = stale_keys((Z1, G0), first) if stale_content else []
    expected = {key((Z1, G0)): NEW_G, key((Z1, G1)): FIRST_G}
    server = StandIn([], Path("unused.log"))
    return _judge(Send(6, 1, (Z1, G0), False), Response(200, answer, ""), server, expected,
                  stale)


def test_an_answer_for_the_content_first_sent_under_a_reused_uuid_is_stale_content() -> None:
    assert judged_reuse(NEW_G) is Outcome.ANSWERED
    assert judged_reuse(FIRST_G) is Outcome.STALE_CONTENT
    assert "with g.v1 for g.v0: the content first sent" in judged_reuse_step(FIRST_G).message
    assert not Outcome.STALE_CONTENT.breaks


def test_an_answer_for_neither_content_is_still_a_wrong_answer() -> None:
    planted = Answer(("neither", "content"), (-3.0, -3.0))
    assert judged_reuse(planted) is Outcome.WRONG_ANSWER
    assert Outcome.WRONG_ANSWER.breaks


def test_without_the_stale_content_judgement_the_first_content_is_a_wrong_answer() -> None:
    assert judged_reuse(FIRST_G, stale_content=False) is Outcome.WRONG_ANSWER


def test_the_stale_keys_replace_each_subset_of_the_reused_uuids_by_their_first_content() -> None:
    from model_checks.server.drive import remember, stale_keys
    h1, h0, z0 = Item("h", 1, 1, True), Item("h", 0, 2, True), Item("z", 0, 1, True)
    first: dict[str, tuple[str, int, int]] = {}
    for items in ((G1, h1), (Z1, G0), (h0, z0)):
        remember(first, items)
    assert stale_keys((h0, z0), first) == [
        (("h", 1, 1), ("z", 0, 1)), (("h", 0, 2), ("z", 1, 2)), (("h", 1, 1), ("z", 1, 2))]
    assert stale_keys((G1, h1), first) == []
    uuid_only = Item("h", 0, 2, False)
    assert stale_keys((uuid_only,), first) == [(("h", 1, 1),)]
    assert stale_keys((Item("new", 0, 1, False),), first) == []


def test_one_uuid_twice_with_two_contents_may_be_answered_for_the_first() -> None:
    from model_checks.server.drive import remember, stale_keys
    twice = (Item("a", 0, 1, True), Item("a", 1, 2, True))
    first: dict[str, tuple[str, int, int]] = {}
    remember(first, twice)
    assert stale_keys(twice, first) == [(("a", 0, 1), ("a", 0, 1))]


def test_the_reference_keys_hold_the_stale_keys_only_when_asked() -> None:
    from model_checks.server.drive import plan_keys
    from model_checks.server.plan import Plan
    steps = (Send(1, 0, (G1,), False), Send(2, 1, (Z1, G0), False),
             Send(3, 2, (Item("g", 2, 1, True),), True))
    reused = Plan("w", "V2", (), "S1", 4, 10, steps)
    assert plan_keys(reused, stale_content=False) == [key((G1,)), key((Z1, G0))]
    assert plan_keys(reused, stale_content=True) == [key((G1,)), key((Z1, G0)), key((Z1, G1))]


def test_a_held_request_answered_for_the_first_content_is_stale_content() -> None:
    import threading

    from model_checks.server.drive import Held, _release
    held, thread = Held(), threading.Thread(target=lambda: None)
    thread.start()
    step = Send(6, 1, (Z1, G0), False, held=True)
    held.threads.append((step, thread, [Response(200, FIRST_G, "")]))
    expected = {key((Z1, G0)): NEW_G, key((Z1, G1)): FIRST_G}
    (result,) = _release(held, StandIn([], Path("unused.log")), expected,
                         {step: [key((Z1, G1))]})
    assert result.outcome is Outcome.STALE_CONTENT
