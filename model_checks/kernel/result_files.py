"""The JSON result files kept under docs/results/, read and written in one place.

A result file is kept either plain (`NAME.json`) or compressed (`NAME.json.gz`); the large
ones (the lattice's kept outcomes, the designs' answers) are kept compressed. The contract:

- `write(path, data)` (and `write_text(path, text)` for a writer with its own JSON layout,
  as traces have) writes compressed exactly when `path` ends in `.gz`, and the bytes
  depend on the text alone (gzip with no timestamp and no file name, a fixed level; the
  JSON in `data`'s own key order): writing the same data twice gives the same file, so a
  regenerated result shows no change in git. The compressed file holds the very text the
  plain one would. It removes the other form of the same name,
  so one name never has two files that could disagree.
- `read(path)` reads either form, whichever of the two names exists (`path` first), so a
  reader may name a result `NAME.json` or `NAME.json.gz` and still read a file kept the
  other way.

`python -m model_checks.kernel.result_files FILE...` converts plain files to the compressed
form in place (`NAME.json` becomes `NAME.json.gz`, the same text: the file its writer
writes when named `.gz`).
"""

from __future__ import annotations

import gzip
import io
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from model_checks.kernel.exits import usage_exit

COMPRESSED = ".gz"
LEVEL = 9


class ResultFileError(ValueError):
    """A result file cannot be read or converted; the message is one line naming it."""


def is_compressed(path: Path) -> bool:
    """Whether `path` names the compressed form."""
    return path.name.endswith(COMPRESSED)


def other_form(path: Path) -> Path:
    """The same result's name in the other form (`NAME.json` <-> `NAME.json.gz`)."""
    if is_compressed(path):
        return path.with_name(path.name[:-len(COMPRESSED)])
    return path.with_name(path.name + COMPRESSED)


def stored(path: Path) -> Path:
    """The file that holds the result named `path`: `path` if it exists, else its other
    form if that exists, else `path` (which does not exist)."""
    if path.exists():
        return path
    other = other_form(path)
    return other if other.exists() else path


def exists(path: Path) -> bool:
    """Whether the result named `path` is kept, in either form."""
    return stored(path).exists()


def read_text(path: Path) -> str:
    """The JSON text of the result named `path`, in either form (`OSError` if neither
    exists; `ResultFileError` for a compressed file that does not decompress)."""
    found = stored(path)
    if not is_compressed(found):
        return found.read_text()
    try:
        return gzip.decompress(found.read_bytes()).decode()
    except (OSError, EOFError, UnicodeDecodeError) as error:
        raise ResultFileError(f"{found}: not a gzip-compressed JSON file ({error})") from None


def stem(path: Path) -> str:
    """The result's name without `.json` or `.json.gz` (`V2_D7_S1` for either form)."""
    name = path.name.removesuffix(COMPRESSED)
    return name.removesuffix(".json")


def json_files(folder: Path) -> list[Path]:
    """The result files in `folder` (`NAME.json` or `NAME.json.gz`), sorted by name; none
    if it is not a folder."""
    if not folder.is_dir():
        return []
    return sorted((p for p in folder.iterdir()
                   if p.name.endswith((".json", ".json" + COMPRESSED)) and p.is_file()),
                  key=lambda p: p.name)


def read(path: Path) -> Any:
    """The data of the result named `path`, in either form (`OSError` if neither exists,
    `ValueError` (`json.JSONDecodeError` or `ResultFileError`) if it is malformed)."""
    return json.loads(read_text(path))


def encode(data: Any, indent: int | None = None) -> str:
    """The JSON text a result file holds: `data` in its own key order, one final newline."""
    return json.dumps(data, indent=indent) + "\n"


def compress(text: str) -> bytes:
    """`text` gzip-compressed, byte-stable: no timestamp, no file name, a fixed level."""
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, compresslevel=LEVEL,
                       mtime=0) as out:
        out.write(text.encode())
    return buffer.getvalue()


def write(path: Path, data: Any, indent: int | None = None) -> Path:
    """Write `data` to `path` (`encode`), compressed exactly when `path` ends in `.gz`:
    `write_text`. Returns `path`."""
    return write_text(path, encode(data, indent))


def write_text(path: Path, text: str) -> Path:
    """Write the JSON text `text` to `path`, compressed exactly when `path` ends in `.gz`,
    atomically (a temporary file beside it, then a rename); the other form of the same name
    is removed. Returns `path`."""
    payload = compress(text) if is_compressed(path) else text.encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_bytes(payload)
    temporary.replace(path)
    other_form(path).unlink(missing_ok=True)
    return path


def _plain_text(path: Path) -> str:
    """The text of the plain result file `path`; `ResultFileError` if it is not one (not
    named `NAME.json`, absent, or not JSON)."""
    if is_compressed(path) or not path.is_file():
        raise ResultFileError(f"{path}: not a plain result file (expected an existing "
                              "NAME.json)")
    try:
        text = path.read_text()
        json.loads(text)
    except (OSError, ValueError) as error:
        raise ResultFileError(f"{path}: not a JSON file ({error})") from None
    return text


def convert(path: Path) -> Path:
    """Rewrite the plain result `path` (`NAME.json`) compressed as `NAME.json.gz`, the
    same text; the plain file is removed. Returns the compressed file's path."""
    return write_text(other_form(path), _plain_text(path))


def main(argv: Sequence[str] | None = None) -> int:
    """Convert each plain result file named to the compressed form; exit 2 (nothing
    changed) if any is not a plain JSON file."""
    paths = [Path(a) for a in (sys.argv[1:] if argv is None else argv)]
    if not paths:
        print("usage: python -m model_checks.kernel.result_files NAME.json...", file=sys.stderr)
        return 2
    for path in paths:  # every file checked before any is changed
        try:
            _plain_text(path)
        except ResultFileError as error:
            return usage_exit(error)
    for path in paths:
        print(convert(path))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
