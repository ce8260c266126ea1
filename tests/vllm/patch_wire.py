"""One side of the tag patch's wire check, run by tests/vllm/test_vllm_fix.py in a process of
its own per copy: ``encode`` prints a reference and a payload feature as this process's vLLM
encodes them (`MsgpackEncoder`, tag 5 where `MultiModalFeatureSpec` has `mm_tag`), as a
JSON line; ``decode`` reads that line and prints, per feature, what this process's
`MsgpackDecoder` makes of it: hash, placeholder offset, payload value or None, tag or "-"."""

from __future__ import annotations

import base64
import json
import sys

import torch
from vllm.multimodal.inputs import (
    MultiModalBatchedField,
    MultiModalFeatureSpec,
    MultiModalFieldElem,
    MultiModalKwargsItem,
    PlaceholderRange,
)
from vllm.v1.serial_utils import MsgpackDecoder, MsgpackEncoder


def encode() -> str:
    tagged = {"mm_tag": 5} if "mm_tag" in MultiModalFeatureSpec.__dataclass_fields__ else {}
    elem = MultiModalFieldElem(data=torch.full((4,), 3.0), field=MultiModalBatchedField())
    features = [MultiModalFeatureSpec(data=data, modality="image", identifier="u",
                                      mm_position=PlaceholderRange(offset=3, length=16),
                                      mm_hash="u", **tagged)
                for data in (None, MultiModalKwargsItem({"pixel_values": elem}))]
    encoder = MsgpackEncoder()
    return json.dumps([[base64.b64encode(bytes(part)).decode() for part in encoder.encode(f)]
                       for f in features])


def decode(line: str) -> list[str]:
    decoder = MsgpackDecoder(MultiModalFeatureSpec)
    said = []
    for parts in json.loads(line):
        f = decoder.decode([base64.b64decode(part) for part in parts])
        value = None if f.data is None else float(f.data["pixel_values"].data[0])
        said.append(f"{f.mm_hash} {f.mm_position.offset} {value} {getattr(f, 'mm_tag', '-')}")
    return said


if __name__ == "__main__":
    print(encode() if sys.argv[1] == "encode" else "\n".join(decode(sys.stdin.read())))
