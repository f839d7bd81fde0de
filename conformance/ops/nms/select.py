"""What NonMaxSuppression may keep, decided without enumerating orders (contract section 8).

Per batch and class, the boxes whose score passes the threshold are taken in descending score;
a box is dropped when its IoU with a box kept before it is above the IoU threshold, and at most
the cap are kept. The documents say nothing of equal scores, so any order within a group of
equal scores is admissible. A set S of kept boxes is what some such order gives exactly when:

- every box of S passes the score threshold, and S holds at most the cap;
- no two boxes of S overlap (IoU above the threshold): neither two of one group nor one of a
  group with one kept before it;
- every candidate left out overlaps a kept box whose score is at least its own, or the cap was
  reached by the kept boxes whose scores are at least its own.

(Put S's boxes first within each group: greedy keeps exactly them, and every other box is
suppressed or finds the cap reached. Conversely greedy's output has these three properties.)
The common answer, equal scores taken in ascending box index, is the same test with "a kept
box that precedes it" (a higher score, or an equal one and a lower index) for "a kept box whose
score is at least its own"; so one pass over the left-out candidates against the kept boxes
decides both admissibility and whether the set is the common answer.

IoU is computed as a float32 kernel computes it (ONNX's reference evaluator among them): corners,
areas, intersection, union and their quotient each in float32. Where that lands within a relative
1e-5 of the threshold it is computed again in float64: a pair exactly on the threshold in
either is kept, as both documents say (unless the reading asked for is the other one,
`suppresses_equal_iou`, which the judge uses to name the `iou-threshold` rule). The same holds
for `drops_equal_score` and `score-threshold`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

_CHUNK = 1 << 18  # pairs compared at a time: bounds the temporaries' memory
_RELATIVE = 1e-5  # an IoU this close to the threshold (relative) is computed again in float64
_ULPS = 1e-6  # closer than this (several float32 steps), float32 kernels may land on either side


@dataclass(frozen=True)
class Reading:
    """How one dialect reads a case's parameters, and which side of each boundary it takes."""

    cap: int  # at most this many boxes per batch and class; 0 or less: none
    iou_threshold: float  # a box whose IoU with a kept one is above this is suppressed
    score_threshold: float | None  # a box whose score is below this is dropped; None: no threshold
    center: bool  # boxes as [x_center, y_center, width, height]
    drops_equal_score: bool = False  # the other reading: a score at the threshold is dropped
    suppresses_equal_iou: bool = False  # the other reading: an IoU at the threshold suppresses


@dataclass(frozen=True)
class Corners:
    """Boxes as sorted corners in one float type, and their areas."""

    y1: np.ndarray[Any, Any]
    x1: np.ndarray[Any, Any]
    y2: np.ndarray[Any, Any]
    x2: np.ndarray[Any, Any]
    area: np.ndarray[Any, Any]

    @classmethod
    def of(cls, boxes: np.ndarray[Any, Any], center: bool, dtype: type) -> Corners:
        """boxes [n, 4]; corner boxes may give either diagonal pair."""
        b: np.ndarray[Any, Any] = boxes.astype(dtype)
        with np.errstate(invalid="ignore", over="ignore"):
            if center:
                xc, yc, w, h = b[:, 0], b[:, 1], b[:, 2], b[:, 3]
                half_w, half_h = w / dtype(2), h / dtype(2)
                ya, yb, xa, xb = yc - half_h, yc + half_h, xc - half_w, xc + half_w
            else:
                ya, xa, yb, xb = b[:, 0], b[:, 1], b[:, 2], b[:, 3]
            y1, y2 = np.fmin(ya, yb), np.fmax(ya, yb)
            x1, x2 = np.fmin(xa, xb), np.fmax(xa, xb)
            # NaN in a corner stays NaN (fmin would hide it): the pair's IoU is then NaN.
            y1[np.isnan(ya) | np.isnan(yb) | np.isnan(xa) | np.isnan(xb)] = np.nan
            return cls(y1, x1, y2, x2, (y2 - y1) * (x2 - x1))

    def iou(self, a: np.ndarray[Any, Any], b: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        """IoU of boxes a (m,) with boxes b (p,): [m, p]; NaN where the union is 0 or a corner NaN."""
        return self._iou(a[:, None], b[None, :])

    def pairwise(self, a: np.ndarray[Any, Any], b: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        """IoU of box a[i] with box b[i], for each i."""
        return self._iou(a, b)

    def _iou(self, a: np.ndarray[Any, Any], b: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            h = np.minimum(self.y2[a], self.y2[b]) - np.maximum(self.y1[a], self.y1[b])
            w = np.minimum(self.x2[a], self.x2[b]) - np.maximum(self.x1[a], self.x1[b])
            inter = np.maximum(h, 0) * np.maximum(w, 0)
            union = self.area[a] + self.area[b] - inter
            result: np.ndarray[Any, Any] = inter / union
            return result


@dataclass(frozen=True)
class Geometry:
    """One batch's boxes, in float32 as kernels compute IoU, and in float64 near the threshold."""

    single: Corners
    double: Corners

    @classmethod
    def of(cls, boxes: np.ndarray[Any, Any], center: bool) -> Geometry:
        return cls(Corners.of(boxes, center, np.float32), Corners.of(boxes, center, np.float64))

    @property
    def area(self) -> np.ndarray[Any, Any]:
        return self.double.area


@dataclass(frozen=True)
class Overlaps:
    """One [m, p] block of pairs: which suppress under the reading (`certain`), which may go
    either way (`uncertain`: float32 and float64 disagree near the threshold, or NaN), and which
    suppress as the common answer computes IoU (`exact`: in float32, as ONNX's reference does)."""

    certain: np.ndarray[Any, Any]
    uncertain: np.ndarray[Any, Any]
    exact: np.ndarray[Any, Any]


def overlaps(geometry: Geometry, a: np.ndarray[Any, Any], b: np.ndarray[Any, Any], reading: Reading) -> Overlaps:
    t = reading.iou_threshold
    t32 = np.float32(t)
    iou = geometry.single.iou(a, b)
    with np.errstate(invalid="ignore"):
        above = iou > t32
        close = np.abs(iou - t32) <= _RELATIVE * abs(t32)
        nan = np.isnan(iou)
        certain = above & ~close
        uncertain = nan.copy()
        if close.any():
            rows, cols = np.nonzero(close)
            wide = geometry.double.pairwise(a[rows], b[cols])
            above_wide = wide > t
            on = (iou[rows, cols] == t32) | (wide == t)
            far = np.abs(wide - t) > _ULPS * abs(t)
            agree = above[rows, cols] == above_wide
            certain[rows, cols] = (agree & far & above_wide & ~on) | (on & reading.suppresses_equal_iou
                                                                      & ~above[rows, cols] & ~above_wide)
            uncertain[rows, cols] = (~on & ~(agree & far)) | (on & (above[rows, cols] | above_wide))
    return Overlaps(certain, uncertain, above)


def ranks(scores: np.ndarray[Any, Any], nan_high: bool) -> np.ndarray[Any, Any]:
    """Dense ranks of scores (equal scores one rank, -0.0 equal to +0.0), NaN above every
    number or below every number."""
    values = scores.astype(np.float64)
    nan = np.isnan(values)
    distinct, inverse = np.unique(values[~nan], return_inverse=True)
    rank = np.empty(values.shape, dtype=np.int64)
    rank[~nan] = inverse.reshape(-1)
    rank[nan] = len(distinct) if nan_high else -1
    return rank


def passes_threshold(scores: np.ndarray[Any, Any], reading: Reading, nan_high: bool) -> np.ndarray[Any, Any]:
    """Which boxes' scores pass the score threshold (NaN where its placement puts it)."""
    values = scores.astype(np.float64)
    if reading.score_threshold is None:
        return np.ones(values.shape, dtype=bool)
    t = reading.score_threshold
    with np.errstate(invalid="ignore"):
        passing: np.ndarray[Any, Any] = values > t if reading.drops_equal_score else values >= t
    if np.isnan(t):
        passing[:] = False  # no score compares with NaN: the threshold removes every box
    passing[np.isnan(values)] = nan_high and not np.isnan(t)
    return passing


@dataclass(frozen=True)
class ClassCheck:
    """One batch and class: what is wrong with the kept set ("" when it is admissible), the
    box it concerns, and whether the set is the common answer's."""

    problem: str
    box: int
    common: bool


def check_class(geometry: Geometry, rank: np.ndarray[Any, Any], passing: np.ndarray[Any, Any],
                kept: np.ndarray[Any, Any], reading: Reading) -> ClassCheck:
    """Whether `kept` (distinct box indices, in range) is a set some order of the equal scores
    gives, for one batch and class with these score ranks and threshold passes."""
    below = kept[~passing[kept]]
    if below.size:
        return ClassCheck(f"box {int(below[0])} kept, its score below the score threshold", int(below[0]), False)
    cap = max(reading.cap, 0)
    if kept.size > cap:
        return ClassCheck(f"{kept.size} boxes kept, more than the cap of {cap}", int(kept[-1]), False)
    common = True
    # No two kept boxes overlap.
    for start in range(0, kept.size, max(1, _CHUNK // max(kept.size, 1))):
        rows = kept[start:start + max(1, _CHUNK // max(kept.size, 1))]
        pairs = overlaps(geometry, rows, kept, reading)
        distinct = rows[:, None] != kept[None, :]
        clash = pairs.certain & distinct
        if clash.any():
            i, j = np.argwhere(clash)[0]
            return ClassCheck(f"boxes {int(rows[i])} and {int(kept[j])} both kept, their IoU above the threshold",
                              int(rows[i]), False)
        common = common and not (pairs.exact & distinct).any()
    # Every candidate left out is suppressed by a kept box at least as high, or finds the cap reached.
    left = np.flatnonzero(passing)
    left = left[~np.isin(left, kept)]
    kept_rank = rank[kept]
    order = np.sort(kept_rank)
    at_least = kept.size - np.searchsorted(order, rank[left], side="left")  # kept with rank >= the box's
    capped = at_least >= cap
    higher = kept.size - np.searchsorted(order, rank[left], side="right")  # kept with rank > the box's
    step = max(1, _CHUNK // max(kept.size, 1))
    for start in range(0, left.size, step):
        boxes = left[start:start + step]
        pairs = overlaps(geometry, boxes, kept, reading)
        as_high = kept_rank[None, :] >= rank[boxes][:, None]
        covered = ((pairs.certain | pairs.uncertain) & as_high).any(axis=1) | capped[start:start + step]
        if not covered.all():
            u = int(boxes[np.flatnonzero(~covered)[0]])
            return ClassCheck(f"box {u} left out, though it overlaps no kept box of a score at least its own "
                              f"and the cap was not reached", u, False)
        if common:
            precedes = (kept_rank[None, :] > rank[boxes][:, None]) | (
                (kept_rank[None, :] == rank[boxes][:, None]) & (kept[None, :] < boxes[:, None]))
            before = higher[start:start + step] + (
                (kept_rank[None, :] == rank[boxes][:, None]) & (kept[None, :] < boxes[:, None])).sum(axis=1)
            common = bool(((pairs.exact & precedes).any(axis=1) | (before >= cap)).all())
    return ClassCheck("", -1, common)


def greedy(geometry: Geometry, rank: np.ndarray[Any, Any], passing: np.ndarray[Any, Any],
           reading: Reading) -> np.ndarray[Any, Any]:
    """The common answer for one batch and class: candidates by descending score, equal scores
    by ascending index, each kept unless its IoU with a kept box is above the threshold
    (compared exactly), at most the cap. For messages and case files: the judge never needs it."""
    candidates = np.flatnonzero(passing)
    candidates = candidates[np.lexsort((candidates, -rank[candidates]))]
    kept: list[int] = []
    cap = max(reading.cap, 0)
    for box in candidates:
        if len(kept) >= cap:
            break
        if kept and overlaps(geometry, np.array([box]), np.array(kept), reading).exact.any():
            continue
        kept.append(int(box))
    return np.array(kept, dtype=np.int64)
