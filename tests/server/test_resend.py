"""The driver's client resend on a miss (`drive(..., resend_on_miss=True)`, the patched
server's runs): a 5xx whose log reports the engine's retryable miss is `missed` and the
request is resent once with every item's data, judged as one more step; any other 5xx stays
a break, and without the option a miss is a break as on the release (no server: a stand-in
log and scripted responses)."""

from __future__ import annotations

import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from model_checks.server import drive as driver
from model_checks.server.drive import Answer, Outcome, Response, key
from model_checks.server.launch import Server
from model_checks.server.plan import Item, Send

MISS_LOG = ("(EngineCore pid=1) WARNING 12-05 09:00:00 [core.py:1] Multi-modal cache miss for "
            "request chatcmpl-1 (mm_hashes=['a']): P0/P1 cache drift; returning a retryable "
            "response so the items are resent with data.")
FRESH = Answer(("x",), (-1.0,))
UUID_ONLY = (Item("a", 1, 1, False),)


@dataclass
class StandIn(Server):
    logs: list[str] | None = None

    def alive(self) -> bool:
        return True

    def new_log(self) -> str:
        return self.logs.pop(0) if self.logs else ""


def _drive(monkeypatch: pytest.MonkeyPatch, responses: list[Response], logs: list[str],
           resend: bool) -> tuple[list[Any], list[dict[str, Any]]]:
    sent: list[dict[str, Any]] = []

    def post(server: Server, path: str, body: dict[str, Any] | None) -> Response:
        if path != "/v1/chat/completions":
            return Response(200, None, "")
        assert body is not None
        sent.append(body)
        return responses.pop(0)

    monkeypatch.setattr(driver, "post", post)
    plan: Any = types.SimpleNamespace(steps=[Send(3, 1, UUID_ONLY, False)])
    server = StandIn([], Path("unused.log"), logs=logs)
    return driver.drive(plan, server, {key(UUID_ONLY): FRESH}, True, resend), sent


def _has_data(body: dict[str, Any]) -> bool:
    return all("image_url" in part and part["image_url"] is not None
               for part in body["messages"][0]["content"] if part["type"] == "image_url")


def test_a_miss_is_resent_with_data_and_judged(monkeypatch: pytest.MonkeyPatch) -> None:
    steps, sent = _drive(monkeypatch, [Response(500, None, "x"), Response(200, FRESH, "")],
                         [MISS_LOG, ""], resend=True)
    assert [s.outcome for s in steps] == [Outcome.MISSED, Outcome.ANSWERED]
    assert "resent with data" in steps[1].action
    assert not _has_data(sent[0]) and _has_data(sent[1])
    assert not any(s.outcome.breaks for s in steps)


def test_a_wrong_answer_after_the_resend_is_a_break(monkeypatch: pytest.MonkeyPatch) -> None:
    steps, _ = _drive(monkeypatch, [Response(500, None, "x"),
                                    Response(200, Answer(("y",), (-1.0,)), "")],
                      [MISS_LOG, ""], resend=True)
    assert [s.outcome for s in steps] == [Outcome.MISSED, Outcome.WRONG_ANSWER]


def test_another_server_error_is_not_resent(monkeypatch: pytest.MonkeyPatch) -> None:
    steps, sent = _drive(monkeypatch, [Response(500, None, "Expected a cached item")],
                         ["(APIServer pid=1) ERROR x [y.py:1] AssertionError: Expected"],
                         resend=True)
    assert [s.outcome for s in steps] == [Outcome.SERVER_ERROR] and len(sent) == 1


def test_without_the_option_a_miss_is_a_break(monkeypatch: pytest.MonkeyPatch) -> None:
    steps, sent = _drive(monkeypatch, [Response(500, None, "x")], [MISS_LOG], resend=False)
    assert [s.outcome for s in steps] == [Outcome.SERVER_ERROR] and len(sent) == 1
