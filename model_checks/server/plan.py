"""A witness of the LRU design as HTTP requests to one `vllm serve`: the plan the driver runs
(`model_checks.server.drive`), built without a server (the fast tests build one for every
committed witness).

The witness's front end (P0) is the API server, its engine (P1) the engine core. Over HTTP the
driver decides only what the clients send and when, so it sends each request when the
witness's P0 handles it and waits for the answer before the next. That reproduces the
witness's schedule when
- P1 receives requests in the order P0 handled them (one engine: FIFO), and
- every miss reply of the engine reaches P0 before P0 handles a later request (over HTTP the
  engine answers a request before the driver sends the next one);
a witness where P0 handles a request while an earlier miss reply is still on its way
(`late reply`) is not driven. Neither is a step the API offers no way to make happen on its
own: a clear or restart of one process only, a clear racing requests in flight, P0's
updates interleaved item by item, or unequal sizes on the two sides (`NotDrivable` names the
step and why).

Each (identity, version) becomes one PNG (`model_checks.server.images`) sized in units of the
witness (its `sizes`, 1 when not listed); each item carries its identity as the client's
`uuid`; an item without data is the uuid alone. A request the witness rejects after P0
handled it (D2) carries a text that fits `--max-model-len` only before the images are expanded
(`rejected_text`), so vLLM rejects it after processing.
A `clear_both` is `POST /reset_mm_cache` (both processes' caches, nothing in flight).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from model_checks.kernel.itf import ACTION_TAKEN, NONDET_PICKS, plain, project
from model_checks.server.images import MAX_UNITS, budget_bytes
from model_checks.server.tiny_model import MAX_POSITIONS

PROMPT = "what?"
"""The text of every request after its images."""
MAX_MODEL_LEN = 512
"""The server's `--max-model-len`: every ordinary request stays far below it."""
HOLD_MODEL_LEN = MAX_POSITIONS
"""`--max-model-len` of a plan that holds requests (`Send.held`): room for the long request
that keeps the engine busy meanwhile (`model_checks.server.drive.Held`)."""
TEMPLATE_TOKENS = len("user: ") + len("\nassistant:")
"""Tokens the chat template adds around a message (one token per byte, no merges)."""
IMAGE_TEXT_TOKENS = 2
"""Tokens of one image in the text before the processor expands it: `<image>` and a newline."""


def rejected_text(images: int) -> str:
    """The text of a request to be rejected after processing: with its `images` placeholders
    unexpanded the prompt has `MAX_MODEL_LEN` - 1 tokens, so the front end's length check
    before processing lets it through; each image then expands to at least 10 tokens, so
    the processed prompt is over `--max-model-len` and the request is rejected after the
    front end processed it and updated its cache (D2)."""
    filler = MAX_MODEL_LEN - 1 - TEMPLATE_TOKENS - IMAGE_TEXT_TOKENS * images - len(PROMPT) - 1
    return PROMPT + " " + "x" * filler


def tokens(units: int) -> int:
    """Image tokens of a content of `units` units in the tiny model: 4 base tokens, 2 rows of
    2 * (2u - 1) tile features plus a newline each (`model_checks.server.tiny_model`)."""
    return 4 + 2 * (2 * (2 * units - 1) + 1)


@dataclass(frozen=True)
class Item:
    """One image part: content (identity, version) of `units`, its data sent or not."""

    identity: str
    version: int
    units: int
    has_data: bool


@dataclass(frozen=True)
class Send:
    """One chat completion: the witness's step `step` (P0 handling request `rid`)."""

    step: int
    rid: int
    items: tuple[Item, ...]
    rejected: bool
    """The witness rejects it after P0 handled it: its processed prompt goes over
    `--max-model-len` (`rejected_text`)."""
    held: bool = False
    """Sent without waiting for its answer while the engine is kept busy, so that it waits in
    the engine's queue until the next `Release` (`model_checks.server.shm_plan`)."""


@dataclass(frozen=True)
class Reset:
    """`POST /reset_mm_cache` for the witness's step `step`."""

    step: int


@dataclass(frozen=True)
class Release:
    """The end of a hold: the driver lets the engine run and judges every held request,
    before the witness's step `step`."""

    step: int


Step = Send | Reset | Release


@dataclass(frozen=True)
class Plan:
    """What the driver does for one witness, and the server's flags it derives."""

    witness: str
    variant: str
    environment: tuple[str, ...]
    checked_property: str
    budget_units: int
    encoder_cache_tokens: int
    steps: tuple[Step, ...]
    cache_type: str = "lru"
    """`--mm-processor-cache-type`: the witness's design."""

    @property
    def holds(self) -> bool:
        """Whether some request must wait in the engine's queue (`Send.held`)."""
        return any(isinstance(step, Send) and step.held for step in self.steps)

    @property
    def budget_bytes(self) -> int:
        return budget_bytes(self.budget_units)

    def flags(self, processor_cache: bool = True, cache_type: str | None = None) -> list[str]:
        """The cache flags of `vllm serve` for this plan (`model_checks.server.launch` adds
        the fixed ones); without `processor_cache`, `--mm-processor-cache-gb 0` (no processor
        cache on either side: the deployment the witness's budget is not about); `cache_type`
        serves another cache type than the witness's design (the same schedule on the other
        cache)."""
        cache_type = cache_type or self.cache_type
        budget = repr(self.budget_bytes / 2**30) if processor_cache else "0"
        found = [
            "--mm-processor-cache-gb", budget,
            "--max-num-batched-tokens", str(self.encoder_cache_tokens),
            "--max-model-len", str(HOLD_MODEL_LEN if self.holds else MAX_MODEL_LEN),
            "--limit-mm-per-prompt", json.dumps({"image": self.max_items}),
        ]
        if cache_type != "lru" and processor_cache:
            found += ["--mm-processor-cache-type", cache_type]
        if self.holds:
            found += ["--max-num-seqs", "1"]  # one request runs, the held ones wait
        return found

    @property
    def max_items(self) -> int:
        """The most images one request of the plan carries."""
        return max(len(step.items) for step in self.steps if isinstance(step, Send))

    def contents(self) -> list[tuple[str, int, int]]:
        """Every (identity, version, units) the plan sends data for, in first-sent order."""
        seen: dict[tuple[str, int, int], None] = {}
        for step in self.steps:
            if isinstance(step, Send):
                for item in step.items:
                    if item.has_data:
                        seen.setdefault((item.identity, item.version, item.units))
        return list(seen)


class NotDrivable(Exception):
    """A witness step the HTTP API cannot make happen as the witness has it: the step's index,
    its label and why (one line)."""

    def __init__(self, step: int, label: str, why: str) -> None:
        super().__init__(f"step {step} ({label}): {why}")
        self.step, self.label, self.why = step, label, why


class NotAWitness(ValueError):
    """A document that is not a witness of the LRU design (one line)."""


UNDRIVABLE = {
    "p1_clear": "a clear of the engine's cache alone: the API clears both processes' caches",
    "p0_clear": "a clear of the front end's cache alone: the API clears both processes' caches",
    "p1_restart": "a restart of the engine alone: restarting the server restarts both processes",
    "p0_restart": "a restart of the front end alone: restarting the server restarts both "
                  "processes",
    "p0_clear_for_reset": "a reset racing requests in flight: over HTTP the driver cannot place "
                          "the engine's reset between the front end's clear and a request",
    "p1_reset": "a reset racing requests in flight: over HTTP the driver cannot place the "
                "engine's reset between the front end's clear and a request",
    "p0_process": "the front end's processing interleaved item by item with another request's "
                  "(D6): the API server's event loop decides that order",
    "p0_update_item": "the front end's cache updated item by item, interleaved with another "
                      "request's (D6): the API server's event loop decides that order",
}


def transitions(states: list[Any], undrivable: dict[str, str]
                ) -> Iterator[tuple[int, Any, Any, str, Any]]:
    """Each step of a witness's `states` as (index, the state before, the state after, the
    action taken, its nondeterministic picks), plain values; `NotDrivable` at the first
    action `undrivable` names (with its reason)."""
    for index in range(1, len(states)):
        label = states[index][ACTION_TAKEN]
        if label in undrivable:
            raise NotDrivable(index, label, undrivable[label])
        yield (index, plain(states[index - 1]), plain(states[index]), label,
               plain(states[index][NONDET_PICKS]))


def lru_plan(trace: dict[str, Any], name: str) -> Plan:
    """The plan of the LRU design's ITF witness `trace` (named `name` in messages);
    `NotAWitness` when it is not one of the LRU design, `NotDrivable` at the first step HTTP
    cannot drive (or for another design's witness)."""
    meta = project(trace)
    if meta.get("design") not in (None, "lru"):
        raise NotDrivable(0, "design", f"a witness of design {meta['design']}: the driver "
                          "translates the LRU and shm designs' actions only")
    config = meta.get("config")
    states = trace.get("states")
    if not isinstance(config, dict) or "budget" not in config or not isinstance(states, list) \
            or not states or "requests" not in states[0]:
        raise NotAWitness(f"{name} is not a witness of the LRU design (no budget or requests)")
    units = _units(config)
    if config.get("front_ends", 1) != 1 or config.get("engines", 1) != 1:
        raise NotDrivable(0, "config", "several front ends or engines (D5): one server has one "
                          "front end and one engine core")
    steps: list[Step] = []
    pending_replies: dict[int, int] = {}  # rid whose miss reply is on its way -> its step
    for index, before, after, label, picks in transitions(states, UNDRIVABLE):
        if label in ("submit", "retry"):
            continue  # the client's side: the request is sent when P0 handles it
        if label in ("p0_handle", "p0_handle_rejected"):
            if pending_replies:
                rid, at = next(iter(pending_replies.items()))
                raise NotDrivable(index, label, f"late reply: the front end handles a request "
                                  f"while the engine's miss reply for request {rid} (step {at}) "
                                  f"has not reached it; over HTTP that reply comes first")
            rid = int(picks["rid"])
            request = before["requests"][rid]
            items = tuple(_item(entry, units, index, label) for entry in request["items"])
            steps.append(Send(index, rid, items, rejected=label == "p0_handle_rejected"))
        elif label == "p1_receive":
            if int(picks["index"]) != 0:
                raise NotDrivable(index, label, "the engine receives a request before one the "
                                  "front end sent earlier (D1): one server's queue keeps order")
            sent = before["to_engine"][0]
            replies = after["to_front_end"][len(before["to_front_end"]):]
            if any(reply["missed"] and reply["rid"] == sent["rid"] for reply in replies):
                pending_replies[int(sent["rid"])] = index
        elif label == "p0_receive_reply":
            for reply in before["to_front_end"][:1]:
                pending_replies.pop(int(reply["rid"]), None)
        elif label == "clear_both":
            steps.append(Reset(index))
        else:
            raise NotDrivable(index, label, "an action the driver does not know")
    if not any(isinstance(step, Send) for step in steps):
        raise NotDrivable(len(states) - 1, "end", "the witness sends no request")
    largest = max(units.values(), default=1)
    return Plan(
        witness=name, variant=str(meta.get("variant")),
        environment=tuple(meta.get("environment", ())), checked_property=str(meta.get("property")),
        budget_units=int(config["budget"]),
        encoder_cache_tokens=tokens(max(largest, 1)), steps=tuple(steps))


def _units(config: dict[str, Any]) -> dict[tuple[str, int], int]:
    """Each listed content's size in units; unequal sides cannot be made over HTTP."""
    found = {}
    for identity, version, shadow, receiver in config.get("sizes", []):
        if shadow != receiver:
            raise NotDrivable(0, "config", f"content {identity}.v{version} has {shadow} bytes at "
                              f"the front end and {receiver} at the engine (D9): one server sizes "
                              "an item once")
        found[(str(identity), int(version))] = int(shadow)
    return found


def _item(entry: dict[str, Any], units: dict[tuple[str, int], int], index: int,
          label: str) -> Item:
    identity, version = str(entry["identity"]), int(entry["version"])
    size = units.get((identity, version), 1)
    if size > MAX_UNITS:
        raise NotDrivable(index, label, f"content {identity}.v{version} of {size} units: the "
                          f"tiny model's images have at most {MAX_UNITS}")
    return Item(identity, version, size, bool(entry["has_data"]))
