"""History checking: what concurrent clients (threads, asyncio tasks) or a running server did,
explained by spec steps consistent with real time, or shown as the shortest history the spec
cannot explain.

- `record`: the history (one record per call of an implementation's sides) and its JSON-lines
  log format (`SCHEMA`, versioned; docs/history.md);
- `recorder`: wraps any adapter's sides and records every call;
- `instance` and `explain`: a history as a spec configuration, and the search for
  linearization points (memoized, bounded by a count of search nodes, never a clock);
- `lanes`: swim lanes of a history, as text and as a mermaid diagram;
- `schedule`, `hooks` and `concurrent`: seeded schedules of N threads or asyncio tasks over an
  adapter, with preemption points where the adapter offers a yield hook;
- `command`: `conform --threads N`, `--tasks N` and `--check-log FILE`.
"""
