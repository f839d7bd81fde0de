"""NonMaxSuppression for the fuzzer: boxes on a half-unit grid (so that IoU lands exactly on the
thresholds), scores from a few values (tie groups), now and then a NaN score; the cap, the IoU
threshold and the score threshold from the values where the documents' boundaries bite; smaller
inputs for shrinking, and what a found input's case file says. Imported only when fuzzing.

The plain case hypothesis shrinks towards: float32, one class, one box, cap 0, IoU 0."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import strategies as st

from conformance.core.dtypes import DTYPES, name_of, to_jsonable
from conformance.operator.fuzzing import FuzzSupport, value_tags
from conformance.operator.interfaces import Variant
from conformance.ops.nms.case import Case

FLOAT_ORDER = ("float32", "float16", "bfloat16")  # the simplest first: ONNX takes float32 only
IOU_THRESHOLDS = (0.0, 0.5, 0.25, 0.7, 1.0)
SCORE_VALUES = (0.5, 0.25, 0.75, 1.0, 0.0)
MAX_BOXES = 8


@dataclass(frozen=True)
class FuzzInput:
    """One drawn NonMaxSuppression input, with every setting its case file can give."""

    boxes: np.ndarray[Any, Any]  # [1, n, 4]
    scores: np.ndarray[Any, Any]  # [1, classes, n]
    cap: int
    iou_threshold: float
    score_threshold: float | None
    center_point_box: int = 0

    @property
    def x(self) -> np.ndarray[Any, Any]:
        return self.scores

    @property
    def dtype_name(self) -> str:
        return name_of(self.scores.dtype)

    @property
    def expect_error(self) -> bool:
        return False

    def key(self) -> str:
        digest = hashlib.sha256()
        digest.update(repr((self.dtype_name, self.boxes.shape, self.scores.shape, self.cap, self.iou_threshold,
                            self.score_threshold, self.center_point_box)).encode())
        digest.update(np.ascontiguousarray(self.boxes).tobytes())
        digest.update(np.ascontiguousarray(self.scores).tobytes())
        return digest.hexdigest()[:16]

    def case(self, case_id: str, file: Path, source: str = "topk-conformance fuzz",
             tags: tuple[str, ...] = ()) -> Case:
        return Case(id=case_id, source=source, file=file, boxes=self.boxes, scores=self.scores, max_output=self.cap,
                    iou_threshold=self.iou_threshold, score_threshold=self.score_threshold,
                    center_point_box=self.center_point_box, tags=tags,
                    input_spec={"dtype": self.dtype_name, "shape": list(self.boxes.shape)})

    def __repr__(self) -> str:
        return (f"FuzzInput(dtype={self.dtype_name}, cap={self.cap}, iou={self.iou_threshold}, "
                f"score={self.score_threshold}, center={self.center_point_box}, boxes={self.boxes.tolist()!r}, "
                f"scores={self.scores.tolist()!r})")


@st.composite
def inputs(draw: st.DrawFn, dtypes: tuple[str, ...] = FLOAT_ORDER) -> FuzzInput:
    floats = tuple(name for name in dtypes if name in FLOAT_ORDER) or FLOAT_ORDER
    dtype = DTYPES[draw(st.sampled_from(floats))]
    n = draw(st.integers(1, MAX_BOXES))
    classes = draw(st.integers(1, 2))
    # Corners on a half-unit grid, each box at least half a unit a side (zero-area boxes are
    # outside the defined domain); either diagonal pair.
    corners = draw(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6), st.integers(1, 4), st.integers(1, 4),
                                      st.booleans()), min_size=n, max_size=n))
    boxes = [[y / 2, x / 2, (y + h) / 2, (x + w) / 2] if not flip else [(y + h) / 2, (x + w) / 2, y / 2, x / 2]
             for y, x, h, w, flip in corners]
    values = st.sampled_from(SCORE_VALUES)
    if draw(st.integers(0, 9)) == 9:
        values = st.one_of(values, st.just(float("nan")))
    scores = draw(st.lists(values, min_size=classes * n, max_size=classes * n))
    cap = draw(st.integers(0, n + 1))
    iou = draw(st.sampled_from(IOU_THRESHOLDS))
    score = draw(st.one_of(st.none(), st.sampled_from(SCORE_VALUES)))
    return FuzzInput(np.array([boxes], dtype=dtype), np.array(scores, dtype=dtype).reshape(1, classes, n), cap, iou,
                     score)


def simpler(example: FuzzInput, result: Any) -> Iterator[FuzzInput]:
    """Smaller inputs than `example`: a class dropped, then a box dropped (from both tensors)."""
    if example.scores.shape[1] > 1:
        for c in range(example.scores.shape[1]):
            yield replace(example, scores=np.ascontiguousarray(np.delete(example.scores, c, axis=1)))
    n = example.boxes.shape[1]
    for j in reversed(range(n)):
        if n > 1:
            yield replace(example, boxes=np.ascontiguousarray(np.delete(example.boxes, j, axis=1)),
                          scores=np.ascontiguousarray(np.delete(example.scores, j, axis=2)))


def case_tags(example: FuzzInput, variants: Sequence[Variant]) -> list[str]:
    return ["fuzz", example.dtype_name, *value_tags(example.scores, -1)]


def tensor_lines(example: FuzzInput) -> list[str]:
    """The case file's boxes and scores."""
    dtype = example.dtype_name
    return [f"    boxes: {{dtype: {dtype}, shape: {list(example.boxes.shape)}, "
            f"data: {to_jsonable(example.boxes)}}}".replace("'", '"'),
            f"    scores: {{dtype: {dtype}, shape: {list(example.scores.shape)}, "
            f"data: {to_jsonable(example.scores)}}}".replace("'", '"')]


def case_fields(example: FuzzInput) -> list[str]:
    lines = [f"    max_output_boxes_per_class: {example.cap}", f"    iou_threshold: {example.iou_threshold}"]
    if example.score_threshold is not None:
        lines.append(f"    score_threshold: {example.score_threshold}")
    if example.center_point_box:
        lines.append(f"    center_point_box: {example.center_point_box}")
    return lines


def support() -> FuzzSupport:
    return FuzzSupport(inputs=lambda dtypes: inputs(dtypes), simpler=simpler, case_tags=case_tags,
                       case_fields=case_fields, tensor_lines=tensor_lines)
