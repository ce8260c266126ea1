"""The fix's proof on the patched vLLM copy (`model_checks.adapters.vllm_patched`), driving the
command line as a user does: ``python -m model_checks.vllm_fix``.

`conform --variant V3` under the adapter's `DEPLOYMENT` with S1 and S3 required, as the offline
engine and as the async server drive the caches, then every committed witness of `witnesses`
replayed under V3 with S1 and S3 required. It lives beside `vllm_snapshot`, above the command
line, so that the adapter stays below it; its inputs are the committed traces under
docs/results/.
"""

from __future__ import annotations

import sys
from pathlib import Path

from model_checks.adapters.vllm_patched import ADAPTER as PATCHED
from model_checks.adapters.vllm_patched import ASYNC_ADAPTER, DEPLOYMENT, VARIANT

ROOT = Path(__file__).resolve().parents[1]


def witnesses(root: Path = ROOT) -> list[Path]:
    """Every committed trace of V2 breaking S1 (a stale pairing), and of V2 breaking S3
    without D6 (the patch keeps the release's assertion under D6, as V2 does)."""
    found = {*root.glob("docs/results/**/V2_*_S1.json"),
             *root.glob("docs/results/**/V2_*_S1.json.gz"),
             *(p for p in [*root.glob("docs/results/**/V2_*_S3.json"),
                           *root.glob("docs/results/**/V2_*_S3.json.gz")]
               if "D6" not in p.name.split("_")[1].split("+"))}
    return sorted(found)


def check_fix(root: Path = ROOT) -> int:
    """0 when every run exits 0, else 1; one line per run."""
    from model_checks.cli import main

    conform = ["--variant", VARIANT, "--environment", DEPLOYMENT]
    runs = [("conform", PATCHED, conform), ("conform (async server)", ASYNC_ADAPTER, conform)]
    runs += [(str(p.relative_to(root)), PATCHED, ["--replay", str(p), "--variant", VARIANT])
             for p in witnesses(root)]
    codes = [(what, main(["conform", "--adapter", adapter, *args, "--require", "S1,S3"]))
             for what, adapter, args in runs]
    for what, code in codes:
        print(f"fix check: {what}: exit {code}")
    failed = [what for what, code in codes if code != 0]
    print(f"fix check: {len(codes) - len(failed)} of {len(codes)} runs exit 0"
          + (f"; not: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(check_fix())
