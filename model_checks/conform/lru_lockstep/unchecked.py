"""Every part of an implementation a run could not exercise, and what that leaves unverified:
the LRU binding's declaration of its adapter interface's optional parts.

Each optional interface of an adapter (`adapter.ClientLoop`, `ClientRetry`, `ItemUpdates`,
`EndToEnd`; in the concurrent modes, the yield hook's `attach`) lets the harness run one more
part of the implementation. Where it is absent the harness does that part itself, or does not
do it, and a property judged there is judged on the harness's behaviour, not the
implementation's. `absent` lists those parts for an adapter; every report names them (text
and `--json`), and `--require` of a property whose check needs one is a usage error naming
the missing method (`needing`): a property is never "kept" on code that never ran.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from model_checks.conform import adapter as api


@dataclass(frozen=True)
class Part:
    """One optional part: the method an adapter offers for it (`hook`, on `interface`),
    the part of the implementation it runs (`part`), what stays unverified without it
    (`unverified`), and the properties whose check needs it (`needed_by`: `--require` of
    one is a usage error where the part is absent)."""

    hook: str
    interface: str
    part: str
    unverified: str
    needed_by: frozenset[str] = frozenset()

    def to_json(self) -> dict[str, object]:
        return {"hook": self.hook, "interface": self.interface, "part": self.part,
                "unverified": self.unverified, "properties": sorted(self.needed_by)}

    def line(self) -> str:
        return f"{self.part} ({self.interface}.{self.hook}): {self.unverified}"


RETRY_LOOP = Part(
    "retry_loop", "ClientLoop", "the client's retry loop",
    "the harness resends by itself (with ClientRetry, the client's resend of one attempt, "
    "else media on every item), so which attempt the client resends, how often and when it "
    "gives up are never run: L1, L3 and L4 are judged on the harness's resends",
    frozenset({"L1", "L3", "L4"}))
RETRY_ITEMS = Part(
    "retry_items", "ClientRetry", "the client's resend of a missed attempt",
    "without it (and without ClientLoop) a resend carries media on every item, whatever the "
    "client would send")
ITEM_UPDATES = Part(
    "update_item", "ItemUpdates", "item-level updates",
    "an update is driven whole: other requests' updates between two items of one update "
    "(D6) are never run, and a trace that needs them stops there (exit 5 on --replay)")
END_TO_END = Part(
    "serve", "EndToEnd", "the end-to-end call",
    "the implementation's own wiring of probe, update, receive and reply is not run: the "
    "served cases are skipped and the concurrent modes call the four steps in turn")
YIELD_HOOK = Part(
    "attach", "yield hook", "evictions as they happen",
    "a side without the hook reports no evictions, so a history's evictions are not "
    "compared with the spec's (switches come from the controlled scheduler's tracing)")

CLIENT_RESENDS = Part(
    "retry_loop", "ClientLoop", "the client's retry loop",
    "the concurrent clients resend a missed request themselves (at most twice, media on "
    "every item), whatever the adapter offers: L1-L4 are not judged on a history")

LOCKSTEP_PARTS = (RETRY_LOOP, RETRY_ITEMS, ITEM_UPDATES, END_TO_END)

_OFFERS: dict[str, Callable[[object], bool]] = {
    "retry_loop": lambda side: isinstance(side, api.ClientLoop),
    "retry_items": lambda side: isinstance(side, (api.ClientRetry, api.ClientLoop)),
    "update_item": lambda side: isinstance(side, api.ItemUpdates),
    "serve": lambda side: isinstance(side, api.EndToEnd),
}


def absent(adapter: api.Adapter, variants: Iterable[str],
           parts: tuple[Part, ...] = LOCKSTEP_PARTS) -> tuple[Part, ...]:
    """The parts of `parts` that the adapter's front end lacks (built for the first of
    `variants` it supports). The yield hook is judged on a run's sides instead
    (`model_checks.history.concurrent.Sides.hooked`): the harness hooks the reference
    itself."""
    from model_checks.conform.codec import process_media

    variant = next((v for v in variants if api.supports(adapter, v)), None)
    if variant is None:
        return ()
    front_end = api.build_front_end(adapter, api.Setup(2, variant, 1, process_media), 0)
    return tuple(p for p in parts if p.hook in _OFFERS and not _OFFERS[p.hook](front_end))


def needing(required: Iterable[str], missing: Iterable[Part]) -> str | None:
    """The usage error for a required property whose check needs a missing part, or None."""
    for part in missing:
        needed = sorted(set(required) & part.needed_by)
        if needed:
            return (f"--require {','.join(needed)}: its check needs {part.part} "
                    f"({part.interface}.{part.hook}), which the adapter's front end does not "
                    f"offer; add {part.hook} to it or drop {','.join(needed)} from --require")
    return None


def lines(missing: tuple[Part, ...]) -> list[str]:
    """The report's block: each part not exercised and what it leaves unverified."""
    if not missing:
        return ["unchecked parts: none (every optional interface is offered)"]
    return ["unchecked parts (an optional interface absent; what that leaves unverified):",
            *(f"  {p.line()}" for p in missing)]


LOCKSTEP_UNTESTED = (
    "concurrency: lockstep makes one call at a time from one thread, so a pass says the "
    "sequential protocol is right, not that the pair is thread-safe (`--threads N` and "
    "`--async-clients N` check races and split front-end sections)",
    "payload dtypes other than the harness's processor's (float32, int16, uint8): "
    "`--threads` and `--async-clients` size the others first (a dtype sweep)",
)
"""What no lockstep run exercises, whatever the adapter offers: every lockstep report names
it."""


def refusal_line(refusals: int) -> str:
    """Whether lockstep made the engine refuse (D2) through the front end's own call."""
    if refusals:
        return (f"the engine's refusal (D2): {refusals} rejections run through the front "
                "end's own end-to-end call, the engine refusing (`Refuses.refuse`)")
    return ("the engine's refusal (D2): never run through the front end's own refusal path "
            "(the engine declares no `Refuses.refuse`, its front end has no `serve`, or no "
            "rejection was taken); a rejection called `abandon` instead")


def lockstep_untested_lines(refusals: int = 0) -> list[str]:
    """The lockstep report's block of what it never tests (`refusals`: the rejections run
    through the front end's own refusal path, `refusal_line`)."""
    return ["not tested by lockstep:", *(f"  {line}" for line in LOCKSTEP_UNTESTED),
            f"  {refusal_line(refusals)}" if not refusals else
            f"tested by lockstep: {refusal_line(refusals)}"]
