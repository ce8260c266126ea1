"""An adapter module whose factory exits (a usage error of conform, never its exit code)."""


def factory() -> object:
    raise SystemExit(7)
