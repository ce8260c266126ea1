"""A Murphi model generated from the spec's configuration: the independent anchor Rumur
checks (`model_checks.explore.murphi_run` runs it and replays its traces on the spec).

`model(config, properties)` translates each enabled/step rule of `spec.transitions` for one
configuration into a Murphi rule, with the properties as invariants:

- S1 (the last delivery pairs a tensor and placeholders of one content), S2 (no cache over
  the budget), S3 (no P0 assertion) and H1 (the last delivery missed nothing) as state
  invariants, the last delivery kept as two flags that every rule clears first;
- L2 and L3 as safety over the spec's own monitors (`spec.properties.liveness`): per request
  the identities its last miss reply listed (L2), and whether P1 reported a miss for it
  since the last drift event (L3), each violation a flag that stays set.

What the model keeps, and why it is the spec's state: a request that ended for good (any
outcome but a miss it may still retry) is forgotten, its slot freed, only the count of
submitted requests kept (nothing reads an ended request again but the S3 flag, set when it
ends by P0's assertion, and L4, which is not translated); request slots are a Murphi
scalarset where `symmetric` (a slot is no request id: the spec's behaviour never compares
two rids, so any renaming of slots is a bisimulation), a plain range otherwise (traces
that name slots, `following`); processings are renumbered by first appearance after every
rule and forgotten where nothing holds them (the spec compares pids only for equality: a
tag, `undo_recorded`, S1 by content), their contents kept beside them.

Identities are a scalarset too where `symmetric` and the configuration makes them
interchangeable (`identities_interchangeable`: every identity has the same sizes at every
version, and the Submit actions are every shape, `submit_shapes`, with every tuple of
distinct identities), a plain range otherwise (sizes differ, as under D7 or D11 here, or
traces are followed). Soundness: the spec reads of an identity name only equality
(LRU lookups, a cache's one entry per identity, the miss list, `well_formed`'s distinct
names, S1's contents) and its sizes (`Config.shadow_bytes`, `receiver_bytes`); it never
orders names (the miss list keeps the message's item order, the resolution order sorts by
the media flag, P0's hits are a set). So renaming identities maps every enabled action to
an enabled action and every property's verdict to itself where the sizes and Submit
actions are invariant under the renaming: a bisimulation, Rumur's symmetry reduction
sound. The model names no identity by a constant there (Rumur refuses a scalarset compared
with a number): Submit takes its identities as rule parameters (a1, a2, ... of shape k),
`psize` reads the version alone, and a place no identity fills (past an LRU's entries, a
request's unused items, a free processing) is undefined rather than cleared to a value.
Where sizes differ only within groups (rows of D7 and D11: two alike, one apart) the
identities stay a plain range: a scalarset per group would need Murphi's union types,
which Rumur does not support. A counterexample names identities as the scalarset's values
(`ident_0`, ...), consistent along the trace (Rumur tracks the permutations its reduction
applies, `--scalarset-schedules`, on by default), and `murphi_run.actions` maps value n to
the n-th identity: any naming of interchangeable identities is one.

Media flags are decided at a request's first handling where `symmetric` (and no trace is
followed) and the configuration admits every choice of them (`media_decided`: `Submit`'s
guard reads no flag), as the explorer does (docs/explore.md, "Media flags chosen where P0
reads them"): Submit sends media on every item, and each of P0's handlings (`HANDLINGS`)
of a fresh request (submitted, never handled: never retried) takes a choice f of flags
and sets them first. Soundness: nothing reads a fresh request's flags before its first
handling (the first read is `process_attempt`'s probe; a retry sets every flag), and no
property or monitor reads a flag, so every path of the spec maps to a path of the model of
the same length through states equal but for fresh flags, and back: `murphi_run.actions`
gives each choice to the Submit of its request, and the trace replays on the spec. There
too, a request's flags are set as a retry sets them once it is sent: nothing reads them
again before a retry sets every one (`update_next_item` reads them only mid-handling).

The translation covers the variants whose knobs it translates (`TRANSLATED_VARIANTS`: a
correct LRU, the payload wins and drops the old entry first, misses reported in full,
touches first) and environments of `TRANSLATED_DRIFT` with one front end, one engine and
no duplicate identities; anything else is refused with one line (`NotTranslated`).

`following` makes the model follow spec traces of its configuration instead (`Followed`:
a trace and the property it breaks): a start state per trace, every rule guarded to fire
only as that trace's next step, and per trace an invariant "trace N end" that fails
exactly where the model reaches the trace's end with that property broken (Rumur, run to
report every failed invariant, then names each trace that replays on the model).
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from spec import (
    ClientItem,
    Config,
    Content,
    Drift,
    LruFlaw,
    MissHandling,
    State,
    Trace,
    enabled,
    initial,
)
from spec.state import Outcome, Stage
from spec.transitions import (
    Action,
    ClearBoth,
    P0Handle,
    P0HandleRejected,
    P0Process,
    P0ReceiveReply,
    P0UpdateItem,
    P1Receive,
    Retry,
    Submit,
)

TRANSLATED_DRIFT = frozenset({Drift.D1, Drift.D2, Drift.D6, Drift.D7, Drift.D11})
"""The drift sources whose steps and instance needs the model translates."""
TRANSLATED_VARIANTS = ("V2", "V3", "V4")
"""The variants whose knobs the model translates (`_refusal` checks the knobs themselves)."""
PROPERTIES = ("S1", "S2", "S3", "H1", "L2", "L3")
"""The properties the model states, in the order the invariants are written."""
RULES = ("Submit", "P0Handle", "P0HandleRejected", "P0HandleRejectedUndo", "P0Process",
         "P0UpdateItem", "P1Receive", "P0ReceiveReply", "Retry", "ClearBoth")
"""The rule names, one per translated action class (`rule_of` names each action's)."""


class NotTranslated(ValueError):
    """A configuration or property the model does not translate; one line says which."""


@dataclass(frozen=True)
class Mistranslation:
    """A planted mistranslation, for the checks that must catch one: `drop_tag_check` drops
    the tag comparison from P1's reference rule (a reference to a stale entry is served);
    `keep_missed` leaves the identities a miss reply lists in P0's shadow (no invalidation);
    `all_interchangeable` declares every identity interchangeable (a scalarset, each content
    sized as the identity with the largest sizes) where their sizes differ: an unsound
    symmetry."""

    drop_tag_check: bool = False
    keep_missed: bool = False
    all_interchangeable: bool = False


CORRECT = Mistranslation()


@dataclass(frozen=True)
class Followed:
    """A spec trace the model is to follow, and the property (of `PROPERTIES`) broken at its
    end (None: its end need only be reached)."""

    trace: Trace
    broken: str | None


def _refusal(config: Config) -> str | None:
    v = config.variant
    knobs_ok = (v.miss_handling is MissHandling.REPORT_ALL and v.invalidates and v.payload_wins
                and v.drop_before_replace and v.touches_first
                and v.shadow_lru is LruFlaw.NONE and v.receiver_lru is LruFlaw.NONE
                and v.references_after_own_payload)
    if v.name not in TRANSLATED_VARIANTS or not knobs_ok:
        return f"variant {v.name} is not translated to Murphi (translated: " \
               f"{', '.join(TRANSLATED_VARIANTS)})"
    extra = sorted(d.value for d in config.environment - TRANSLATED_DRIFT)
    if extra:
        return f"drift {'+'.join(extra)} is not translated to Murphi (translated: " \
               f"{', '.join(sorted(d.value for d in TRANSLATED_DRIFT))})"
    if config.front_ends != 1 or config.engines != 1 or config.duplicates:
        return "only one front end, one engine and no duplicate identities are translated"
    return None


def check_translated(config: Config, properties: Sequence[str] = ()) -> None:
    """Raise `NotTranslated` (one line) unless the model translates `config` and
    `properties`."""
    why = _refusal(config)
    unknown = [p for p in properties if p not in PROPERTIES]
    if why is None and unknown:
        why = f"property {unknown[0]} is not translated to Murphi (translated: " \
              f"{', '.join(PROPERTIES)})"
    if why is not None:
        raise NotTranslated(why)


def submit_table(config: Config) -> tuple[Submit, ...]:
    """The Submit actions the configuration admits, in the spec's order: rule parameter k
    of "Submit" is the k-th (from 1). Read from `spec.enabled` in the initial state."""
    return tuple(a for a in enabled(config, initial(config)) if isinstance(a, Submit))


Shape = tuple[tuple[int, bool], ...]
"""A request's items without their identities: per item its version and media flag."""


def submit_shapes(config: Config) -> tuple[Shape, ...]:
    """The shapes of the Submit actions the configuration admits, each once, in the order of
    `submit_table`: rule parameter k of "Submit" is the k-th (from 1) where identities are a
    scalarset, its identities the rule's parameters a1, a2, ... (module docstring)."""
    return tuple(dict.fromkeys(_shape(s) for s in submit_table(config)))


def _shape(submit: Submit) -> Shape:
    return tuple((i.version, i.has_data) for i in submit.items)


def _profile(config: Config, identity: str) -> tuple[tuple[int, int], ...]:
    """An identity's sizes (shadow, receiver) at each version."""
    contents = (Content(identity, v) for v in range(config.versions))
    return tuple((config.shadow_bytes(c), config.receiver_bytes(c)) for c in contents)


def identities_interchangeable(config: Config) -> bool:
    """True when any renaming of the identities maps the configuration onto itself: every
    identity has the same sizes (shadow and receiver) at every version, and the Submit
    actions are every shape with every tuple of distinct identities (the guard's fit to the
    budget reads only sizes)."""
    if len({_profile(config, i) for i in config.identities}) != 1:
        return False
    every = sum(math.perm(len(config.identities), len(s)) for s in submit_shapes(config))
    return len(submit_table(config)) == every


HANDLINGS = ("P0Handle", "P0HandleRejected", "P0HandleRejectedUndo", "P0Process")
"""The rules of P0's handlings: a request's first one decides its media flags, where
`media_decided` (module docstring)."""


def media_decided(config: Config) -> bool:
    """True when the Submit actions come in every choice of media flags: every Submit's
    items with any flags is a Submit too (`Submit.guard` reads no flag)."""
    table = set(submit_table(config))
    return all(
        Submit(tuple(ClientItem(i.identity, i.version, d) for i, d in zip(s.items, flags,
                                                                          strict=True)),
               s.front_end) in table
        for s in table for flags in itertools.product((True, False), repeat=len(s.items)))


def rule_of(action: Action, config: Config, slot: int) -> tuple[str, int, int]:
    """(rule name, first parameter, second parameter) of the rule that takes `action`:
    the request's slot (from 1) and Submit's table index, or P1Receive's queue index
    (from 1); 0 where the rule has no such parameter."""
    if isinstance(action, Submit):
        return "Submit", slot, submit_table(config).index(action) + 1
    if isinstance(action, P1Receive):
        return "P1Receive", action.index + 1, 0
    if isinstance(action, ClearBoth | P0ReceiveReply):
        return type(action).__name__, 0, 0
    if isinstance(action, P0Handle | P0HandleRejected | P0Process | P0UpdateItem | Retry):
        return type(action).__name__, slot, 0
    raise NotTranslated(f"action {action!r} is not translated to Murphi")


def ends_for_good(config: Config, outcome: Outcome | None, stage: Stage, retries: int
                  ) -> bool:
    """True when a request in this condition is forgotten by the model: it ended, and not
    with a miss it may still retry."""
    return stage is Stage.DONE and not (outcome is Outcome.MISS
                                        and retries < config.max_retries)


def _slots_of(trace: Trace) -> list[tuple[int, dict[int, int]]]:
    """Per step, the slot (from 1) of its request, as the model assigns them (0: no
    request), and which slot each live request holds after it: a new request takes the
    lowest free slot, a request that ends for good frees its slot."""
    owner: dict[int, int] = {}
    slots: list[tuple[int, dict[int, int]]] = []
    for _, before, action, after in trace.transitions():
        slot = 0
        if isinstance(action, Submit):
            used = set(owner.values())
            slot = min(s for s in range(1, trace.config.max_requests + 1) if s not in used)
            owner[len(before.requests)] = slot
        elif not isinstance(action, ClearBoth | P0ReceiveReply | P1Receive):
            slot = owner[getattr(action, "rid")]  # noqa: B009  (every other action has one)
        for r in after.requests:
            if r.rid in owner and ends_for_good(trace.config, r.outcome, r.stage, r.retries):
                del owner[r.rid]
        slots.append((slot, dict(owner)))
    return slots


_STAGES = {Stage.SUBMITTED: "S_SUBMITTED", Stage.PROCESSED: "S_PROCESSED",
           Stage.UPDATING: "S_UPDATING", Stage.IN_FLIGHT: "S_IN_FLIGHT", Stage.DONE: "S_DONE"}


def _projection(state: State, owner: dict[int, int], ids: dict[str, int], slots: int
                ) -> str:
    """A Murphi condition that holds where the model's state matches `state` as far as
    both keep it: each cache's identities in LRU order, the queues' lengths, and every
    live request's stage in its slot (the others free)."""
    parts = []
    for name, cache in (("shadow", state.shadows[0]), ("receiver", state.receiver)):
        parts.append(f"{name}.n = {len(cache)}")
        parts += [f"{name}.e[{n}].id = {ids[e.identity]}"
                  for n, e in enumerate(cache, start=1)]
    parts += [f"nmsg = {len(state.to_engine)}", f"nrep = {len(state.to_front_end)}"]
    live = {slot: state.requests[rid].stage for rid, slot in owner.items()}
    parts += [f"req[{slot}].st = {_STAGES[live[slot]] if slot in live else 'S_FREE'}"
              for slot in range(1, slots + 1)]
    return " & ".join(parts)


def model(config: Config, properties: Sequence[str] = PROPERTIES, *,
          symmetric: bool = True, following: Sequence[Followed] = (),
          plant: Mistranslation = CORRECT) -> str:
    """The Murphi model of `config` with `properties` as invariants (`following`: the model
    guarded to follow those traces instead, module docstring)."""
    broken = [f.broken for f in following if f.broken is not None]
    check_translated(config, (*properties, *broken))
    if any(f.trace.config != config for f in following):
        raise NotTranslated("a followed trace is of another configuration than the model's")
    table = submit_table(config)
    ids = {name: n for n, name in enumerate(config.identities, start=1)}
    shaped = symmetric and not following and (plant.all_interchangeable
                                              or identities_interchangeable(config))
    lazy = symmetric and not following and media_decided(config)
    v = config.variant
    nslot = config.max_requests
    npid = 2 * config.budget + 2 * nslot * config.max_items + config.max_items + 1
    sizes = [config.shadow_bytes(c) for c in config.contents()] + \
        [config.receiver_bytes(c) for c in config.contents()]
    consts = {
        "NID": len(ids), "NVER": config.versions, "BUDGET": config.budget,
        "NI": config.max_items, "NR": config.max_requests, "NF": config.max_in_flight,
        "RMAX": config.max_retries, "NP": npid,
        "NK": len(submit_shapes(config)) if shaped else len(table), "MAXSIZE": max(sizes),
    }
    flags = {
        "TAGGED": v.tagged and not plant.drop_tag_check, "REFS_FIRST": v.references_first,
        "LATE_REPROCESS": v.late_miss_reprocess, "BYPASS": v.resends_bypass_shadow,
        "D1": config.enables(Drift.D1), "D2": config.enables(Drift.D2),
        "D6": config.enables(Drift.D6),
    }
    out = [f"-- generated by model_checks.explore.murphi for {v.name} "
           f"{'+'.join(sorted(d.value for d in config.environment)) or 'none'}\n", "const\n"]
    out += [f"  {name}: {value};\n" for name, value in consts.items()]
    out += [f"  {name}: {'true' if value else 'false'};\n" for name, value in flags.items()]
    slot_type = "scalarset(NR)" if symmetric and not following else "1..NR"
    out.append(_TYPES.replace("SLOT_TYPE", slot_type).replace(
        "IDENT_TYPE", "scalarset(NID)" if shaped else "1..NID"))
    if following:
        longest = max(len(f.trace.steps) for f in following)
        out.append(f"var tn: 1..{len(following)};\n    tstep: 0..{longest};\n")
    out.append(_sizes(config, ids, by_identity=not shaped))
    out.append(_EMPTY_REQUEST)
    out.append(_shaped_submits(config) if shaped else _submits(table, ids))
    if lazy:
        out.append(_decisions(config, shaped))
    needed = {*properties, *broken}
    procedures = _monitors(_PROCEDURES, needed)
    if plant.keep_missed:
        procedures = procedures.replace("      lru_pop(shadow, x);\n", "")
    if lazy:  # flags nothing reads again before a retry sets them: as a retry sets them
        sent = "    req[s].st := S_IN_FLIGHT;\n"
        assert procedures.count(sent) == 1
        procedures = procedures.replace(sent, sent + "    " + _RETRY_FLAGS)
    if following:
        procedures = procedures.replace("startstate\n", f"ruleset t: 1..{len(following)} do "
                                        "startstate\n").replace(
            "TSTEP_INIT\nend;\n", "  tn := t; tstep := 0;\nend;\nendruleset;\n")
        out += [procedures, _follows(following, config)]
    else:
        out.append(procedures.replace("TSTEP_INIT\n", ""))
    text = _rules(bool(following), config.max_items if shaped else 0)
    out.append(_lazy_rules(text, config.max_items) if lazy else text)
    if following:
        for number, f in enumerate(following, start=1):
            flag = "true" if f.broken is None else _BROKEN[f.broken]
            out.append(f'invariant "trace {number} end" '
                       f'!(tn = {number} & tstep = {len(f.trace.steps)} & {flag});\n'
                       f'invariant "trace {number} diverges" !(tn = {number} & !matches());\n')
    else:
        out += [_INVARIANTS[p] for p in PROPERTIES if p in properties]
    return "".join(out)


def _monitors(text: str, needed: set[str]) -> str:
    """`text` without the updates of the monitors no needed property reads (H1's last
    delivery, L2's listed identities, L3's watch): their variables then stay constant and
    add no states."""
    updates = {"H1": ("    h1_bad := true;\n",),
               "L2": ("      if listed[s][x] then l2_bad := true; endif;\n",
                      "  listed[s] := r.missed;\n"),
               "L3": ("    if watching[s] then l3_bad := true; endif;\n",
                      "    watching[s] := true;\n")}
    for prop, lines in updates.items():
        if prop not in needed:
            for line in lines:
                assert line in text, line
                text = text.replace(line, "")
    return text


def _sizes(config: Config, ids: dict[str, int], by_identity: bool) -> str:
    """`psize`: a content's bytes per side; not `by_identity` (identities a scalarset, no
    identity constant to name), by version alone, as the contents of the identity with the
    largest sizes (every identity's, where they are interchangeable)."""
    largest = max(config.identities, key=lambda i: _profile(config, i))
    lines = ["function psize(x: ident; w: ver; receiver: boolean): size;\nbegin\n"]
    for c in config.contents():
        p0, p1 = config.shadow_bytes(c), config.receiver_bytes(c)
        if (p0, p1) != (1, 1) and (by_identity or c.identity == largest):
            which = f"x = {ids[c.identity]} & " if by_identity else ""
            lines.append(f"  if {which}w = {c.version} then\n"
                         f"    if receiver then return {p1}; else return {p0}; endif;\n"
                         "  endif;\n")
    lines.append("  return 1;\nend;\n\n")
    return "".join(lines)


def _submits(table: Sequence[Submit], ids: dict[str, int]) -> str:
    lines = ["procedure load_request(s: slot; k: 1..NK);\nbegin\n  empty_request(s);\n"
             "  req[s].st := S_SUBMITTED;\n  switch k\n"]
    drifting = []
    for k, action in enumerate(table, start=1):
        lines.append(f"  case {k}:\n    req[s].n := {len(action.items)};\n")
        for i, item in enumerate(action.items, start=1):
            lines.append(f"    req[s].it[{i}].id := {ids[item.identity]}; "
                         f"req[s].it[{i}].v := {item.version}; "
                         f"req[s].it[{i}].data := {'true' if item.has_data else 'false'};\n")
        if action.drift_event() is not None:
            drifting.append(str(k))
    lines.append("  endswitch;\nend;\n\n")
    lines.append("function submit_drifts(k: 1..NK): boolean;\nbegin\n")
    lines += [f"  if k = {k} then return true; endif;\n" for k in drifting]
    lines.append("  return false;\nend;\n\n")
    return "".join(lines)


def _shaped_submits(config: Config) -> str:
    """`load_request(s, k, a1, ..)`: the request of shape k (`submit_shapes`) naming
    identities a1, a2, ... in item order; `shape_fits(k, a1, ..)`: those are distinct, and
    the parameters past its items equal a1 (one rule firing per request)."""
    shapes = submit_shapes(config)
    names = [f"a{j}" for j in range(1, config.max_items + 1)]
    params = "; ".join(f"{a}: ident" for a in names)
    lines = [f"procedure load_request(s: slot; k: 1..NK; {params});\nbegin\n"
             "  empty_request(s);\n  req[s].st := S_SUBMITTED;\n  switch k\n"]
    drifts = {_shape(s) for s in submit_table(config) if s.drift_event() is not None}
    fits = [f"function shape_fits(k: 1..NK; {params}): boolean;\nbegin\n  switch k\n"]
    drifting = []
    for k, shape in enumerate(shapes, start=1):
        lines.append(f"  case {k}:\n    req[s].n := {len(shape)};\n")
        for i, (version, data) in enumerate(shape, start=1):
            lines.append(f"    req[s].it[{i}].id := a{i}; req[s].it[{i}].v := {version}; "
                         f"req[s].it[{i}].data := {'true' if data else 'false'};\n")
        used = names[:len(shape)]
        same = [f"{a} != {b}" for n, a in enumerate(used) for b in used[n + 1:]]
        same += [f"{a} = a1" for a in names[len(shape):]]
        fits.append(f"  case {k}: return {' & '.join(same) or 'true'};\n")
        if shape in drifts:
            drifting.append(str(k))
    lines.append("  endswitch;\nend;\n\n")
    fits.append("  endswitch;\n  return false;\nend;\n\n")
    lines += fits
    lines.append("function submit_drifts(k: 1..NK): boolean;\nbegin\n")
    lines += [f"  if k = {k} then return true; endif;\n" for k in drifting]
    lines.append("  return false;\nend;\n\n")
    return "".join(lines)


def _decisions(config: Config, shaped: bool) -> str:
    """`with_media(k)`: Submit k sends media on every item (the only ones submitted, where
    media flags are decided at the first handling); `decidable(s, f)`: f is a choice of
    flags for slot s (bit i-1 set: item i without media), only 0 unless the request is
    fresh (submitted, never handled: never retried); `decide(s, f)` sets them."""
    rows = submit_shapes(config) if shaped else tuple(_shape(s) for s in submit_table(config))
    full = [str(k) for k, shape in enumerate(rows, start=1) if all(d for _, d in shape)]
    top = 2 ** config.max_items - 1
    bits = [(i, 2 ** (i - 1)) for i in range(1, config.max_items + 1)]
    return "".join([
        "function with_media(k: 1..NK): boolean;\nbegin\n",
        *(f"  if k = {k} then return true; endif;\n" for k in full),
        "  return false;\nend;\n\n",
        "function fresh(s: slot): boolean;\nbegin\n"
        "  return req[s].st = S_SUBMITTED & req[s].retries = 0;\nend;\n\n",
        f"function decidable(s: slot; f: 0..{top}): boolean;\nbegin\n"
        "  if !fresh(s) then return f = 0; endif;\n",
        *(f"  if req[s].n < {i} & (f / {b}) % 2 = 1 then return false; endif;\n"
          for i, b in bits),
        "  return true;\nend;\n\n",
        f"procedure decide(s: slot; f: 0..{top});\nbegin\n  if fresh(s) then\n",
        *(f"    if (f / {b}) % 2 = 1 then req[s].it[{i}].data := false; endif;\n"
          for i, b in bits),
        "  endif;\nend;\n\n"])


def _lazy_rules(text: str, items: int) -> str:
    """The rules with media flags decided at a request's first handling: Submit only with
    media on every item; each handling rule takes the choice f (`_decisions`), the other
    rules of a slot only f = 0 (one firing each)."""
    def guarded(match: re.Match[str]) -> str:
        name, head, begin = match[1], match[0][:match.start(2) - match.start(0)], match[2]
        if name in HANDLINGS:
            return f"{head} & decidable(s, f){begin}    decide(s, f);\n"
        return f"{head} & f = 0{begin}"

    for old, new in (("ruleset s: slot do", f"ruleset s: slot; f: 0..{2 ** items - 1} do"),
                     ("unfinished() < NF", "unfinished() < NF & with_media(k)")):
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    slot_rules = "|".join(name for name, _, _ in _SLOT_RULES)
    return re.sub(rf'rule "({slot_rules})" .*?( ==>\n\s*begin\n\s*s1_bad := false; '
                  r"h1_bad := false;\n)", guarded, text)


def _follows(following: Sequence[Followed], config: Config) -> str:
    """`follows(r, a, b)`: rule number r with parameters a, b is the followed trace's
    next step; `matches()`: the state matches the trace's state at this step
    (`_projection`)."""
    ids = {name: n for n, name in enumerate(config.identities, start=1)}
    rules = ["function follows(r: 0..20; a: 0..NR; b: 0..NK): boolean;\nbegin\n"
             "  switch tn\n"]
    states = ["function matches(): boolean;\nbegin\n  switch tn\n"]
    for trace_number, f in enumerate(following, start=1):
        rules.append(f"  case {trace_number}:\n    switch tstep\n")
        start = _projection(f.trace.initial, {}, ids, config.max_requests)
        states.append(f"  case {trace_number}:\n    switch tstep\n"
                      f"    case 0: return {start};\n")
        for number, (step, (slot, owner)) in enumerate(zip(f.trace.steps, _slots_of(f.trace),
                                                         strict=True)):
            name, a, b = rule_of(step.action, config, slot)
            rules.append(f"    case {number}: return r = {RULES.index(name)} & a = {a} "
                         f"& b = {b};\n")
            states.append(f"    case {number + 1}: return "
                          f"{_projection(step.state, owner, ids, config.max_requests)};\n")
        rules.append("    else return false;\n    endswitch;\n")
        states.append("    else return false;\n    endswitch;\n")
    end = "  endswitch;\n  return false;\nend;\n\n"
    return "".join(rules) + end + "".join(states) + end


def _rules(following: bool, shaped_items: int) -> str:
    """The rules; `shaped_items` > 0: Submit takes that many identity parameters
    (`_shaped_submits`)."""
    text = _RULES
    if shaped_items:
        names = ", ".join(f"a{j}" for j in range(1, shaped_items + 1))
        for old, new in (("ruleset s: slot; k: 1..NK do",
                          "ruleset s: slot; k: 1..NK; "
                          + "; ".join(f"{a}: ident" for a in names.split(", ")) + " do"),
                         ("unfinished() < NF", f"unfinished() < NF & shape_fits(k, {names})"),
                         ("load_request(s, k)", f"load_request(s, k, {names})")):
            assert text.count(old) == 1, old
            text = text.replace(old, new)
    for number, name in enumerate(RULES):
        guard = f"follows({number}, A, B) & " if following else ""
        text = text.replace(f"@{name}@", guard)
    if following:
        text = text.replace("  canon();\n", "  canon(); tstep := tstep + 1;\n")
    # the follow guard's parameters: the slot (or queue index) and the Submit index
    text = text.replace("follows(0, A, B)", "follows(0, s, k)")
    for name, _, _ in _SLOT_RULES:
        text = text.replace(f"follows({RULES.index(name)}, A, B)",
                            f"follows({RULES.index(name)}, s, 0)")
    text = text.replace(f"follows({RULES.index('P1Receive')}, A, B)",
                        f"follows({RULES.index('P1Receive')}, i, 0)")
    return text.replace("A, B)", "0, 0)")


_BROKEN = {"S1": "s1_bad", "S2": "!within_budget()", "S3": "s3_bad", "H1": "h1_bad",
           "L2": "l2_bad", "L3": "l3_bad"}

_INVARIANTS = {
    "S1": 'invariant "S1" !s1_bad;\n',
    "S2": 'invariant "S2" within_budget();\n',
    "S3": 'invariant "S3" !s3_bad;\n',
    "H1": 'invariant "H1" !h1_bad;\n',
    "L2": 'invariant "L2" !l2_bad;\n',
    "L3": 'invariant "L3" !l3_bad;\n',
}

_EMPTY_REQUEST = """
-- a free slot; the identities of its unused items undefined (none named there)
procedure empty_request(s: slot);
begin
  clear req[s];
  for i: idx do undefine req[s].it[i].id; undefine req[s].w[i].id; endfor;
end;

"""

_TYPES = """
type
  ident: IDENT_TYPE;
  ver: 0..NVER - 1;
  pid: 0..NP;
  size: 0..MAXSIZE;
  slot: SLOT_TYPE;
  idx: 1..NI;
  nidx: 0..NI;
  stage_t: enum { S_FREE, S_SUBMITTED, S_PROCESSED, S_UPDATING, S_IN_FLIGHT, S_DONE };
  entry: record id: ident; sz: size; p: pid; end;
  lru: record n: 0..BUDGET; e: array [1..BUDGET] of entry; end;
  item: record id: ident; v: ver; data: boolean; end;
  witem: record id: ident; d: pid; ph: pid; end;
  request: record
    st: stage_t; n: nidx; it: array [idx] of item; retries: 0..RMAX; miss: boolean;
    proc: array [idx] of pid; ord: array [idx] of idx; done: nidx; w: array [idx] of witem;
  end;
  message: record s: slot; n: nidx; w: array [idx] of witem; end;
  idset: array [ident] of boolean;
  reply: record s: slot; missed: idset; end;
  content: record id: ident; v: ver; end;
  pidmap: array [1..NP] of pid;
  contents: array [1..NP] of content;
  pids: array [idx] of pid;
  flags: array [idx] of boolean;

var
  shadow: lru;
  receiver: lru;
  pc: contents;
  req: array [slot] of request;
  nmsg: 0..NR;
  msg: array [1..NR] of message;
  nrep: 0..NR;
  rep: array [1..NR] of reply;
  submitted: 0..NR;
  s1_bad: boolean;
  h1_bad: boolean;
  s3_bad: boolean;
  l2_bad: boolean;
  l3_bad: boolean;
  watching: array [slot] of boolean;
  listed: array [slot] of idset;

"""

_PROCEDURES = """
function find(l: lru; x: ident): 0..BUDGET;
var r: 0..BUDGET;
begin
  r := 0;
  for i := 1 to BUDGET do
    if r = 0 & i <= l.n then if l.e[i].id = x then r := i; endif; endif;
  endfor;
  return r;
end;

function used_bytes(l: lru): 0..BUDGET * MAXSIZE;
var u: 0..BUDGET * MAXSIZE;
begin
  u := 0;
  for i := 1 to BUDGET do if i <= l.n then u := u + l.e[i].sz; endif; endfor;
  return u;
end;

function within_budget(): boolean;
begin
  return used_bytes(shadow) <= BUDGET & used_bytes(receiver) <= BUDGET;
end;

procedure remove_at(var l: lru; k: 1..BUDGET);
begin
  for i := 1 to BUDGET do
    if i >= k & i < l.n then l.e[i] := l.e[i + 1]; endif;
  endfor;
  undefine l.e[l.n];
  l.n := l.n - 1;
end;

-- no entry; the places past l.n undefined (no identity named there)
procedure empty(var l: lru);
begin
  l.n := 0;
  undefine l.e;
end;

procedure lru_append(var l: lru; e: entry);
begin
  assert l.n < BUDGET "an LRU holds more entries than its budget";
  l.n := l.n + 1;
  l.e[l.n] := e;
end;

-- get and touch of a correct LRU: a present entry becomes the most recent
procedure lru_touch(var l: lru; x: ident);
var k: 0..BUDGET; e: entry;
begin
  k := find(l, x);
  if k != 0 then e := l.e[k]; remove_at(l, k); lru_append(l, e); endif;
end;

procedure lru_pop(var l: lru; x: ident);
var k: 0..BUDGET;
begin
  k := find(l, x);
  if k != 0 then remove_at(l, k); endif;
end;

procedure lru_put(var l: lru; e: entry);
begin
  lru_pop(l, e.id);
  if e.sz <= BUDGET then
    while used_bytes(l) + e.sz > BUDGET do remove_at(l, 1); endwhile;
    lru_append(l, e);
  endif;
end;

procedure new_pid(x: ident; w: ver; var p: pid);
begin
  p := 0;
  for q := 1 to NP do
    if p = 0 & isundefined(pc[q].id) then p := q; endif;
  endfor;
  assert p != 0 "the processing table is full: raise NP";
  pc[p].id := x;
  pc[p].v := w;
end;

procedure visit(var p: pid; var map: pidmap; var next: pid; old: contents);
begin
  if p != 0 then
    if map[p] = 0 then next := next + 1; map[p] := next; pc[next] := old[p]; endif;
    p := map[p];
  endif;
end;

-- processings renumbered by first appearance; those nothing holds are forgotten
procedure canon();
var map: pidmap; old: contents; next: pid;
begin
  for q := 1 to NP do map[q] := 0; old[q] := pc[q]; undefine pc[q]; endfor;
  next := 0;
  for i := 1 to BUDGET do
    if i <= shadow.n then visit(shadow.e[i].p, map, next, old); endif;
  endfor;
  for i := 1 to BUDGET do
    if i <= receiver.n then visit(receiver.e[i].p, map, next, old); endif;
  endfor;
  for m := 1 to NR do
    if m <= nmsg then
      for i: idx do
        visit(msg[m].w[i].d, map, next, old); visit(msg[m].w[i].ph, map, next, old);
      endfor;
    endif;
  endfor;
  for s: slot do
    for i: idx do
      visit(req[s].proc[i], map, next, old);
      visit(req[s].w[i].d, map, next, old); visit(req[s].w[i].ph, map, next, old);
    endfor;
  endfor;
end;

procedure forget(s: slot);
begin
  empty_request(s);
  watching[s] := false;
  for x: ident do listed[s][x] := false; endfor;
end;

function bypass(s: slot): boolean;
begin
  return BYPASS & req[s].retries > 0;
end;

function unfinished(): 0..NR;
var c: 0..NR;
begin
  c := 0;
  for s: slot do
    if req[s].st != S_FREE & req[s].st != S_DONE then c := c + 1; endif;
  endfor;
  return c;
end;

function mid_pipeline(): boolean;
begin
  return exists s: slot do req[s].st = S_PROCESSED | req[s].st = S_UPDATING endexists;
end;

-- probe the shadow; process the missed items (a missed item without media: client error)
procedure process_attempt(s: slot);
var bad: boolean; hit: flags; p: pid;
begin
  bad := false;
  for i: idx do
    hit[i] := false;
    if i <= req[s].n then
      hit[i] := find(shadow, req[s].it[i].id) != 0 & !bypass(s);
      if !hit[i] & !req[s].it[i].data then bad := true; endif;
    endif;
  endfor;
  if bad then forget(s); return; endif;
  for i: idx do
    if i <= req[s].n & !hit[i] then
      new_pid(req[s].it[i].id, req[s].it[i].v, p);
      req[s].proc[i] := p;
    endif;
  endfor;
  req[s].st := S_PROCESSED;
  req[s].done := 0;
end;

procedure record_and_send(s: slot; k: idx; p: pid);
var e: entry;
begin
  e.id := req[s].it[k].id;
  e.sz := psize(req[s].it[k].id, req[s].it[k].v, false);
  e.p := p;
  lru_put(shadow, e);
  req[s].w[k].id := e.id; req[s].w[k].d := p; req[s].w[k].ph := p;
end;

-- one item's shadow update (the first touches every identity and fixes the order);
-- the last one sends
procedure update_next_item(s: slot);
var bad: boolean; j: nidx; k: idx; x: ident; p: pid; pos: 0..BUDGET; fail: 0..2;
begin
  if req[s].done = 0 then
    if LATE_REPROCESS then
      bad := false;
      for i: idx do
        if i <= req[s].n then
          if req[s].proc[i] = 0 & !req[s].it[i].data & find(shadow, req[s].it[i].id) = 0
          then bad := true; endif;
        endif;
      endfor;
      if bad then forget(s); return; endif;
    endif;
    for i: idx do if i <= req[s].n then lru_touch(shadow, req[s].it[i].id); endif; endfor;
    j := 0;
    if REFS_FIRST & !bypass(s) then
      for i: idx do
        if i <= req[s].n then
          if find(shadow, req[s].it[i].id) != 0 then j := j + 1; req[s].ord[j] := i; endif;
        endif;
      endfor;
      for i: idx do
        if i <= req[s].n then
          if find(shadow, req[s].it[i].id) = 0 then j := j + 1; req[s].ord[j] := i; endif;
        endif;
      endfor;
    else
      for i: idx do if i <= req[s].n then j := j + 1; req[s].ord[j] := i; endif; endfor;
    endif;
  endif;
  k := req[s].ord[req[s].done + 1];
  x := req[s].it[k].id;
  p := req[s].proc[k];
  fail := 0;
  if p != 0 & bypass(s) then
    record_and_send(s, k, p);
  else
    pos := find(shadow, x);
    if pos != 0 then
      req[s].w[k].id := x; req[s].w[k].d := 0; req[s].w[k].ph := shadow.e[pos].p;
      lru_touch(shadow, x);
    else
      if p = 0 then
        if LATE_REPROCESS & !req[s].it[k].data then fail := 1;
        elsif !LATE_REPROCESS then fail := 2;
        else new_pid(x, req[s].it[k].v, p);
        endif;
      endif;
      if fail = 0 then record_and_send(s, k, p); endif;
    endif;
  endif;
  if fail = 2 then s3_bad := true; endif;
  if fail != 0 then forget(s); return; endif;
  req[s].done := req[s].done + 1;
  if req[s].done < req[s].n then
    req[s].st := S_UPDATING;
  else
    nmsg := nmsg + 1;
    msg[nmsg].s := s;
    msg[nmsg].n := req[s].n;
    for i: idx do msg[nmsg].w[i] := req[s].w[i]; endfor;
    req[s].st := S_IN_FLIGHT;
    for i: idx do clear req[s].proc[i]; clear req[s].ord[i]; clear req[s].w[i];
      undefine req[s].w[i].id; endfor;
    req[s].done := 0;
  endif;
end;

procedure handle_attempt(s: slot);
begin
  process_attempt(s);
  while req[s].st = S_PROCESSED | req[s].st = S_UPDATING do update_next_item(s); endwhile;
end;

-- a handled attempt rejected before it is sent (D2); undo: drop what it recorded
procedure reject(s: slot; undo: boolean);
var pos: 0..BUDGET;
begin
  handle_attempt(s);
  if req[s].st = S_IN_FLIGHT then
    if undo then
      for i: idx do
        if i <= msg[nmsg].n & msg[nmsg].w[i].d != 0 then
          pos := find(shadow, msg[nmsg].w[i].id);
          if pos != 0 then
            if shadow.e[pos].p = msg[nmsg].w[i].d then lru_pop(shadow, msg[nmsg].w[i].id); endif;
          endif;
        endif;
      endfor;
    endif;
    undefine msg[nmsg];
    nmsg := nmsg - 1;
    forget(s);
  endif;
end;

procedure resolve(var m: message; j: idx; var tensor: pids);
var e: entry; pos: 0..BUDGET;
begin
  if m.w[j].d != 0 then
    e.id := m.w[j].id;
    e.sz := psize(pc[m.w[j].d].id, pc[m.w[j].d].v, true);
    e.p := m.w[j].d;
    lru_put(receiver, e);
    tensor[j] := m.w[j].d;
  else
    pos := find(receiver, m.w[j].id);
    if pos != 0 then
      e := receiver.e[pos];
      lru_touch(receiver, m.w[j].id);
      if !TAGGED | e.p = m.w[j].ph then tensor[j] := e.p; endif;
    endif;
  endif;
end;

-- P1 takes message i of its queue and handles it
procedure deliver(i: 1..NR);
var m: message; tensor: pids; missed: idset; any: boolean; s: slot;
begin
  m := msg[i];
  for q := 1 to NR do if q >= i & q < nmsg then msg[q] := msg[q + 1]; endif; endfor;
  undefine msg[nmsg];
  nmsg := nmsg - 1;
  s := m.s;
  for j: idx do if j <= m.n then lru_touch(receiver, m.w[j].id); endif; tensor[j] := 0; endfor;
  for j: idx do
    if j <= m.n & (!REFS_FIRST | m.w[j].d = 0) then resolve(m, j, tensor); endif;
  endfor;
  if REFS_FIRST then
    for j: idx do if j <= m.n & m.w[j].d != 0 then resolve(m, j, tensor); endif; endfor;
  endif;
  any := false;
  for x: ident do missed[x] := false; endfor;
  for j: idx do
    if j <= m.n & tensor[j] = 0 then any := true; missed[m.w[j].id] := true; endif;
  endfor;
  if any then
    h1_bad := true;
    if watching[s] then l3_bad := true; endif;
    watching[s] := true;
  else
    watching[s] := false;
    for j: idx do
      if j <= m.n then
        if pc[tensor[j]].id != pc[m.w[j].ph].id | pc[tensor[j]].v != pc[m.w[j].ph].v
        then s1_bad := true; endif;
      endif;
    endfor;
  endif;
  nrep := nrep + 1;
  rep[nrep].s := s;
  rep[nrep].missed := missed;
end;

procedure take_reply();
var r: reply; s: slot; any: boolean;
begin
  r := rep[1];
  for q := 1 to NR do if q < nrep then rep[q] := rep[q + 1]; endif; endfor;
  undefine rep[nrep];
  nrep := nrep - 1;
  s := r.s;
  any := false;
  for x: ident do if r.missed[x] then any := true; endif; endfor;
  if !any then forget(s); return; endif;
  for x: ident do
    if r.missed[x] then
      lru_pop(shadow, x);
      if listed[s][x] then l2_bad := true; endif;
    endif;
  endfor;
  listed[s] := r.missed;
  if req[s].retries = RMAX then forget(s); return; endif;
  req[s].st := S_DONE;
  req[s].miss := true;
end;

procedure drift_event();
begin
  for s: slot do watching[s] := false; endfor;
end;

startstate
begin
  empty(shadow); empty(receiver); undefine pc;
  for s: slot do empty_request(s); watching[s] := false; clear listed[s]; endfor;
  nmsg := 0; nrep := 0;
  for m := 1 to NR do undefine msg[m]; undefine rep[m]; endfor;
  submitted := 0;
  s1_bad := false; h1_bad := false; s3_bad := false; l2_bad := false; l3_bad := false;
TSTEP_INIT
end;

"""

def _rule(name: str, guard: str, body: str, indent: str = "  ") -> str:
    """Rule `name` of the model: its guard (`@name@` marks where `_rules` puts the follow
    guard), then what every rule does first (the last delivery's flags cleared), `body`
    (its lines indented under `indent`), and last (`canon`: processings renumbered)."""
    lines = "".join(f"{indent}  {line}\n" for line in body.splitlines())
    return (f'{indent}rule "{name}" @{name}@{guard} ==>\n{indent}begin\n'
            f"{indent}  s1_bad := false; h1_bad := false;\n{lines}  canon();\n{indent}end;\n")


_RETRY_FLAGS = "for i: idx do req[s].it[i].data := i <= req[s].n; endfor;\n"
"""A retry's media flags: every item sends media."""

_SLOT_RULES = (
    ("P0Handle", "req[s].st = S_SUBMITTED", "handle_attempt(s);"),
    ("P0HandleRejected", "D2 & req[s].st = S_SUBMITTED", "drift_event();\nreject(s, false);"),
    ("P0HandleRejectedUndo", "D2 & req[s].st = S_SUBMITTED", "drift_event();\nreject(s, true);"),
    ("P0Process", "D6 & req[s].st = S_SUBMITTED", "drift_event();\nprocess_attempt(s);"),
    ("P0UpdateItem", "D6 & (req[s].st = S_PROCESSED | req[s].st = S_UPDATING)",
     "update_next_item(s);"),
    ("Retry", "req[s].st = S_DONE & req[s].miss & req[s].retries < RMAX",
     "req[s].st := S_SUBMITTED;\nreq[s].miss := false;\nreq[s].retries := req[s].retries + 1;\n"
     + _RETRY_FLAGS.rstrip("\n")),
)
"""The rules of one request slot `s`: (name, guard, body)."""

_RULES = (
    "\nruleset s: slot; k: 1..NK do\n"
    + _rule("Submit", "req[s].st = S_FREE & submitted < NR & unfinished() < NF",
            "if submit_drifts(k) then drift_event(); endif;\nload_request(s, k);\n"
            "submitted := submitted + 1;")
    + "endruleset;\n\nruleset s: slot do\n"
    + "\n".join(_rule(*rule) for rule in _SLOT_RULES)
    + "endruleset;\n\nruleset i: 1..NR do\n"
    + _rule("P1Receive", "i <= nmsg & (i = 1 | D1)",
            "if i > 1 then drift_event(); endif;\ndeliver(i);")
    + "endruleset;\n\n"
    + _rule("P0ReceiveReply", "nrep > 0", "take_reply();", indent="") + "\n"
    + _rule("ClearBoth", "nmsg = 0 & !mid_pipeline()", "empty(shadow); empty(receiver);",
            indent="") + "\n"
)
"""Every rule of the model, with `@name@` where `_rules` puts each one's follow guard."""
