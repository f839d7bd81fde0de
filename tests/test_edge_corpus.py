"""The edge-case corpus (issue 11): every tag documented in docs/tags.md, and the risks the
corpus promises to cover, covered: for every element type K = 0, 1, n-1, n and n+1; NaN with
every K on short rows; NaN payloads; every axis of 1-D to 8-D inputs, negative axes; empty
tensors; ties from 2 to 2**20 elements; large rows and many short rows; fuzz cases."""

from __future__ import annotations

import re
from functools import cache

from harness import CASES, REPO

from conformance.cases.loader import load_cases
from conformance.core.dtypes import DTYPES
from conformance.ops.topk.case import Case

FLOATS = ("float16", "bfloat16", "float32", "float64")


@cache
def corpus() -> tuple[Case, ...]:
    loaded = load_cases([CASES])
    assert not loaded.errors, [str(e) for e in loaded.errors]
    return tuple(loaded.cases)


def topk_corpus() -> tuple[Case, ...]:
    """The TopK cases, whose risks the tests below check are covered."""
    return tuple(case for case in corpus() if case.op == "topk")


def documented_tags() -> set[str]:
    tags: set[str] = set()
    for line in (REPO / "docs" / "tags.md").read_text().splitlines():
        cells = line.split("|")
        if line.startswith("|") and len(cells) > 2:
            tags |= set(re.findall(r"`([a-z0-9_]+)`", cells[1]))
    return tags


def test_every_tag_is_documented_and_every_documented_tag_is_used() -> None:
    used = {tag for case in corpus() for tag in case.tags}
    documented = documented_tags()
    assert used - documented == set(), "tags missing from docs/tags.md"
    assert documented - used == set(), "docs/tags.md lists tags no case uses"


def test_every_case_says_what_it_targets() -> None:
    assert all(case.tags for case in corpus()), [case.id for case in corpus() if not case.tags]


def test_every_element_type_has_k_0_1_n_minus_1_n_and_n_plus_1() -> None:
    seen: dict[str, set[str]] = {name: set() for name in DTYPES}
    for case in topk_corpus():
        n, k = case.n, case.k
        kinds = {"0": k == 0, "1": k == 1 and n > 2, "n-1": k == n - 1 and n > 2, "n": k == n and n > 1,
                 "n+1": k == n + 1 and case.expect_error}
        seen[case.dtype_name] |= {kind for kind, holds in kinds.items() if holds}
    assert {name: kinds for name, kinds in seen.items() if kinds != {"0", "1", "n-1", "n", "n+1"}} == {}


def test_nan_with_every_k_on_short_rows_in_both_directions_and_payloads() -> None:
    for dtype in FLOATS:
        nan_cases = [c for c in topk_corpus() if c.dtype_name == dtype and "every_k" in c.tags]
        assert nan_cases and all(c.nan_rows.any() for c in nan_cases)
        n = nan_cases[0].n
        assert {(c.k, c.largest) for c in nan_cases} == {(k, d) for k in range(1, n + 1) for d in (True, False)}
        assert any("nan_payload" in c.tags and c.dtype_name == dtype for c in topk_corpus()), dtype


def test_every_axis_of_every_rank_and_negative_axes() -> None:
    axes = {(case.x.ndim, case.axis_index) for case in topk_corpus()}
    assert {(r, a) for r in range(1, 9) for a in range(r)} <= axes
    negative = {case.x.ndim for case in topk_corpus() if case.axis < 0}
    assert set(range(1, 9)) <= negative


def test_empty_tensors_large_rows_and_many_short_rows() -> None:
    empty = [c for c in topk_corpus() if c.x.size == 0 and c.x.shape[c.axis_index] > 0]
    assert len({c.dtype_name for c in empty}) >= 4
    assert any(c.n >= 2**20 for c in topk_corpus())
    assert any(c.x.size // max(1, c.n) >= 10**5 and c.n == 2 for c in topk_corpus())
    scales = {c.n for c in topk_corpus() if "ties_scale" in c.tags}
    assert min(scales) == 2 and max(scales) >= 2**20 and len(scales) >= 10


def test_fuzz_cases_say_where_they_come_from() -> None:
    fuzz = [c for c in topk_corpus() if "fuzz" in c.tags]
    for case in fuzz:
        assert case.file.parent.name == "fuzz"
        assert "topk-conformance fuzz" in case.source and "seed" in case.source
        text = case.file.read_text()
        assert "# Versions:" in text and "# Signature:" in text
