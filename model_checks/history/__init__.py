"""History checking: what concurrent clients (threads, asyncio tasks) or a running server did,
explained by spec steps consistent with real time, or shown as the shortest history the spec
cannot explain.

- `log`: the history (one record per call of an implementation's sides) and its JSON-lines
  log format (`SCHEMA`, versioned; docs/history.md);
- `recorder`: wraps any adapter's sides and records every call;
- `instance`, `steps` and `explain`: a history as a spec configuration, a call as spec steps,
  and the search for linearization points (memoized, bounded by a count of search nodes,
  never a clock);
- `lanes`: swim lanes of a history, as text and as a mermaid diagram;
- `schedule`, `hooks`, `preempt` and `concurrent`: seeded schedules of N threads or asyncio
  tasks over an adapter, with preemption points where the adapter offers a yield hook (and by
  line tracing where it offers none);
- `watch`: the pair's shared containers watched in every concurrent run (races by a
  lockset check, front-end work split across critical sections), and `inflight` the
  clears and restarts it places inside open serves; `dtypes`: the payload sweep
  across torch's dtypes before the schedules; `tested`: what the runs exercised and what they
  did not;
- `run` and `report`: the seeded concurrent runs, and what the checks print (verdicts, drift,
  swim lanes, the `RESULT:` line and its exit code);
- `command`: `conform --threads N`, `--async-clients N` and `--check-log FILE` (run by the LRU
  design's conformance, its entry in `model_checks.designs.lockstep_bindings`); `options`:
  those options, on the one conform command's parser (`model_checks.conform_command`).

History depends on conformance's adapter interface and codec (`model_checks.conform`), never
the other way.
"""
