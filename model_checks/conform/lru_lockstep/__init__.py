"""The LRU design's lockstep binding: the spec and an implementation driven side by side,
action for action, by the one lockstep driver (`model_checks.conform.design_lockstep`).

The binding declares the driver's optional capabilities (`design_lockstep.Stepping`,
`Settling`): an implementation step may take several spec steps (an atomic update's item
steps), a step the spec offers a choice for is matched with the spec rewound and the
properties broken while it ran judged once the choice is known, the run's observer finds a
disagreement in the middle of a step, and a run ends settled, with L4. The one `take_step`
and `settle` drive it; its scripts are followed by the one `follow`. It owns the client and
the channel between the sides; the first difference raises `Disagreement`, labelled with the
step, the action and both observations.

One module per concern:

- `implementation`: spec actions -> adapter calls (`ACTION_CALLS`, one entry per action
  class), the client's attempts and the channel between the sides.
- `views`: both sides' observations in one shape, and the tag bijection.
- `calls`: a trace in the adapter's calls, a standalone pytest file (`--emit-pytest`).
- `notation`: both sides' observations written in the one trace notation (a
  disagreement's report).
- `properties`: S1-S3 restated on the implementation's own observations.
- `monitors`: L1-L4 restated as monitors over the implementation's events.
- `judged`: how the binding judges each property (on the implementation's own observations,
  or on the spec's trace it matched), conformance's table of the properties it judges.
- `observer`: the spec's run so far (`SpecRun`) and the observer that judges the
  implementation's events against it as they happen (`RunObserver`).
- `driver`: `Lockstep`, the binding's run (`Stepping`, `Settling`), which ties the above
  together.
- `choices`: where the spec allows a correct implementation a choice (keep or undo the
  shadow update on a rejection; under D9, serve a reference that misses the cache from its
  own message's payload), the alternatives of a step, which the one driver matches to
  the implementation's step, and the run counts.
- `runs`: scripts, the binding's `Session` followed by the one lockstep run of
  `model_checks.conform.design_lockstep`, `run_script` (a round trip through the end-to-end
  call, or an atomic update's item steps, is one step of several actions), into its
  `Outcome`; shrinking; `disagreement`: what a run reports (a step the run cannot drive is
  the one driver's `NotDriven`).
- `cases`: the binding's conformance cases per variant (the scenario corpus, the committed
  witnesses, generated walks on the configurations it chooses per deployment); `run`: what
  its cases showed, taken by the one run loop (`conform.run`), and their verdict records;
  `report` and `weakness`: its safety verdicts per property, judged against the project's
  answers (an inherited weakness and what removes it); `command`: its runs as the one
  `conform` command runs them (`designs.lockstep_bindings`).
- `corpus`: its scripted corpus (scenarios, spec mutants' witnesses, conformance's own
  scripts) and its committed witnesses as runs, continued and mutated.
- `trace_files`: a run's failures written as trace files, and `conform --replay` of one.
- `unchecked`: the optional parts of its adapter interface, and what each leaves unverified
  where an adapter lacks it.

Mapping of spec actions onto the implementation (docs/conformance.md has the full table):

- Submit -> a client request: media for items sent with data, UUID only otherwise.
- P0Handle -> probe + update; P0HandleRejected and P0HandleRejectedUndo -> the same, then
  abandon (D2): the implementation keeps or undoes its update, and the driver takes the
  choice that agrees.
- P0Process -> probe (D6); P0UpdateItem -> one item's update (`update_item`, where the front
  end offers `adapter.ItemUpdates`). A front end whose update is atomic takes all of an
  update's item steps in one `update`; a replay that interleaves another step between them
  stops there (`not_followed`).
- P1Receive(i) -> the engine receives the i-th message of the channel (i > 0: D1);
  P1ReceiveOwnPayload(i) (D9) -> the same: whether the receiver serves a reference that
  misses from its own message's payload is its choice, which the driver matches.
- P0ReceiveReply -> the front end takes the oldest reply.
- Retry -> the client resends: through the implementation's own retry loop
  (`adapter.ClientLoop`) or resend builder (`adapter.ClientRetry`), else with media on every
  item (the retry helper's semantics).
- ClearBoth, P0Clear, P1Clear, P0ClearForReset, P1Reset, P0Restart, P1Restart -> clear()
  or restart() of the matching side at that moment.
- D9: the channel re-encodes each payload to the spec's P1 size (`codec.resize_payload`).

Tags: the spec's tags are processing ids, the implementation's are its own values; a bijection
is learnt whenever both sides create a payload for the same item, and every tag is compared
through it.

This package's public names are the ones below; the modules are its parts. Loading them loads
no torch (`conform.codec` imports it where it makes tensors), so that the `conform` command
checks its arguments before torch or the adapter loads.
"""

from model_checks.conform.lru_lockstep.disagreement import Broken, Disagreement, steps_text
from model_checks.conform.lru_lockstep.driver import SPEC_JUDGED, Lockstep
from model_checks.conform.lru_lockstep.implementation import EngineFactory
from model_checks.conform.lru_lockstep.runs import (
    Driving,
    Ran,
    Session,
    not_followed,
    raised,
    replay,
    session,
    shrink,
    spec_trace,
)

__all__ = ["SPEC_JUDGED", "Broken", "Disagreement", "Driving", "EngineFactory", "Lockstep", "Ran",
           "Session", "not_followed", "raised", "replay", "session", "shrink", "spec_trace",
           "steps_text"]
