"""Make ``ref_helpers`` importable under any pytest import mode (prepend or importlib).

Test files here are named ``test_ref_*`` so that their basenames never clash with other
test folders' under pytest's default (prepend) import mode.
"""

from __future__ import annotations

import sys
from pathlib import Path

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
