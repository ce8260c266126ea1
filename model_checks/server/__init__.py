"""Witnesses replayed over HTTP on a real `vllm serve` of a tiny random-weight LLaVA-NeXT on
CPU: the model (`tiny_model`, `unpadded_processor`), the images (`images`), a witness as HTTP
requests (`plan` for the LRU design, `shm_plan` for the shared-memory store, `plans`
choosing by design), the server's process (`launch`), the run and its judgement (`drive`) and
the command (`command`), and the witnesses of ordinary requests written for the server
(`witnesses`). Set up by `scripts/setup-vllm-server`; docs/running.md says how to run.
"""
