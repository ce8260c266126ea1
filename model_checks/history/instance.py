"""A history as a spec instance: the configuration its calls need, and each request's items.

Identities are the ones the requests name, in order of first appearance; an identity's
contents are its labels, in order of first appearance (the first is version 0; a second is
identity reuse, D7); each content's size is the bytes logged for it (one value per content:
the log is refused otherwise). The configuration names the drift sources the instance itself
needs (`configuration_drift`: D5 for a second front end, D7 for a reused identity, D11 for
an item over the budget), so a log that needs one outside the environment is answered
("not explained: the log needs D7 ...") before any search.
"""

from __future__ import annotations

from dataclasses import dataclass

from model_checks.history.log import History, LogError
from spec import Config, Content, Drift, InvalidConfiguration, ItemSize, variant_named
from spec.state import ClientItem


@dataclass(frozen=True)
class Instance:
    """`config`, the `items` of every serve call (by call number), `labels` (a content's
    label by (identity, version)), and `needs`: the drift the instance itself shows."""

    config: Config
    items: dict[int, tuple[ClientItem, ...]]
    labels: dict[tuple[str, int], str]
    needs: frozenset[Drift]

    def label(self, content: Content) -> str:
        return self.labels[(content.identity, content.version)]


class NeedsDrift(ValueError):
    """The instance needs drift the environment does not have: the message says which."""


def notation_version(identity: str, label: str) -> int | None:
    """The version a label written in the one notation names (`a` 0, `a@2` 2), or None."""
    if label == identity:
        return 0
    head, _, tail = label.rpartition("@")
    return int(tail) if head == identity and tail.isdigit() and int(tail) > 0 else None


def _versions(labels: list[str], identity: str) -> list[str]:
    """The labels of one identity by version: notation labels at their own version, any
    other label at the next free version, in order of first appearance."""
    slots: dict[int, str] = {}
    for label in labels:
        version = notation_version(identity, label)
        if version is not None:
            slots[version] = label
    free = (v for v in range(len(labels) + max(slots, default=0) + 1) if v not in slots)
    for label in labels:
        if notation_version(identity, label) is None:
            slots[next(free)] = label
    top = max(slots) + 1
    return [slots.get(v, f"{identity}@{v}") for v in range(top)]


def _contents(history: History) -> tuple[list[str], dict[str, list[str]], dict[Content, int]]:
    identities: list[str] = []
    seen: dict[str, list[str]] = {}
    for call in history.calls:
        for item in call.items:
            if item.identity not in seen:
                identities.append(item.identity)
                seen[item.identity] = []
            if item.content not in seen[item.identity]:
                seen[item.identity].append(item.content)
    labels = {identity: _versions(found, identity) for identity, found in seen.items()}
    sizes: dict[Content, int] = {}
    for call in history.calls:
        for item in call.items:
            content = Content(item.identity, labels[item.identity].index(item.content))
            if sizes.setdefault(content, item.bytes) != item.bytes:
                raise LogError(f"call {call.number}: got {item.bytes} bytes for content "
                               f"{item.content!r} of {item.identity!r}, expected "
                               f"{sizes[content]} as logged before (one size per content)")
    return identities, labels, sizes


def configuration_drift(history: History, versions: int, sizes: dict[Content, int]
                        ) -> frozenset[Drift]:
    """The drift sources the instance needs: D5 (two front ends), D7 (a reused identity),
    D11 (an item over the budget)."""
    needs = set()
    if history.header.front_ends > 1:
        needs.add(Drift.D5)
    if versions > 1:
        needs.add(Drift.D7)
    if any(size > history.header.budget for size in sizes.values()):
        needs.add(Drift.D11)
    return frozenset(needs)


def instance_of(history: History, environment: frozenset[Drift]) -> Instance:
    """The spec instance of `history` in `environment`; `NeedsDrift` if the instance needs
    drift outside it, `LogError` if the log contradicts itself."""
    identities, labels, sizes = _contents(history)
    versions = max((len(v) for v in labels.values()), default=1)
    needs = configuration_drift(history, versions, sizes)
    missing = needs - environment
    if missing:
        ids = ", ".join(sorted((d.value for d in missing), key=lambda d: int(d[1:])))
        raise NeedsDrift(f"the log needs {ids} (" + "; ".join(
            d.title for d in sorted(missing, key=lambda d: int(d.value[1:])))
            + "), outside the environment checked")
    serves = [c for c in history.calls if c.op == "serve"]
    items = {c.number: tuple(ClientItem(i.identity, labels[i.identity].index(i.content),
                                        i.media) for i in c.items) for c in serves}
    try:
        config = Config(
            identities=tuple(identities) or ("a",), budget=history.header.budget,
            sizes=tuple(ItemSize(c, s, s) for c, s in sizes.items() if s != 1),
            versions=versions, variant=variant_named(history.header.variant),
            environment=environment, max_retries=0, max_in_flight=max(1, len(serves)),
            max_requests=max(1, len(serves)),
            max_items=max((len(c.items) for c in serves), default=1),
            front_ends=history.header.front_ends)
    except InvalidConfiguration as error:
        raise NeedsDrift(str(error)) from None
    names = {(i, v): label for i, ls in labels.items() for v, label in enumerate(ls)}
    return Instance(config, items, names, needs)
