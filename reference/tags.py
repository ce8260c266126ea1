"""Tags (V3): a 64-bit name for one processing of one item, unique across front ends and time.

``tag = nonce << 32 | counter``: the counter counts one source's payloads, the nonce names the
source. Tags of one nonce never repeat; after 2**32 tags the source takes a fresh nonce.
Wire cost: 8 bytes per item, on payloads and references alike.

Uniqueness is structural, not probabilistic, wherever the reference can see the sources:

- **In one process**, ``TagSource()`` draws a random nonce that no other source of this
  process has ever held (a process-wide record of issued nonces; a nonce is never handed out
  twice, not even after its source is gone, since an engine may still hold entries it
  tagged). So two front ends, or a restarted one (D5, D10), never mint the same tag.
- **A source shared by several senders still mints each tag once**: ``next`` draws under
  the source's own lock.
- **Across processes**, the engine is the one party every front end talks to: it records which
  source presented each nonce (``Engine.admit``, called by ``reference.serve`` and
  ``reference.pipeline.deliver`` before anything changes) and rejects a second source
  presenting a nonce already in use, with ``NonceInUseError``.
- **A fixed nonce is for tests only**, through ``TagSource.for_tests(nonce)``: it is not drawn
  from the process record (two test sources may share it on purpose), and the engine's
  admission still rejects the second. ``TagSource(7)``, the old way to fix a nonce, is
  rejected with an error naming ``for_tests``.
"""

from __future__ import annotations

import secrets
import threading

from reference.errors import BadInputTypeError, BadInputValueError, describe

__all__ = ["TagSource"]

_COUNTER_BITS = 32
_COUNTER_LIMIT = 1 << _COUNTER_BITS

_issued: set[int] = set()  # every nonce a random source of this process has held
_issued_lock = threading.Lock()


def _fresh_nonce() -> int:
    """A random 32-bit nonce never issued before in this process (and recorded as issued)."""
    with _issued_lock:
        if len(_issued) >= _COUNTER_LIMIT // 2:  # pragma: no cover - 2**31 front ends
            raise BadInputValueError("got 2**31 tag sources in one process, expected fewer")
        while True:
            nonce = secrets.randbits(_COUNTER_BITS)
            if nonce not in _issued:
                _issued.add(nonce)
                return nonce


def _check_nonce(nonce: object) -> int:
    if type(nonce) is not int:
        raise BadInputTypeError(f"got nonce {describe(nonce)}, expected an int")
    if not 0 <= nonce < _COUNTER_LIMIT:
        raise BadInputValueError(f"got nonce {describe(nonce)}, expected an int in [0, 2**32)")
    return nonce


class TagSource:
    """Mints tags for one sender, under a nonce unique in this process (see the module).

    ``TagSource()`` is the only production constructor; ``TagSource.for_tests(nonce)`` fixes
    the first nonce for a test. Passing ``nonce`` here is rejected (``BadInputValueError``):
    a fixed nonce shared by two front ends would let one's reference name the other's entry.
    """

    def __init__(self, nonce: object = None) -> None:
        if nonce is not None:
            raise BadInputValueError(
                f"got a fixed nonce {describe(nonce)}, expected none: a fixed nonce is for "
                "tests only (TagSource.for_tests(nonce)); TagSource() draws one unique in "
                "this process"
            )
        self._nonce = _fresh_nonce()
        self._counter = 0
        self._lock = threading.Lock()

    @classmethod
    def for_tests(cls, nonce: int) -> TagSource:
        """Test only: a source whose first nonce is ``nonce`` (an int in [0, 2**32)), not
        drawn from the process record; the engine still admits one source per nonce."""
        checked = _check_nonce(nonce)
        source = cls.__new__(cls)
        source._nonce = checked
        source._counter = 0
        source._lock = threading.Lock()
        with _issued_lock:
            _issued.add(checked)  # random sources never draw it
        return source

    @property
    def nonce(self) -> int:
        return self._nonce

    def next(self) -> int:
        """A tag never returned before by this source (nor by any other of this process);
        thread-safe."""
        with self._lock:
            if self._counter == _COUNTER_LIMIT:
                self._renew_nonce()
            tag = self._nonce << _COUNTER_BITS | self._counter
            self._counter += 1
            return tag

    def _renew_nonce(self) -> None:
        self._nonce = _fresh_nonce()
        self._counter = 0
