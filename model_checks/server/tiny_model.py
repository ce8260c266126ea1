"""A tiny LLaVA-NeXT with random weights, built from a fixed seed, for a real `vllm serve` on
CPU (`scripts/setup-vllm-server` runs `python -m model_checks.server.tiny_model OUT` in the
server's venv; nothing is downloaded).

The model is small enough to start in about a minute on two cores and to answer a chat
completion in well under a second, yet exercises vLLM's whole multimodal path: the front
end's processor and its processor cache, the engine's receiver cache, the encoder cache and
the embedding merge. Greedy answers are deterministic and depend on the image (the driver
compares per-token log-probabilities, `model_checks.server.judge`).

Geometry (what the driver's image sizes rest on, `model_checks.server.images`): tiles of
`TILE` x `TILE` pixels, CLIP patches of `PATCH`, the grid pinpoints one tile high and up to
`MAX_TILES_WIDE` tiles wide. A `TILE` x (k * `TILE`) image is processed into 1 + k tiles of
float32 pixels (the base image plus k grid tiles) and its `image_sizes`, so its processed size
is (1 + k) * `TILE_BYTES` + 16 bytes; its placeholder count grows with k.

Workarounds, each for a reason met on vLLM's CPU wheel with the transformers it pins:
- The image processor is the PIL one (`LlavaNextImageProcessorPil`): the registry has no CPU
  build of torchvision, so the torchvision-backed ("fast") processor is not available.
- The processor is `model_checks.server.unpadded_processor`'s, copied into the model's folder
  as remote code (the server runs with `--trust-remote-code`): transformers' pads every image
  of one call to the tile count of the largest, so an item's processed size would depend on
  the other items of its request (that module says why `do_pad=False` does not do).
- The checkpoint is written by hand (`save_weights`) under the names vLLM's LLaVA-NeXT loader
  maps: transformers 5's CLIP vision tower holds its layers directly
  (`model.vision_tower.encoder...`), where vLLM's CLIP model nests them under `vision_model`
  as transformers 4 did, and vLLM refuses a weight it has no parameter for.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

SEED = 0
TILE = 32
PATCH = 16
MAX_TILES_WIDE = 9
TILE_BYTES = 3 * TILE * TILE * 4
"""Bytes of one float32 RGB tile."""
IMAGE_SIZES_BYTES = 16
"""Bytes of an item's `image_sizes` (two int64)."""
IMAGE_TOKEN = "<image>"
SPECIAL_TOKENS = ("<unk>", "<s>", "</s>", "<pad>", IMAGE_TOKEN)
CHAT_TEMPLATE = (
    "{% for message in messages %}{{ message['role'] }}: {{ message['content'] }}\n"
    "{% endfor %}{% if add_generation_prompt %}assistant:{% endif %}")
"""A string-content template: vLLM puts each image's placeholder into the message's text."""
MAX_POSITIONS = 4096
"""The longest sequence the model takes: room for the driver's long request that keeps the
engine busy while others wait (`model_checks.server.drive.Held`)."""
VOCAB_SIZE = 288
"""256 byte tokens, the special tokens, rounded up."""


def build(out: Path) -> None:
    """Write the model, its tokenizer and processor to `out` (created; overwritten)."""
    import torch

    out.mkdir(parents=True, exist_ok=True)
    tokenizer = _tokenizer()
    processor = _processor(tokenizer)
    processor.save_pretrained(str(out))
    _use_unpadded_processor(out)
    torch.manual_seed(SEED)
    config = _config(tokenizer.convert_tokens_to_ids(IMAGE_TOKEN))
    from transformers import LlavaNextForConditionalGeneration
    model = LlavaNextForConditionalGeneration(config)
    config.architectures = ["LlavaNextForConditionalGeneration"]
    config.save_pretrained(str(out))
    save_weights(model.state_dict(), out)


def _tokenizer() -> Any:
    """A byte-level tokenizer with no merges: one token per byte plus the special tokens."""
    import transformers
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    library: Any = transformers  # untyped constructors
    byte_level = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    vocab = {token: index for index, token in enumerate([*SPECIAL_TOKENS, *alphabet])}
    core = Tokenizer(models.BPE(vocab=vocab, merges=[], unk_token="<unk>"))
    core.pre_tokenizer = byte_level
    core.decoder = decoders.ByteLevel()
    tokenizer = library.PreTrainedTokenizerFast(
        tokenizer_object=core, unk_token="<unk>", bos_token="<s>", eos_token="</s>",
        pad_token="<pad>", additional_special_tokens=[IMAGE_TOKEN])
    tokenizer.chat_template = CHAT_TEMPLATE
    tokenizer.model_max_length = MAX_POSITIONS
    return tokenizer


def _processor(tokenizer: Any) -> Any:
    import transformers
    from transformers.models.llava_next.image_processing_pil_llava_next import (
        LlavaNextImageProcessorPil,
    )
    library: Any = transformers  # untyped constructors
    images = LlavaNextImageProcessorPil(
        size={"shortest_edge": TILE}, crop_size={"height": TILE, "width": TILE},
        image_grid_pinpoints=pinpoints())
    return library.LlavaNextProcessor(
        image_processor=images, tokenizer=tokenizer, patch_size=PATCH,
        vision_feature_select_strategy="default", image_token=IMAGE_TOKEN,
        chat_template=CHAT_TEMPLATE)


def _use_unpadded_processor(out: Path) -> None:
    """Make `unpadded_processor` the folder's processor (remote code named in `auto_map`)."""
    source = Path(__file__).with_name("unpadded_processor.py")
    (out / REMOTE_PROCESSOR_FILE).write_text(source.read_text())
    config_path = out / "processor_config.json"
    config = json.loads(config_path.read_text())
    module = REMOTE_PROCESSOR_FILE.removesuffix(".py")
    config["auto_map"] = {"AutoProcessor": f"{module}.UnpaddedLlavaNextProcessor"}
    config["processor_class"] = "UnpaddedLlavaNextProcessor"
    config_path.write_text(json.dumps(config, indent=2) + "\n")


REMOTE_PROCESSOR_FILE = "unpadded_processor.py"


def pinpoints() -> list[list[int]]:
    """The grid resolutions (height, width): one tile high, 1 to `MAX_TILES_WIDE` wide."""
    return [[TILE, TILE * k] for k in range(1, MAX_TILES_WIDE + 1)]


def _config(image_token_id: int) -> Any:
    from transformers import CLIPVisionConfig, LlamaConfig, LlavaNextConfig
    vision = CLIPVisionConfig(
        image_size=TILE, patch_size=PATCH, hidden_size=32, intermediate_size=64,
        num_hidden_layers=2, num_attention_heads=2, projection_dim=32)
    text = LlamaConfig(
        vocab_size=VOCAB_SIZE, hidden_size=64, intermediate_size=128, num_hidden_layers=1,
        num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=MAX_POSITIONS,
        bos_token_id=1, eos_token_id=2, pad_token_id=3, tie_word_embeddings=False)
    return LlavaNextConfig(
        vision_config=vision, text_config=text, image_token_index=image_token_id,
        image_grid_pinpoints=pinpoints(), vision_feature_select_strategy="default",
        vision_feature_layer=-2, image_seq_length=(TILE // PATCH) ** 2,
        tie_word_embeddings=False)


RENAMED_PREFIXES = {"model.vision_tower.": "model.vision_tower.vision_model."}
"""transformers 5's weight-name prefixes and the ones vLLM's loader reads instead."""


def save_weights(state: dict[str, Any], out: Path) -> None:
    """The state dict as `model.safetensors` under the names vLLM loads (`RENAMED_PREFIXES`)."""
    from safetensors.torch import save_file
    renamed = {}
    for name, tensor in state.items():
        for new, old in RENAMED_PREFIXES.items():
            if name.startswith(new):
                name = old + name.removeprefix(new)
        renamed[name] = tensor.detach().contiguous().clone()
    save_file(renamed, str(out / "model.safetensors"), metadata={"format": "pt"})
    (out / "built-by.json").write_text(json.dumps(
        {"builder": "model_checks.server.tiny_model", "seed": SEED,
         "parameters": sum(t.numel() for t in renamed.values())},
        indent=1) + "\n")


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m model_checks.server.tiny_model OUT_DIR", file=sys.stderr)
        return 2
    build(Path(argv[0]))
    print(f"tiny_model: wrote {argv[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
