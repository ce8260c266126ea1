"""The reference's help() text is in a user's words: no docstring of the package speaks of
documents a user does not have (a brief) or calls code by a nickname only the project uses
without saying what it is."""

from __future__ import annotations

import inspect
import re

import pytest

import reference

INTERNAL = re.compile(r"\bthe brief\b|\bof the brief\b|\bthe seed\b|\bseed's\b", re.I)


def docstrings() -> dict[str, str]:
    found = {}
    for name in reference.__all__:
        value = getattr(reference, name)
        found[name] = inspect.getdoc(value) or ""
        if inspect.isclass(value):
            for attr, member in vars(value).items():
                doc = inspect.getdoc(member) if callable(member) or isinstance(
                    member, property) else None
                if doc:
                    found[f"{name}.{attr}"] = doc
    found["reference"] = inspect.getdoc(reference) or ""
    return found


def internal_words(text: str) -> list[str]:
    return INTERNAL.findall(text)


def test_no_help_text_speaks_in_internal_words() -> None:
    bad = {name: internal_words(doc) for name, doc in docstrings().items() if internal_words(doc)}
    assert bad == {}


@pytest.mark.parametrize("text", ["stays safe under every drift source of the brief",
                                  "One item, the seed's per-item step"])
def test_an_internal_word_is_found(text: str) -> None:
    assert internal_words(text)
