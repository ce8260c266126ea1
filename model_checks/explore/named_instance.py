"""Instances a user names on the command line (`explore --instance KEY=VALUE,...`), built by
the one instance builder (`spec.instances.realise`, through `kernel.instance.config_for`).

The text names every bound of the instance; each key is a field of the builder's `Family`:

- `identities=N`: the first N identities a, b, c, ... (`Family.identities`);
- `requests=N`: requests per run (`max_requests`);
- `unfinished=N`: unfinished requests at once (`max_in_flight`);
- `items=N`: items per request, exactly (`max_items` with `Items.FIXED`: not raised to what a
  drift source needs; the verdict names the instance searched);
- `retries=N`: retries of a missed request (`max_retries`);
- `budget=N`: bytes of every cache (`budget`);
- `size=ID[@V]:P0/P1` (optional, repeatable): one content's bytes on P0 and P1 (`sizes`).

The six bounds are required (an instance is named whole, never completed from defaults);
what the environment adds is the builder's, as for the matrix's family
(`kernel.instance.MATRIX_FAMILY`): D7's second content per identity, D5's front ends or
engines, and the matrix's sizes per drift source for the contents `size=` does not name. Bad
text is an `InstanceTextError` whose message says how to fix it.

The LRU design's declaration of the instances a user names, read through its
`design_explorer.DesignExplorer` (`lru_explore`).
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass, replace

from model_checks.kernel.instance import MATRIX_FAMILY, config_for
from spec import Config, Content, ItemSize, Variant
from spec.instances import Family, Items, Sized

BOUNDS = {"identities": 1, "requests": 1, "unfinished": 1, "items": 1, "retries": 0,
          "budget": 1}
"""The required keys, in the order the canonical text gives them, with each one's least
value."""
SIZE = "size"
NAMES = string.ascii_lowercase
"""Identity names, in order: the matrix's a, b, c, then on."""
EXAMPLE = "identities=3,requests=3,unfinished=2,items=1,retries=2,budget=2"
INSTANCE_HELP = (f"explore this one instance instead of the profile's, e.g. --instance {EXAMPLE}"
                 "[,size=c:3/3]; keys: identities, requests, unfinished, items, retries, "
                 "budget (all required), size=ID[@V]:P0/P1 (repeatable); needs one --variant "
                 "and one --environment; exit 4 on a break (docs/explore.md)")
_SIZE_VALUE = re.compile(r"^([a-z])(?:@(\d+))?:(\d+)/(\d+)$")


class InstanceTextError(ValueError):
    """`--instance` text that names no instance; the message says how to fix it."""


@dataclass(frozen=True)
class NamedInstance:
    """An instance as a user names it: the six bounds and the sizes `size=` gives."""

    identities: int
    requests: int
    unfinished: int
    items: int
    retries: int
    budget: int
    sizes: tuple[ItemSize, ...] = ()

    def text(self) -> str:
        """The canonical text (`parse` reads it back to this instance)."""
        bounds = ",".join(f"{key}={getattr(self, key)}" for key in BOUNDS)
        return ",".join([bounds, *(f"{SIZE}={_size_text(s)}" for s in self.sizes)])

    def family(self) -> Family:
        """The builder's family for this instance: the matrix's, with these bounds, these
        identities, exactly these items, and the named sizes before the matrix's."""
        named = {s.content for s in self.sizes}
        return replace(
            MATRIX_FAMILY, identities=tuple(NAMES[: self.identities]), budget=self.budget,
            max_requests=self.requests, max_in_flight=self.unfinished,
            max_retries=self.retries, max_items=self.items, items=Items.FIXED,
            sizes=(*(Sized(s.content, s.shadow_bytes, s.receiver_bytes) for s in self.sizes),
                   *(s for s in MATRIX_FAMILY.sizes if s.content not in named)),
        )

    def config(self, variant: Variant, env: tuple[str, ...]) -> Config:
        """The configuration for `variant` in a matrix environment (drift ids, `ROUTER`):
        `InstanceTextError` where a named size is of a content the instance does not have or
        the spec refuses the instance."""
        try:
            config = config_for(variant, env, family=self.family())
        except ValueError as error:
            raise InstanceTextError(f"--instance {self.text()}: {error}") from None
        for size in self.sizes:
            if size not in config.sizes:
                raise InstanceTextError(
                    f"--instance: size={_size_text(size)} names a content this instance does "
                    f"not have (identities {','.join(config.identities)}, "
                    f"{config.versions} content(s) per identity): raise identities= or drop it")
        return config


def parse(text: str) -> NamedInstance:
    """The instance `text` names (`KEY=VALUE` joined by commas; module docstring), or an
    `InstanceTextError` naming the fix: an unknown, repeated or missing key, or a bad value."""
    bounds: dict[str, int] = {}
    sizes: list[ItemSize] = []
    for entry in (e.strip() for e in text.split(",")):
        key, equals, value = entry.partition("=")
        key, value = key.strip(), value.strip()
        if not equals:
            raise InstanceTextError(f"--instance: {entry!r} is not KEY=VALUE; write e.g. "
                                    f"{EXAMPLE}")
        if key == SIZE:
            sizes.append(_size(value, sizes))
        elif key in BOUNDS:
            if key in bounds:
                raise InstanceTextError(f"--instance: {key}= is given twice; give it once")
            bounds[key] = _bound(key, value)
        else:
            raise InstanceTextError(f"--instance: unknown key {key!r}; the keys are "
                                    f"{', '.join(BOUNDS)} and {SIZE}")
    missing = [key for key in BOUNDS if key not in bounds]
    if missing:
        raise InstanceTextError(f"--instance: missing {', '.join(k + '=N' for k in missing)}; "
                                f"name every bound, e.g. {EXAMPLE}")
    return NamedInstance(**bounds, sizes=tuple(sizes))


def _bound(key: str, value: str) -> int:
    least = BOUNDS[key]
    most = len(NAMES) if key == "identities" else None
    if not value.isdigit() or int(value) < least or (most is not None and int(value) > most):
        within = f"from {least} to {most}" if most is not None else f"at least {least}"
        raise InstanceTextError(f"--instance: {key}={value!r} is not a whole number {within}; "
                                f"write e.g. {key}={max(least, 2)}")
    return int(value)


def _size(value: str, earlier: list[ItemSize]) -> ItemSize:
    match = _SIZE_VALUE.match(value)
    if match is None or int(match[3]) < 1 or int(match[4]) < 1:
        raise InstanceTextError(f"--instance: size={value!r} is not IDENTITY[@VERSION]:P0/P1 "
                                "with positive bytes; write e.g. size=c:3/3 or size=b@1:2/2")
    size = ItemSize(Content(match[1], int(match[2] or 0)), int(match[3]), int(match[4]))
    if any(s.content == size.content for s in earlier):
        raise InstanceTextError(f"--instance: size= names {_content_text(size.content)} twice; "
                                "give each content's size once")
    return size


def _content_text(content: Content) -> str:
    return content.identity + (f"@{content.version}" if content.version else "")


def _size_text(size: ItemSize) -> str:
    return f"{_content_text(size.content)}:{size.shadow_bytes}/{size.receiver_bytes}"
