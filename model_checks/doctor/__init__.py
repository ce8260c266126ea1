"""`python -m model_checks doctor`: a vLLM deployment's facts -> its drift sources, the
project's answer per property (safety, and recovery by the client's retry) for the variant
its release implements, what removes each risk, and the counters to alert on.

- `command`: the command line and its report, with its exit codes (`--require`, `--json`);
- `findings`: one finding per property (its level, the reason in the deployment's facts, the
  witness, what to change in vLLM), rendered as the headlines that open the answer;
- `facts`: a deployment's facts and the drift sources they switch on (on, assumed, off);
  `serve_line`: a `vllm serve` line (and its `--config` file) read as vLLM reads it, without
  importing vLLM; `vllm_options`: the release's option names, so a misspelt one is refused;
- `answer`: the answers for the key-replicated LRU pair, read from the answer store
  (`model_checks.answers`); `design_answer`: those for a deployment whose paired cache is
  another design (the shared-memory object store): its own drift sources and its committed
  answers (`answers/designs.json`); `encoder_answer`: the engine's encoder cache, which every
  multimodal deployment has (the encoder design's committed answers), said where there is no
  processor cache.
"""
