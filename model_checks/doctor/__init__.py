"""`python -m model_checks doctor`: a vLLM deployment's facts -> its drift sources, the drift
lattice's answer per safety property for the variant its release implements, what removes
each risk, and the counters to alert on (`command.py`; facts in `facts.py`, a `vllm serve`
line read in `serve_line.py`, answers read from the answer store, `model_checks.answers`, in
`answer.py`)."""
