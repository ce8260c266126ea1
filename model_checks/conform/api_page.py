"""The adapter interface as docs/conformance.md lists it, generated from `adapter.py`.

`interface_region()` renders, from the module itself (never restated): the interface version
(`adapter.ADAPTER_API`), every value type crossing the interface with each field and its
type, and every method of the protocols with its parameters. `splice(text)` puts it between
`BEGIN` and `END` of the hand-written page; `python -m model_checks docs` writes it and
`docs --check` fails when it is stale.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import itertools

BEGIN = "<!-- adapter interface: generated from model_checks/conform/adapter.py -->"
END = "<!-- end of the adapter interface -->"
PAGE = "conformance.md"

VALUES = ("Setup", "ItemIn", "WireItem", "WireMessage", "ShadowEntry", "ReceiverEntry",
          "ModelInput", "Served", "Missed", "ClientRejected", "Fault")
"""The value types, in the order a request meets them."""

PROTOCOLS = ("Adapter", "FrontEndSide", "EngineSide", "ItemUpdates", "ClientLoop", "ClientRetry",
             "EndToEnd", "Refuses")


def _doc(obj: object) -> str:
    return " ".join((inspect.getdoc(obj) or "").split())


def _cell(text: str) -> str:
    """Text inside a table cell: a `|` escaped (union types)."""
    return text.replace("|", "\\|")


def _methods(protocol: type) -> list[str]:
    rows = []
    for name, member in protocol.__dict__.items():
        if name.startswith("_") or not callable(member):
            continue
        signature = inspect.signature(member)
        params = ", ".join(p for p in signature.parameters if p != "self")
        returns = signature.return_annotation
        doc = _doc(member)
        rows.append(f"| `{name}({params})` | `{_cell(str(returns))}` | {_cell(doc)} |")
    return rows


def _aliases() -> list[str]:
    """The type aliases of `payload.py` (`Payload`, `Process`), each with its value (written
    as a string there, for the type checker alone) and the docstring under it in the source
    (aliases keep no docstring at run time)."""
    from model_checks.conform import payload

    body = ast.parse(inspect.getsource(payload)).body
    lines = []
    for node, after in itertools.pairwise(body):
        if (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
                and isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)):
            value = ("" if node.value is None else str(node.value.value)
                     if isinstance(node.value, ast.Constant) else ast.unparse(node.value))
            lines.append(f"- `{node.target.id}` = `{_cell(value)}`: "
                         f"{' '.join(str(after.value.value).split())}")
    return lines


def interface_region() -> str:
    """The generated region (markers included)."""
    from model_checks.conform import adapter

    lines = [BEGIN, "", f"Adapter interface version **{adapter.ADAPTER_API}** "
             "(`model_checks.conform.adapter.ADAPTER_API`; `load_adapter` checks every method "
             "below and its parameters, and refuses an adapter whose `api_version` names "
             "another version).", "", "Value types (frozen dataclasses of `adapter.py`):", "",
             "| type | field | type of the field |", "|---|---|---|"]
    for name in VALUES:
        cls = getattr(adapter, name)
        for number, f in enumerate(dataclasses.fields(cls)):
            label = f"`{name}`" if number == 0 else ""
            lines.append(f"| {label} | `{f.name}` | `{_cell(str(f.type))}` |")
    lines += ["", "Type aliases (`model_checks/conform/payload.py`, also importable from "
              "`adapter.py`):", "", *_aliases()]
    lines += ["", "What each type is:", ""]
    lines += [f"- `{name}`: {_doc(getattr(adapter, name))}" for name in VALUES]
    for name in PROTOCOLS:
        protocol = getattr(adapter, name)
        lines += ["", f"`{name}`: {_doc(protocol)}", "", "| method | returns | contract |",
                  "|---|---|---|", *_methods(protocol)]
    return "\n".join([*lines, "", END])


def splice(text: str) -> str:
    """`text` with its region replaced by `interface_region()`; ValueError if it has none."""
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise ValueError(f"{PAGE}: no region between {BEGIN!r} and {END!r}")
    return text[:start] + interface_region() + text[end + len(END):]
