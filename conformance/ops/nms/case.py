"""A NonMaxSuppression case, as loaded and checked from a case file (contract section 8): the
boxes and scores, the cap and the two thresholds (each None where the case leaves that input
out), the box encoding and, for OpenVINO, whether the output is sorted across batches."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from conformance.core.dtypes import name_of


@dataclass(frozen=True)
class Case:
    id: str
    source: str
    file: Path
    boxes: np.ndarray[Any, Any]  # [batches, boxes, 4]
    scores: np.ndarray[Any, Any]  # [batches, classes, boxes]
    max_output: int | None = None  # max_output_boxes_per_class; None: left out of the graph
    iou_threshold: float | None = None
    score_threshold: float | None = None
    center_point_box: int = 0  # 0: [y1, x1, y2, x2] (any diagonal pair); 1: [x_center, y_center, width, height]
    sort_result_descending: bool | None = None  # OpenVINO only; None: its graphs are built both ways
    op: str = "nms"
    tags: tuple[str, ...] = ()
    # Rows [batch, class, box] in the order the source prints them.
    expected: np.ndarray[Any, Any] | None = field(default=None, compare=False)
    expected_any: tuple[np.ndarray[Any, Any], ...] = field(default=(), compare=False)
    expect_error: bool = False
    graphs: tuple[str, ...] = ()
    repeat: int = 1
    input_spec: dict[str, Any] = field(default_factory=dict, compare=False)
    attributes: str = "all"

    @property
    def x(self) -> np.ndarray[Any, Any]:
        """The values chosen among, for the stages that show an input: the scores."""
        return self.scores

    @property
    def dtype_name(self) -> str:
        return str(self.input_spec.get("dtype", name_of(self.scores.dtype)))

    @property
    def axis_index(self) -> int:
        """Messages number (batch, class) pairs: the boxes run along the scores' last axis."""
        return max(self.scores.ndim - 1, 0)

    @property
    def inputs_given(self) -> tuple[str, ...]:
        """The optional inputs the case gives, in the operator's input order."""
        given = (("max_output_boxes_per_class", self.max_output), ("iou_threshold", self.iou_threshold),
                 ("score_threshold", self.score_threshold))
        return tuple(name for name, value in given if value is not None)

    @property
    def shapes_agree(self) -> bool:
        """boxes [B, N, 4] and scores [B, C, N] agree on B and N (a case expecting an error may not)."""
        b, s = self.boxes.shape, self.scores.shape
        return len(b) == 3 and len(s) == 3 and b[2] == 4 and b[0] == s[0] and b[1] == s[2]
