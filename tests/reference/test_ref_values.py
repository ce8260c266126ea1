"""Items, placeholders, variants, tags and errors: the package's small values."""

from __future__ import annotations

import pickle

import pytest
import torch

from reference import (
    DEFAULT_VARIANT,
    V0,
    V1,
    V2,
    V3,
    V4,
    BadInputError,
    BadInputTypeError,
    BadInputValueError,
    CacheError,
    ClientError,
    InvalidPayloadError,
    MissingMediaError,
    MultiModalCacheMissError,
    Placeholders,
    ProcessedItem,
    ReceiverCacheAssertionError,
    Request,
    RequestItem,
    SenderCacheAssertionError,
    TagSource,
    tree_nbytes,
)
from reference.items import run_processor
from reference.variants import resolution_order


def test_tree_nbytes_sums_nested_tensors() -> None:
    tree = {
        "a": torch.zeros(4, dtype=torch.float32),
        "nested": {"b": torch.zeros(2, 3, dtype=torch.int64), "deeper": {}},
    }
    assert tree_nbytes(tree) == 16 + 48


def test_tree_nbytes_counts_a_view_by_its_own_elements() -> None:
    base = torch.zeros(100, dtype=torch.float32)
    assert tree_nbytes({"view": base[:10]}) == 40


@pytest.mark.parametrize(
    ("tree", "match"),
    [
        ([torch.zeros(1)], r"got payload \[tensor.*expected a mapping"),
        ({"a": 3}, r"got payload leaf 'a' = 3 \(int\), expected a torch.Tensor"),
        ({"a": {"b": [1.0]}}, r"leaf 'a.b'"),
        ({"a": None}, r"leaf 'a' = None"),
        ({1: torch.zeros(1)}, r"got payload key 1 \(int\).*expected a str"),
    ],
)
def test_non_tensor_leaves_are_rejected(tree: object, match: str) -> None:
    with pytest.raises(InvalidPayloadError, match=match):
        tree_nbytes(tree)
    with pytest.raises(TypeError):
        ProcessedItem(tree, Placeholders(0, 1))  # type: ignore[arg-type]


def test_processed_item_sizes_once_and_does_not_remeasure() -> None:
    tensor = torch.zeros(4, dtype=torch.float32)
    item = ProcessedItem({"x": tensor}, Placeholders(offset=2, length=3))
    assert item.nbytes == 16
    tensor.resize_(8)  # an in-place edit after sizing is, as documented, not re-measured
    assert item.nbytes == 16


def test_processed_item_needs_placeholders() -> None:
    with pytest.raises(BadInputTypeError, match="expected Placeholders"):
        ProcessedItem({}, (0, 1))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("offset", "length", "error"),
    [(-1, 1, BadInputValueError), (0, -2, BadInputValueError), (0.0, 1, BadInputTypeError),
     (0, True, BadInputTypeError)],
)
def test_placeholders_reject_bad_values(offset: object, length: object, error: type) -> None:
    with pytest.raises(error, match="got placeholder"):
        Placeholders(offset, length)  # type: ignore[arg-type]


def test_placeholders_are_immutable_values() -> None:
    placeholders = Placeholders(1, 2)
    assert placeholders == Placeholders(1, 2) and hash(placeholders) == hash(Placeholders(1, 2))
    assert eval(repr(placeholders)) == placeholders
    with pytest.raises(AttributeError):
        placeholders.offset = 3  # type: ignore[misc]


def test_run_processor_checks_the_result() -> None:
    with pytest.raises(BadInputTypeError, match="from the processor, expected ProcessedItem"):
        run_processor(lambda content: content, "raw")  # type: ignore[arg-type,return-value]


def test_request_with_media_attaches_content() -> None:
    request = Request((RequestItem("a"), RequestItem("b", 2)))
    assert request.items[0].uuid_only and not request.items[1].uuid_only
    assert request.with_media(None) is request
    attached = request.with_media({"a": 1})
    assert attached.items == (RequestItem("a", 1), RequestItem("b", 2))
    assert attached.identities == ("a", "b")
    assert not attached.resend and not request.resend
    resend = Request(request.items, resend=True)
    assert resend.with_media({"a": 1}).resend  # the mark is kept
    # an item's own content is kept: one identity may name two contents in one request
    twice = Request((RequestItem("a", 1), RequestItem("a", 2), RequestItem("a")))
    assert twice.with_media({"a": 9}).items == (
        RequestItem("a", 1), RequestItem("a", 2), RequestItem("a", 9))


def test_variant_knobs_match_the_spec() -> None:
    assert DEFAULT_VARIANT is V4
    assert [v.recovers for v in (V0, V1, V2, V3, V4)] == [False, True, True, True, True]
    assert [v.payload_wins for v in (V1, V2, V3, V4)] == [False, True, True, True]
    for knob in ("tagged", "references_first", "late_miss_reprocess"):
        assert [getattr(v, knob) for v in (V0, V1, V2, V3, V4)] == [
            False, False, False, True, True]
    assert [v.resends_bypass_shadow for v in (V0, V1, V2, V3, V4)] == [
        False, False, False, False, True]
    assert str(V3) == "V3" and str(V4) == "V4"


def test_variant_knobs_equal_the_specs_knobs_of_the_same_name() -> None:
    """The reference's V4 is the spec's V4: each knob both have says the same."""
    import spec

    for ours, theirs in ((V3, spec.V3), (V4, spec.V4)):
        assert ours.name == theirs.name
        for knob in ("payload_wins", "tagged", "references_first", "late_miss_reprocess",
                     "resends_bypass_shadow"):
            assert getattr(ours, knob) == getattr(theirs, knob), (ours, knob)


def test_resolution_order() -> None:
    flags = [False, True, False, True]
    assert resolution_order(V2, flags) == [0, 1, 2, 3]
    assert resolution_order(V3, flags) == [1, 3, 0, 2]
    assert resolution_order(V3, []) == []


def test_tags_are_nonce_and_counter() -> None:
    tags = TagSource.for_tests(7)
    assert [tags.next(), tags.next()] == [7 << 32, 7 << 32 | 1]
    assert tags.nonce == 7
    assert TagSource().nonce < 1 << 32


def test_tag_counter_wrap_draws_a_fresh_nonce() -> None:
    tags = TagSource.for_tests(7)
    tags._counter = 1 << 32
    tag = tags.next()
    assert tags.nonce != 7 and tag == tags.nonce << 32


@pytest.mark.parametrize(("nonce", "error"), [(-1, ValueError), (1 << 32, ValueError),
                                             (1.0, TypeError), (True, TypeError)])
def test_tag_source_rejects_bad_nonces(nonce: object, error: type) -> None:
    with pytest.raises(error, match="got nonce"):
        TagSource.for_tests(nonce)  # type: ignore[arg-type]


def test_miss_error_is_a_retryable_key_error_listing_every_identity() -> None:
    error = MultiModalCacheMissError(["a", "b"], request_id=3)
    assert isinstance(error, KeyError) and isinstance(error, CacheError)
    assert error.retryable and error.identities == ("a", "b")
    assert str(error).startswith("the engine has no cached tensor for 2 item(s) in request 3: a, b")
    copy = pickle.loads(pickle.dumps(error))
    assert (copy.identities, copy.request_id, str(copy)) == (("a", "b"), 3, str(error))
    assert "in request" not in str(MultiModalCacheMissError(["a"]))


def test_other_errors_are_typed_non_retryable_and_picklable() -> None:
    errors: list[CacheError] = [
        MissingMediaError(["u"]),
        SenderCacheAssertionError("h"),
        ReceiverCacheAssertionError(["h"]),
    ]
    assert isinstance(errors[0], ClientError) and isinstance(errors[0], ValueError)
    assert isinstance(errors[1], AssertionError) and isinstance(errors[2], AssertionError)
    for error in errors:
        assert not error.retryable
        assert str(pickle.loads(pickle.dumps(error))) == str(error)
    assert "expected a cached item for mm_hash='h'" in str(errors[1])
    assert issubclass(BadInputTypeError, BadInputError) and issubclass(BadInputTypeError, TypeError)


def test_str_subclass_keys_and_long_reprs() -> None:
    class Name(str):
        pass

    assert tree_nbytes({Name("a"): torch.zeros(2, dtype=torch.int64)}) == 16
    with pytest.raises(InvalidPayloadError, match=r"= \[0, 1, 2, 3, \.\.\.\] \(list\)"):
        tree_nbytes({"a": list(range(100))})
