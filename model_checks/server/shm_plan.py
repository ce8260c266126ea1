"""A witness of the shared-memory design (`spec.designs.shm`) as HTTP requests to one
`vllm serve --mm-processor-cache-type shm`: the plan the driver runs
(`model_checks.server.drive`), built without a server.

The design's P0 is the API server (it writes each item into the ring and sends a handle),
its workers are the engine's model runner (it reads the handles when the engine schedules the
request). The server has one worker, which reads all of a request's items in one go when the
request is scheduled; the driver decides only what the clients send and when. So:
- `Submit` is a chat completion (one PNG per content, its identity as the client's `uuid`);
- `ClearP0` is `POST /reset_mm_cache`;
- `Execute`, `Check`, `Copy` are the engine's own steps: a request whose reads the witness
  places after a later `Submit` or `ClearP0` is held in the engine's waiting queue while those
  steps are driven (`held`: the driver occupies the engine's single sequence slot,
  `--max-num-seqs 1`, with a long text-only request first, and sends the held requests without
  waiting for them); the hold ends, and every held request is judged, at the witness's first
  read of a held request (`Release`).
Not driven (`NotDrivable` names the step and why): a client sending a handle (C1), a
preemption (R1), execution out of order (D1), reads of one request split around a client step
(the server's worker reads a request in one call), a client step between the reads of two held
requests, an eviction from the ring (the driver gives the ring room for every object; vLLM's
chunk layout is not the witness's bytes), and a property no response or log line shows (U1, a
chunk left pinned).
"""

from __future__ import annotations

from typing import Any

from model_checks.kernel.itf import ACTION_TAKEN, NONDET_PICKS, plain, project
from model_checks.server.plan import (
    Item,
    NotAWitness,
    NotDrivable,
    Plan,
    Release,
    Reset,
    Send,
    Step,
    tokens,
    transitions,
)

JUDGED = ("S1", "S3", "S4", "H1")
"""The properties a run can show: a wrong answer (S1, S4), an error or the engine's death
(S3, H1)."""
UNDRIVABLE = {
    "ClientHandle": "a client sending back a handle the front end issued (C1): the API takes "
                    "images and uuids, never a shared-memory handle",
    "Preempt": "a preemption (R1): the engine's scheduler preempts for lack of KV blocks, at a "
               "moment the driver cannot choose",
    "Reject": "a request dropped after the front end wrote it to the ring (D2) matters here "
              "only to what the ring keeps pinned, which no response shows",
}
CLIENT_STEPS = ("Submit", "ClearP0")
READS = ("Check", "Copy")


def shm_plan(trace: dict[str, Any], name: str) -> Plan:
    """The plan of the shm design's ITF witness `trace` (named `name` in messages);
    `NotAWitness` when it has no states or ring, `NotDrivable` at the first step HTTP cannot
    drive as the witness has it."""
    meta = project(trace)
    states = trace.get("states")
    config = meta.get("config")
    if not isinstance(config, dict) or not isinstance(states, list) or not states \
            or "ring" not in states[0]:
        raise NotAWitness(f"{name} is not a witness of the shm design (no ring or states)")
    checked = str(meta.get("property"))
    if checked not in JUDGED:
        raise NotDrivable(len(states) - 1, f"property {checked}", "a property no response or "
                          "log line of the server shows (the ring's pins and reads are internal)")
    submitted: dict[int, int] = {}  # rid -> its Submit's step
    reads: dict[int, list[int]] = {}  # rid -> the steps that read it
    client_steps: list[int] = []
    for index, before, after, label, picks in transitions(states, UNDRIVABLE):
        if label == "Submit":
            evicted = {c["id"] for c in before["ring"]["chunks"]} \
                - {c["id"] for c in after["ring"]["chunks"]}
            if evicted:
                raise NotDrivable(index, label, f"the ring evicts chunk(s) #{sorted(evicted)}: "
                                  "the driver gives vLLM's ring room for every object (its chunk "
                                  "headers and sizes are not the witness's bytes)")
            submitted[int(before["requests"])] = index
            client_steps.append(index)
        elif label == "ClearP0":
            client_steps.append(index)
        elif label == "Execute":
            if int(picks["index"]) != 0:
                raise NotDrivable(index, label, "the engine executes a request before one sent "
                                  "earlier (D1): one server's queue keeps order")
        elif label in READS:
            worker = int(picks["worker"])
            rid = int(before["executed"][int(before["position"][worker])]["rid"])
            reads.setdefault(rid, []).append(index)
        else:
            raise NotDrivable(index, label, "an action the driver does not know")
    end = len(states)
    held = _held(submitted, reads, client_steps, end)
    steps = _steps(states, submitted, held, reads, end)
    if not any(isinstance(step, Send) for step in steps):
        raise NotDrivable(end - 1, "end", "the witness sends no request")
    contents = {(item.identity, item.version) for step in steps if isinstance(step, Send)
                for item in step.items}
    return Plan(
        witness=name, variant=str(meta.get("variant")),
        environment=tuple(meta.get("environment", ())), checked_property=checked,
        budget_units=2 * len(contents) + 2, encoder_cache_tokens=tokens(1), steps=tuple(steps),
        cache_type="shm")


def _held(submitted: dict[int, int], reads: dict[int, list[int]], client_steps: list[int],
          end: int) -> set[int]:
    """The requests whose reads the witness places after a later client step (held in the
    engine's queue); `NotDrivable` where a client step falls between the reads of one request,
    or after a held request's read while another held request waits."""
    held = set()
    for rid, at in submitted.items():
        first, last = min(reads.get(rid, [end])), max(reads.get(rid, [end]))
        if any(at < step < first for step in client_steps):
            held.add(rid)
        for step in client_steps:
            if first < step < last:
                raise NotDrivable(step, "between reads", f"request {rid}'s items are read before "
                                  "and after this step: the server's worker reads a request in "
                                  "one call when the engine schedules it")
    if held:
        release = min(min(reads.get(rid, [end])) for rid in held)
        for step in client_steps:
            waiting = [rid for rid in held if min(reads.get(rid, [end])) > step]
            if step > release and waiting:
                raise NotDrivable(step, "after a held read", f"request {waiting[0]} still waits "
                                  "in the engine's queue: once the held requests run, the driver "
                                  "cannot stop the engine between them")
    return held


def _steps(states: list[Any], submitted: dict[int, int], held: set[int],
           reads: dict[int, list[int]], end: int) -> list[Step]:
    """The driver's steps in the witness's order, a `Release` before the first held read."""
    release = min((min(reads.get(rid, [end])) for rid in held), default=end)
    hold_from = min((submitted[rid] for rid in held), default=end)
    by_step = {at: rid for rid, at in submitted.items()}
    steps: list[Step] = []
    for index in range(1, len(states)):
        if held and index == release:
            steps.append(Release(index))
        label = states[index][ACTION_TAKEN]
        if index in by_step:
            contents = plain(states[index][NONDET_PICKS])["contents"]
            items = tuple(Item(str(c["identity"]), int(c["version"]), 1, True) for c in contents)
            steps.append(Send(index, by_step[index], items, rejected=False,
                              held=hold_from <= index < release))
        elif label == "ClearP0":
            steps.append(Reset(index))
    if held and release == end:
        steps.append(Release(end))
    return steps
