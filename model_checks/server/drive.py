"""Run a plan (`model_checks.server.plan`) on a fresh server and judge what the server did.

Judged from the responses and the server's log, per request:
- `answered`: 200 with the answer a fresh server gives for the same images (greedy tokens equal,
  per-token log-probabilities within `LOGPROB_TOLERANCE`);
- `wrong-answer`: 200 with another answer than a fresh server's for the images the client sent
  (a stale tensor paired, or the content of an earlier use of the identity): a break;
- `client-error`: a 4xx (a uuid the server does not hold, a prompt over `--max-model-len`);
- `server-error`: a 5xx: a break;
- `engine-dead`: no answer, or the log says the engine died: a break, and nothing after it runs;
- `not-rejected`: a request the witness rejects was answered (the run did not reproduce the
  witness there; not a break of the server's);
- `missed` (only when the client resends on a miss, as for the patched server): a 5xx whose
  log reports the engine's retryable multi-modal cache miss; the client then resends the
  request with every item's data, judged as one more step (not a break: the miss is how the
  patched caches refuse a reference they cannot pair).
- `stale-content` (only when asked, as for the patched server): 200 with not the fresh
  server's answer for the images sent, but its answer with some reused uuids' items replaced
  by the content first sent under that uuid on this server (`stale_keys`): the client reused
  a uuid for new content, which vLLM documents a uuid must not do (S4: the client's part).
  Shown, not a break: a stale pairing answers for neither content and stays `wrong-answer`.
- `not-held`: a request the witness holds in the engine's queue was not seen waiting there
  while the steps after it were driven (the run did not reproduce the witness; not a break).
A held request (`Send.held`) is sent without waiting for its answer while a long text-only
request occupies the engine's one sequence slot (`Held`); the driver sees it wait in the
engine's queue (`/metrics`, `vllm:num_requests_waiting`) before the next step, and at the
`Release` closes the long request's connection (the server aborts it) and judges it.
The reference answers come from a second fresh server whose processor cache is off
(`--mm-processor-cache-gb 0`) and whose items carry fresh uuids, so no cache can serve them.
Before every request not held the driver resets the engine's encoder cache
(`/reset_encoder_cache`, outside the modelled protocol): otherwise an encoder output kept
under a reused uuid would answer instead of the receiver cache the witness is about.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import threading
import time
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from model_checks.server.images import data_url
from model_checks.server.launch import Server, ServerFailed, error_lines, strip_prefix
from model_checks.server.plan import (
    HOLD_MODEL_LEN,
    PROMPT,
    Item,
    Plan,
    Release,
    Reset,
    Send,
    rejected_text,
)

MAX_TOKENS = 4
LOGPROB_TOLERANCE = 1e-3
REQUEST_TIMEOUT = 300.0
DEATH_MARKERS = ("EngineDeadError", "Engine core proc", "died unexpectedly", "EngineCore failed")
MISS_MARKER = "Multi-modal cache miss"
"""What the engine logs when it replies to a request with the retryable miss."""


class Outcome(StrEnum):
    ANSWERED = "answered"
    WRONG_ANSWER = "wrong-answer"
    CLIENT_ERROR = "client-error"
    SERVER_ERROR = "server-error"
    ENGINE_DEAD = "engine-dead"
    NOT_REJECTED = "not-rejected"
    NOT_HELD = "not-held"
    RESET = "reset"
    MISSED = "missed"
    STALE_CONTENT = "stale-content"

    @property
    def breaks(self) -> bool:
        return self in (Outcome.WRONG_ANSWER, Outcome.SERVER_ERROR, Outcome.ENGINE_DEAD)


@dataclass(frozen=True)
class Answer:
    """A chat completion's greedy tokens and their log-probabilities."""

    tokens: tuple[str, ...]
    logprobs: tuple[float, ...]

    def agrees(self, other: Answer) -> bool:
        return self.tokens == other.tokens and all(
            abs(a - b) <= LOGPROB_TOLERANCE for a, b in zip(self.logprobs, other.logprobs,
                                                             strict=True))


@dataclass(frozen=True)
class Response:
    status: int  # 0: no answer (connection refused or reset)
    answer: Answer | None
    message: str


@dataclass
class StepResult:
    """What the server did at one plan step."""

    step: int
    action: str
    outcome: Outcome
    status: int
    message: str
    log: list[str] = field(default_factory=list)


@dataclass
class Run:
    """A plan's run on one server."""

    plan: Plan
    flags: list[str]
    started_in: float
    steps: list[StepResult]
    encoder_cache_reset: bool = True

    @property
    def broke(self) -> bool:
        return any(step.outcome.breaks for step in self.steps)

    def as_json(self) -> dict[str, Any]:
        return {"witness": self.plan.witness, "design": self.plan.cache_type,
                "variant": self.plan.variant,
                "environment": list(self.plan.environment), "property": self.plan.checked_property,
                "flags": self.flags, "encoder_cache_reset": self.encoder_cache_reset,
                "broke": self.broke,
                "steps": [{**asdict(step), "outcome": step.outcome.value} for step in self.steps]}


def chat_body(items: tuple[Item, ...], text: str, uuids: tuple[str, ...] | None = None,
              ) -> dict[str, Any]:
    """The chat completion request: one image part per item (data URL and uuid, or the uuid
    alone), then the text; each item's uuid is its identity, or `uuids`'s entry at its
    position."""
    parts: list[dict[str, Any]] = []
    for n, item in enumerate(items):
        uuid = uuids[n] if uuids is not None else item.identity
        url = {"url": data_url(item.identity, item.version, item.units)} if item.has_data else None
        parts.append({"type": "image_url", "image_url": url, "uuid": uuid})
    parts.append({"type": "text", "text": text})
    return {"model": "tiny-llava", "messages": [{"role": "user", "content": parts}],
            "max_tokens": MAX_TOKENS, "temperature": 0, "logprobs": True}


def post(server: Server, path: str, body: dict[str, Any] | None) -> Response:
    data = json.dumps(body).encode() if body is not None else b""
    request = urllib.request.Request(server.url(path), data=data, method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=REQUEST_TIMEOUT) as answer:
            text = answer.read().decode(errors="replace")
            return Response(answer.status, _answer(text), "")
    except urllib.error.HTTPError as error:
        return Response(error.code, None, _message(error.read().decode(errors="replace")))
    except (urllib.error.URLError, OSError) as error:
        return Response(0, None, f"no answer: {getattr(error, 'reason', error)}")


def _answer(text: str) -> Answer | None:
    try:
        content = json.loads(text)["choices"][0]["logprobs"]["content"]
    except (ValueError, KeyError, IndexError, TypeError):
        return None
    return Answer(tuple(c["token"] for c in content), tuple(float(c["logprob"]) for c in content))


def _message(text: str) -> str:
    try:
        found = json.loads(text)
        message = found.get("error", {}).get("message") or found.get("message") or text
    except (ValueError, AttributeError):
        message = text
    return " ".join(str(message).split())[:300]


Content = tuple[str, int, int]
"""An item's content as the client means it: (identity, version, units)."""
Key = tuple[Content, ...]
"""A request's contents, in item order."""


def key(items: tuple[Item, ...]) -> Key:
    """A request's contents as the client means them (uuid-only items: the content named)."""
    return tuple((item.identity, item.version, item.units) for item in items)


def remember(first: dict[str, Content], items: tuple[Item, ...]) -> None:
    """Record in `first` the content each uuid of `items` first carried data for."""
    for item in items:
        if item.has_data:
            first.setdefault(item.identity, (item.identity, item.version, item.units))


def stale_keys(items: tuple[Item, ...], first: dict[str, Content]) -> list[Key]:
    """The contents a request could be answered for when a cache serves some of its reused
    uuids with the content first sent under them (`first`, `remember`): for every nonempty
    subset of the items whose uuid first carried another content, the request's key with
    those items replaced by that content (each key once, the request's own never)."""
    own = key(items)
    reused = [n for n, item in enumerate(items)
              if first.get(item.identity, own[n]) != own[n]]
    found: dict[Key, None] = {}
    for mask in range(1, 2 ** len(reused)):
        chosen = {n for bit, n in enumerate(reused) if mask >> bit & 1}
        found.setdefault(tuple(first[item.identity] if n in chosen else own[n]
                               for n, item in enumerate(items)))
    return list(found)


def plan_keys(plan: Plan, stale_content: bool) -> list[Key]:
    """Every key a run of `plan` may judge against: each request's not rejected, and with
    `stale_content` its `stale_keys` (the uuids remembered in the plan's order)."""
    found: list[Key] = []
    first: dict[str, Content] = {}
    for step in plan.steps:
        if not isinstance(step, Send):
            continue
        remember(first, step.items)
        if not step.rejected:
            found += [key(step.items), *(stale_keys(step.items, first) if stale_content else [])]
    return found


def references(server: Server, plans: list[Plan], stale_content: bool = False,
               ) -> dict[Key, Answer]:
    """A fresh server's answer for every key the plans' runs judge against (`plan_keys`),
    each item with its data and a uuid no other request uses."""
    found: dict[Key, Answer] = {}
    for plan in plans:
        for wanted in plan_keys(plan, stale_content):
            if wanted in found:
                continue
            items = tuple(Item(identity, version, units, True)
                          for identity, version, units in wanted)
            uuids = tuple(f"reference-{len(found)}-{n}" for n in range(len(items)))
            response = post(server, "/v1/chat/completions", chat_body(items, PROMPT, uuids))
            if response.answer is None:
                raise ServerFailed(f"the reference server did not answer {wanted}: "
                                   f"{response.status} {response.message}")
            found[wanted] = response.answer
    return found


HOLD_TOKENS = HOLD_MODEL_LEN - 64
"""Greedy tokens the blocker asks for: far more than the hold needs, since the driver ends it
(closing its connection, which makes the server abort it) at the `Release`."""
WAIT_SEEN = 30.0
"""Seconds the driver waits to see a held request in the engine's queue."""


class Held:
    """The held requests, each answered in its own thread, and the blocker: a text-only
    request on its own connection that occupies the engine until `release` closes it."""

    def __init__(self) -> None:
        self.threads: list[tuple[Send, threading.Thread, list[Response]]] = []
        self.blocker: http.client.HTTPConnection | None = None
        self.seen = True

    def block(self, server: Server) -> None:
        """Send the blocker (its answer is never read)."""
        self.blocker = http.client.HTTPConnection("127.0.0.1", server.port,
                                                  timeout=REQUEST_TIMEOUT)
        self.blocker.request("POST", "/v1/chat/completions", json.dumps(blocker_body()),
                             {"Content-Type": "application/json"})

    def send(self, server: Server, step: Send, body: dict[str, Any]) -> None:
        box: list[Response] = []
        thread = threading.Thread(
            target=lambda: box.append(post(server, "/v1/chat/completions", body)), daemon=True)
        thread.start()
        self.threads.append((step, thread, box))

    def blocking(self) -> bool:
        """Whether the blocker was sent and not released."""
        return self.blocker is not None

    def release(self) -> list[tuple[Send, Response]]:
        """Close the blocker's connection (the server aborts it), then wait for every held
        request's answer."""
        if self.blocker is not None:
            if self.blocker.sock is not None:
                with contextlib.suppress(OSError):
                    self.blocker.sock.shutdown(socket.SHUT_RDWR)
            self.blocker.close()
            self.blocker = None
        found = []
        for step, thread, box in self.threads:
            thread.join(REQUEST_TIMEOUT)
            found.append((step, box[0] if box else Response(0, None, "no answer")))
        self.threads = []
        return found


def blocker_body() -> dict[str, Any]:
    """A text-only request that runs `HOLD_TOKENS` steps (end of sequence ignored)."""
    return {"model": "tiny-llava", "messages": [{"role": "user", "content": "hold"}],
            "max_tokens": HOLD_TOKENS, "temperature": 0, "ignore_eos": True}


def queue_counts(server: Server) -> tuple[float, float]:
    """The engine's running and waiting requests (`/metrics`), or (-1, -1)."""
    try:
        with urllib.request.urlopen(server.url("/metrics"), timeout=10) as answer:
            text = answer.read().decode(errors="replace")
    except (urllib.error.URLError, OSError):
        return -1.0, -1.0
    return parse_queue_counts(text)


def parse_queue_counts(text: str) -> tuple[float, float]:
    """The running and waiting requests of a Prometheus text (summed over engines)."""
    counts = {"vllm:num_requests_running": 0.0, "vllm:num_requests_waiting": 0.0}
    for line in text.splitlines():
        name = line.split("{", 1)[0].split(" ", 1)[0]
        if name in counts:
            counts[name] += float(line.rsplit(" ", 1)[1])
    return counts["vllm:num_requests_running"], counts["vllm:num_requests_waiting"]


def _seen_waiting(server: Server, held: Held) -> bool:
    """Whether the blocker runs with every held request waiting in the engine's queue (polled
    up to `WAIT_SEEN` seconds)."""
    deadline = time.monotonic() + WAIT_SEEN
    while time.monotonic() < deadline and held.blocking():
        running, waiting = queue_counts(server)
        if running >= 1 and waiting >= len(held.threads):
            return True
        time.sleep(0.2)
    return False


def drive(plan: Plan, server: Server,
          expected: dict[Key, Answer],
          reset_encoder_cache: bool = True, resend_on_miss: bool = False,
          stale_content: bool = False) -> list[StepResult]:
    """Run `plan` on the started `server`; stop at the first engine death. Without
    `reset_encoder_cache` the engine's encoder cache is left as the requests leave it (the
    deployment as it runs). With `resend_on_miss` a request the engine misses is `missed`
    and resent once with every item's data (the encoder cache is not reset in between).
    With `stale_content` an answer for the content first sent under a reused uuid is
    `stale-content` (`expected` then holds the plan's `stale_keys`: `references`)."""
    results: list[StepResult] = []
    held = Held()
    first: dict[str, Content] = {}
    stale: dict[Send, list[Key]] = {}
    for step in plan.steps:
        if isinstance(step, Send):
            remember(first, step.items)
            stale[step] = stale_keys(step.items, first) if stale_content else []
        if isinstance(step, Release):
            results += _release(held, server, expected, stale)
        elif isinstance(step, Send) and step.held:
            if not held.blocking():
                held.block(server)
                held.seen = _seen_waiting(server, held)  # the blocker runs first
            held.send(server, step, chat_body(step.items, PROMPT))
            held.seen = held.seen and _seen_waiting(server, held)
        elif isinstance(step, Reset):
            response = post(server, "/reset_mm_cache", None)
            if held.blocking():
                held.seen = held.seen and _seen_waiting(server, held)
            outcome = Outcome.RESET if response.status == 200 else Outcome.SERVER_ERROR
            results.append(StepResult(step.step, "reset_mm_cache", outcome, response.status,
                                      response.message, _log(server)))
        else:
            if reset_encoder_cache:
                post(server, "/reset_encoder_cache", None)
            text = rejected_text(len(step.items)) if step.rejected else PROMPT
            response = post(server, "/v1/chat/completions", chat_body(step.items, text))
            results.append(_judge(step, response, server, expected, stale[step]))
            if resend_on_miss and results[-1].outcome is Outcome.SERVER_ERROR \
                    and any(MISS_MARKER in line for line in results[-1].log):
                results[-1].outcome = Outcome.MISSED
                resent = Send(step.step, step.rid, tuple(
                    Item(i.identity, i.version, i.units, True) for i in step.items),
                    step.rejected)
                response = post(server, "/v1/chat/completions", chat_body(resent.items, text))
                results.append(_judge(resent, response, server, expected, stale[step]))
                results[-1].action += " (resent with data after the miss)"
        if results and results[-1].outcome is Outcome.ENGINE_DEAD:
            break
    return results


def _release(held: Held, server: Server, expected: dict[Key, Answer],
             stale: dict[Send, list[Key]] | None = None) -> list[StepResult]:
    """Wait for the blocker and every held request; judge each held one (`not-held` for all
    when one was not seen waiting, unless the server broke; `stale`: each request's
    `stale_keys`)."""
    seen, results = held.seen, []
    held.seen = True
    for step, response in held.release():
        result = _judge(step, response, server, expected, (stale or {}).get(step, []))
        result.action += " (held in the engine's queue)"
        if not seen and not result.outcome.breaks:
            result.outcome, result.message = Outcome.NOT_HELD, "not seen waiting in the " \
                "engine's queue while the steps after it ran"
        results.append(result)
    return results


def _judge(step: Send, response: Response, server: Server, expected: dict[Key, Answer],
           stale: list[Key] | None = None) -> StepResult:
    """What the server did with `step`: `stale` lists the keys whose fresh answer makes a
    200 that is not the request's own `stale-content` (`stale_keys`; none: `wrong-answer`)."""
    log = _log(server)
    action = f"request {step.rid}: " + ", ".join(
        f"{i.identity}.v{i.version}" + ("" if i.has_data else " (uuid only)") for i in step.items
    ) + (" + a text over --max-model-len once the images are expanded" if step.rejected else "")
    own, matched = key(step.items), None
    dead = response.status == 0 or any(m in line for line in log for m in DEATH_MARKERS) \
        or not server.alive()
    if dead:
        outcome = Outcome.ENGINE_DEAD
    elif response.status >= 500:
        outcome = Outcome.SERVER_ERROR
    elif response.status >= 400:
        outcome = Outcome.CLIENT_ERROR
    elif step.rejected:
        outcome = Outcome.NOT_REJECTED  # the driver's miss, not the server's break
    else:
        matched = next((other for other in stale or []
                        if _agrees(response, expected.get(other))), None)
        outcome = Outcome.ANSWERED if _agrees(response, expected.get(own)) \
            else Outcome.WRONG_ANSWER if matched is None else Outcome.STALE_CONTENT
    message = response.message or {
        Outcome.ANSWERED: "", Outcome.NOT_REJECTED: "answered, though its prompt should be over "
        "--max-model-len", Outcome.STALE_CONTENT: _stale_message(own, matched or own),
    }.get(outcome, "the answer differs from a fresh server's for these images")
    return StepResult(step.step, action, outcome, response.status, message, log)


def _stale_message(own: Key, matched: Key) -> str:
    """What a `stale-content` answer was for: each replaced item's first content."""
    replaced = ", ".join(f"{m[0]}.v{m[1]} for {o[0]}.v{o[1]}"
                         for o, m in zip(own, matched, strict=True) if o != m)
    return (f"the fresh server's answer with {replaced}: the content first sent under the "
            "reused uuid (S4: the client reused the uuid for new content)")


def _agrees(response: Response, reference: Answer | None) -> bool:
    return response.answer is not None and reference is not None \
        and response.answer.agrees(reference)


def _log(server: Server) -> list[str]:
    return [strip_prefix(line) for line in error_lines(server.new_log())][:12]


def write(path: Path, runs: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(runs, indent=1) + "\n")
