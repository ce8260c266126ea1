"""`--environment D1+D2+...`: one flag name and one parser for every command that takes a
drift environment (`prove`, `explore`, `simulate`, `conform`).

An environment is drift ids joined by "+" (any order, any case: `d7+D2` is D2+D7), or
`none`; where a command has D5's router configuration, `D5-router` too. Older spellings
(`D2_D7`, `D5_router`, `ROUTER`) are accepted as aliases and read as the canonical one.
Each command keeps its older option name as an alias (`explore --env`), so existing command
lines still work. Parsing imports nothing heavy, so a bad environment is a usage error
before torch, z3 or Hypothesis is imported.
"""

from __future__ import annotations

import argparse

from spec import DRIFT_IDS as DRIFT_IDS

ROUTER = "D5-router"
"""D5's second configuration: one front end, two engines behind a router."""


class BadEnvironment(ValueError):
    """A malformed environment; the message is one line naming the valid ids."""


ROUTER_ALIASES = ("d5-router", "d5_router", "router")
"""Spellings of `ROUTER` accepted on input (any case): the canonical one, the Python
identifier form Hypothesis's class names use (`V1_D5_router`), and the constant's name."""


def parse_environment(text: str, *, router: bool = False) -> tuple[str, ...]:
    """`"D7+d2"` -> `("D2", "D7")`; `"none"` -> `()`; `"D5-router"` -> `("D5-router",)` when
    the command has the router configuration. The canonical spelling is
    `cells.environment_text`'s (drift ids joined by "+", `none`, `D5-router`); the older
    spellings are aliases: ids joined by "_" (`D2_D7`, as job labels and class names wrote
    them) and `ROUTER_ALIASES`. Raises `BadEnvironment` otherwise."""
    cleaned = text.strip()
    if cleaned.lower() == "none":
        return ()
    if router and cleaned.lower() in ROUTER_ALIASES:
        return (ROUTER,)
    ids = []
    for part in cleaned.replace("_", "+").split("+"):
        drift = part.strip().upper()
        if drift not in DRIFT_IDS:
            extra = f", {ROUTER}" if router else ""
            raise BadEnvironment(f"--environment: got {part.strip()!r}, expected "
                                 f"{DRIFT_IDS[0]}..{DRIFT_IDS[-1]} joined by '+', or none{extra}")
        ids.append(drift)
    return tuple(sorted(set(ids), key=lambda d: int(d[1:])))


def add_environment_argument(
    parser: argparse.ArgumentParser, *, alias: str | None = None, dest: str = "environment",
    repeatable: bool = True, help: str = "",
) -> None:
    """Add `--environment` (and the command's older spelling `alias`) to `parser`."""
    names = ["--environment", *([alias] if alias else [])]
    text = help or ("only this environment: drift ids joined by '+' (e.g. D1+D2+D9), or "
                    "'none'" + ("; repeatable" if repeatable else ""))
    if alias:
        text += f" ({alias} is the same option)"
    parser.add_argument(*names, dest=dest, metavar="D1+D2+...", default=None,
                        action="append" if repeatable else "store", help=text)
