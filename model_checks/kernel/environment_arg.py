"""`--environment D1+D2+...`: one flag name and one parser for every command that takes a
drift environment (`prove`, `explore`, `simulate`, `conform`).

An environment is drift ids joined by "+" (any order, any case: `d7+D2` is D2+D7), or
`none`; where a command has D5's router configuration, `D5-router` too. That is the one
spelling: an older one (`D2_D7`, `D5_router`, `ROUTER`) is a usage error that names it.
The option has no other name, and the command line takes no abbreviation of it. Parsing
imports nothing heavy, so a bad environment is a usage error before torch, z3 or Hypothesis
is imported.
"""

from __future__ import annotations

import argparse

from spec import DRIFT_IDS as DRIFT_IDS

ROUTER = "D5-router"
"""D5's second configuration: one front end, two engines behind a router."""


class BadEnvironment(ValueError):
    """A malformed environment; the message is one line naming the valid ids."""


OLDER_ROUTER = ("d5_router", "router")
"""Older spellings of `ROUTER` (any case): the Python identifier form Hypothesis's class names
use (`V1_D5_router`), and the constant's name. Not read: named in the error."""


def parse_environment(text: str, *, router: bool = False) -> tuple[str, ...]:
    """`"D7+d2"` -> `("D2", "D7")`; `"none"` -> `()`; `"D5-router"` -> `("D5-router",)` when
    the command has the router configuration. The one spelling is
    `cells.environment_text`'s (drift ids joined by "+", `none`, `D5-router`), in any case
    and order. Raises `BadEnvironment` otherwise, naming the spelling where `text` is an
    older one (`older_environment`)."""
    cleaned = text.strip()
    if cleaned.lower() == "none":
        return ()
    if router and cleaned.lower() == ROUTER.lower():
        return (ROUTER,)
    ids = []
    for part in cleaned.split("+"):
        drift = part.strip().upper()
        if drift not in DRIFT_IDS:
            current = older_environment(cleaned, router=router)
            if current is not None:
                raise BadEnvironment(f"--environment: got {cleaned!r}, an older spelling: "
                                     f"write {current}")
            extra = f", {ROUTER}" if router else ""
            raise BadEnvironment(f"--environment: got {part.strip()!r}, expected "
                                 f"{DRIFT_IDS[0]}..{DRIFT_IDS[-1]} joined by '+', or none{extra}")
        ids.append(drift)
    return tuple(sorted(set(ids), key=lambda d: int(d[1:])))


def older_environment(text: str, *, router: bool = False) -> str | None:
    """The one spelling of `text` where it is an older spelling of an environment (ids joined
    by "_", as job labels and class names once wrote them: `D2_D7` -> `D2+D7`; `OLDER_ROUTER`
    -> `D5-router` when the command has the router configuration), else None."""
    cleaned = text.strip()
    if router and cleaned.lower() in OLDER_ROUTER:
        return ROUTER
    if "_" not in cleaned:
        return None
    try:
        return "+".join(parse_environment(cleaned.replace("_", "+"), router=router))
    except BadEnvironment:
        return None


def add_environment_argument(
    parser: argparse.ArgumentParser, *, dest: str = "environment", repeatable: bool = True,
    help: str = "",
) -> None:
    """Add `--environment` to `parser`."""
    text = help or ("only this environment: drift ids joined by '+' (e.g. D1+D2+D9), or "
                    "'none'" + ("; repeatable" if repeatable else ""))
    parser.add_argument("--environment", dest=dest, metavar="D1+D2+...", default=None,
                        action="append" if repeatable else "store", help=text)
