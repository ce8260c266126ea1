"""What the concurrent runs of one `conform --threads`/`--async-clients` command exercised, and what
they did not: the report's "tested" block (text and `--json`), so that a pass says what it
covers.

`Tested.add(run)` takes each run's history and what its watcher saw (`concurrent.Watched`);
`lines()` names the mode and the schedules, the preemptions made, the shared locations
watched and the accesses noted, the split sections found and the clears run in their
windows and in flight, the restarts run while a serve was in flight and the clears made
while a call of the cleared side was open, the paths the histories took (outcomes, clears
and restarts per side), the engine's refusals and the choice the explanations took at each
(`explained`), and the paths they never took, the payload dtypes the processor made and
those the dtype sweep sized.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field

from model_checks.conform.codec import layout
from model_checks.history.concurrent import Run
from model_checks.history.explain import Explained

PATHS = (
    ("served", "a request served"),
    ("missed", "a miss reply (the engine missed a reference; the front end invalidated)"),
    ("rejected", "a client rejection (an identity sent without media that P0 does not hold)"),
    ("p0-assert", "P0's assertion (a probed hit gone at its update)"),
    ("refused", "the engine's refusal (D2: made only where the environment has D2, the "
                "engine declares how it refuses, `Refuses.refuse`, and the front end has its "
                "own end-to-end call)"),
)
"""The outcomes a serve can have, as the report names them."""

NEVER_DRIVEN = (
    "a request resent without media (the clients always send media)",
)
"""Paths no concurrent run drives, whatever the seed: named in every report."""

NO_RESTART_IN_FLIGHT = (
    "a restart while a call of the restarted side is open (made only where the environment "
    "has D10 and not D6, at a lock or an await once a serve reached the engine: none "
    "happened)")


@dataclass
class Tested:
    """The totals over the runs of one command (module docstring)."""

    mode: str
    histories: int = 0
    calls: int = 0
    preemptions: int = 0
    accesses: int = 0
    locations: set[str] = field(default_factory=set)
    unguarded: set[str] = field(default_factory=set)
    races: int = 0
    splits: set[str] = field(default_factory=set)
    windows: int = 0
    in_flight: int = 0
    restarts: int = 0
    """Restarts run while a serve was in flight."""
    open_clears: int = 0
    """Clears made while a call of the cleared side was open."""
    outcomes: Counter[str] = field(default_factory=Counter)
    events: Counter[str] = field(default_factory=Counter)
    dtypes: set[str] = field(default_factory=set)
    swept: tuple[str, ...] = ()
    """The dtypes the sweep sized (`dtypes.sweep`)."""
    seeds: list[int] = field(default_factory=list)
    choices: Counter[str] = field(default_factory=Counter)
    """The choice the explanations made at the refusals where keeping and undoing differ
    (`lockstep.choices.NAMES`)."""

    def explained(self, verdict: Explained) -> None:
        """The choices the spec allows that `verdict`'s explanation made at refusals (where
        keeping and undoing differ)."""
        self.choices.update(verdict.choices)

    refusals_read: int = 0
    """Refused calls whose shadow after the refusal was read (`log.Result.shadow_after`)."""

    def add(self, run: Run, seed: int) -> None:
        self.histories += 1
        self.refusals_read += sum(1 for c in run.history.calls
                                  if c.result.shadow_after is not None)
        self.seeds.append(seed)
        self.calls += len(run.history.calls)
        self.preemptions += run.preemptions
        for call in run.history.calls:
            if call.op == "serve":
                self.outcomes[call.result.fault if call.result.kind == "fault"
                              else call.result.kind] += 1
                for item in call.items:
                    self.dtypes.update(str(d).removeprefix("torch.")
                                       for _, d, _ in layout(item.bytes))
            else:
                self.events[f"{call.op} of {call.side}"] += 1
        watched = run.watched
        if watched is not None:
            self.accesses += watched.accesses
            self.locations.update(watched.locations)
            self.unguarded.update(watched.unguarded)
            self.races += len(watched.races)
            self.splits.update(f"{s.side}: {_top(s.first)} then {_top(s.second)}"
                               for s in watched.splits)
            self.windows += watched.windows
            self.in_flight += watched.in_flight
            self.restarts += watched.restarts
            self.open_clears += watched.open_clears

    def never(self) -> list[str]:
        """The paths no history took (the outcomes besides P0's assertion, which only a
        faulty front end takes), and those no run drives."""
        missing = [text for kind, text in PATHS if not self.outcomes[kind]
                   and kind != "p0-assert"]
        if not self.restarts:
            missing.append(NO_RESTART_IN_FLIGHT)
        return [*missing, *NEVER_DRIVEN]

    def refusal_text(self) -> str:
        """How many refusals ran, and the choice the explanations took at each."""
        refused = self.outcomes["refused"]
        if not refused:
            return "the engine's refusal: none made"
        taken = ", ".join(f"{name} x{n}" for name, n in sorted(self.choices.items()))
        return (f"the engine's refusal: {refused} requests refused after P0's update (D2), "
                f"{self.refusals_read} alone on their front end (the shadow the refusal left "
                f"compared with the spec's); the choice observed where keeping and undoing differ: "
                f"{taken or 'none'}")

    def lines(self) -> list[str]:
        seeds = (f"seeds {min(self.seeds)}-{max(self.seeds)}" if self.seeds else "no seeds")
        outcomes = ", ".join(f"{k} x{n}" for k, n in sorted(self.outcomes.items())) or "none"
        events = ", ".join(f"{k} x{n}" for k, n in sorted(self.events.items())) or "none"
        locations = ", ".join(sorted(self.locations)) or "none"
        splits = "; ".join(sorted(self.splits)) or "none"
        return [
            f"tested: {self.mode}, {self.histories} schedules ({seeds}), {self.calls} calls, "
            f"{self.preemptions} preemptions",
            f"tested: shared locations watched ({len(self.locations)}): {locations}; "
            f"{self.accesses} accesses checked for races (lockset): {self.races} races; "
            f"accessed only without a lock (each operation taken as atomic, races not "
            f"reported): {', '.join(sorted(self.unguarded)) or 'none'}",
            f"tested: split front-end sections: {splits}; {self.windows} clears run in their "
            f"windows; {self.in_flight} engine clears between an update and its receive",
            f"tested: in flight: {self.restarts} restarts while a serve was open (of the "
            f"engine, inside or before its receive; of the serving front end, past its send); "
            f"{self.open_clears} clears while a call of the cleared side was open",
            f"tested: outcomes {outcomes}; events {events}",
            f"tested: {self.refusal_text()}",
            f"tested: payload dtypes {', '.join(sorted(self.dtypes)) or 'none'} in the "
            f"histories (the harness's processor); sized in bytes against the budget, one "
            f"call at a time: {', '.join(self.swept) or 'none'}",
            f"never tested: {'; '.join(self.never())}",
        ]

    def to_json(self) -> dict[str, object]:
        return {"mode": self.mode, "schedules": self.histories, "seeds": self.seeds,
                "calls": self.calls, "preemptions": self.preemptions,
                "locations": sorted(self.locations), "accesses": self.accesses,
                "unguarded": sorted(self.unguarded),
                "races": self.races, "splits": sorted(self.splits), "windows": self.windows,
                "in_flight_clears": self.in_flight, "in_flight_restarts": self.restarts,
                "open_clears": self.open_clears, "outcomes": dict(self.outcomes),
                "events": dict(self.events), "dtypes": sorted(self.dtypes),
                "swept": list(self.swept), "refused": self.outcomes["refused"],
                "refusals_read": self.refusals_read,
                "refusal_choices": dict(self.choices),
                "never": self.never()}


def _top(stack: tuple[tuple[str, int, str], ...]) -> str:
    """The outermost frame of the implementation's in `stack`."""
    if not stack:
        return "?"
    file, line, function = stack[-1] if len(stack) > 1 else stack[0]
    return f"{os.path.basename(file)}:{line} {function}"
