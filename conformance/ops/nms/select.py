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
_SLACK = 1e-3  # pairs pruned by the threshold are at least this far below it (relative)
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

    def pairwise(self, a: np.ndarray[Any, Any], b: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        """IoU of box a[i] with box b[i], for each i; NaN where the union is 0 or a corner NaN."""
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            h = np.minimum(self.y2[a], self.y2[b]) - np.maximum(self.y1[a], self.y1[b])
            w = np.minimum(self.x2[a], self.x2[b]) - np.maximum(self.x1[a], self.x1[b])
            inter = np.maximum(h, 0) * np.maximum(w, 0)
            union = self.area[a] + self.area[b] - inter
            result: np.ndarray[Any, Any] = inter / union
            return result


@dataclass(frozen=True)
class Geometry:
    """One batch's boxes, in float32 as kernels compute IoU, and in float64 near the threshold;
    `finite` where every box has finite corners (and areas), so that two boxes whose x extents
    are apart have IoU 0 exactly (what lets pairs be pruned), unless both have no area (`flat`,
    in either precision): their IoU is 0/0, so those pairs are never pruned."""

    single: Corners
    double: Corners
    finite: bool
    flat: np.ndarray[Any, Any]

    @classmethod
    def of(cls, boxes: np.ndarray[Any, Any], center: bool) -> Geometry:
        double, single = Corners.of(boxes, center, np.float64), Corners.of(boxes, center, np.float32)
        with np.errstate(invalid="ignore"):
            finite = bool(np.isfinite(double.area).all() and np.isfinite(single.area).all())
            flat = (double.area <= 0) | (single.area <= 0)
        return cls(single, double, finite, flat)

    @property
    def area(self) -> np.ndarray[Any, Any]:
        return self.double.area


@dataclass(frozen=True)
class Overlaps:
    """Pairs of boxes (a[i], b[j]) as index arrays, and for each: whether it suppresses under the
    reading (`certain`), may go either way (`uncertain`: float32 and float64 disagree near the
    threshold, or NaN), suppresses as the common answer computes IoU (`exact`: in float32, as
    ONNX's reference does). Pairs left out of a pruned set have IoU 0 and suppress under none."""

    i: np.ndarray[Any, Any]
    j: np.ndarray[Any, Any]
    certain: np.ndarray[Any, Any]
    uncertain: np.ndarray[Any, Any]
    exact: np.ndarray[Any, Any]


def _judged(geometry: Geometry, a: np.ndarray[Any, Any], b: np.ndarray[Any, Any], i: np.ndarray[Any, Any],
            j: np.ndarray[Any, Any], reading: Reading) -> Overlaps:
    t = reading.iou_threshold
    t32 = np.float32(t)
    iou = geometry.single.pairwise(a[i], b[j])
    with np.errstate(invalid="ignore"):
        above = iou > t32
        close = np.abs(iou - t32) <= _RELATIVE * abs(t32)
        certain = above & ~close
        uncertain = np.isnan(iou)
        if close.any():
            at = np.flatnonzero(close)
            wide = geometry.double.pairwise(a[i[at]], b[j[at]])
            above_wide = wide > t
            on = (iou[at] == t32) | (wide == t)
            far = np.abs(wide - t) > _ULPS * abs(t)
            agree = above[at] == above_wide
            certain[at] = (agree & far & above_wide & ~on) | (on & reading.suppresses_equal_iou & ~above[at]
                                                              & ~above_wide)
            uncertain[at] = (~on & ~(agree & far)) | (on & (above[at] | above_wide))
    return Overlaps(i, j, certain, uncertain, above)


def overlaps(geometry: Geometry, a: np.ndarray[Any, Any], b: np.ndarray[Any, Any], reading: Reading) -> Overlaps:
    """Every pair of a box of `a` with a box of `b` whose IoU is not 0 for certain: all of them,
    or, where IoU 0 suppresses under no reading asked (a positive threshold, or 0 kept at 0) and
    every box is finite with an area, only those whose x extents meet (found by sorting `b`)."""
    if not _prunable(geometry, reading) or not a.size or not b.size:
        i = np.repeat(np.arange(a.size), b.size)
        j = np.tile(np.arange(b.size), a.size)
        return _judged(geometry, a, b, i, j, reading)
    x1, x2 = geometry.double.x1, geometry.double.x2
    order = np.argsort(x1[b], kind="stable")
    starts = x1[b][order]
    widest = float((x2[b] - x1[b]).max())
    low = np.searchsorted(starts, x1[a] - widest, side="left")
    high = np.searchsorted(starts, _reach(x1[a], x2[a], reading), side="right")
    i, at = _ranges(low, high)
    i, j = _with_flat_pairs(i, order[at], np.flatnonzero(geometry.flat[a]), np.flatnonzero(geometry.flat[b]),
                            b.size, within=False)
    return _judged(geometry, a, b, i, j, reading)


def overlaps_within(geometry: Geometry, a: np.ndarray[Any, Any], reading: Reading) -> Overlaps:
    """Every pair of two boxes of `a`, once (i < j as positions in `a`), as `overlaps` prunes them:
    sorted by their left edge, a box meets only those after it that start before its right edge."""
    if not _prunable(geometry, reading) or a.size < 2:
        i, j = np.triu_indices(a.size, k=1)
        return _judged(geometry, a, a, i, j, reading)
    x1, x2 = geometry.double.x1[a], geometry.double.x2[a]
    order = np.argsort(x1, kind="stable")
    starts = x1[order]
    high = np.searchsorted(starts, _reach(x1[order], x2[order], reading), side="right")
    first, second = _ranges(np.arange(1, a.size + 1), np.maximum(high, np.arange(1, a.size + 1)))
    i, j = order[first], order[second]
    swap = i > j
    i[swap], j[swap] = j[swap], i[swap]
    flat = np.flatnonzero(geometry.flat[a])
    i, j = _with_flat_pairs(i, j, flat, flat, a.size, within=True)
    return _judged(geometry, a, a, i, j, reading)


def _with_flat_pairs(i: np.ndarray[Any, Any], j: np.ndarray[Any, Any], flat_a: np.ndarray[Any, Any],
                     flat_b: np.ndarray[Any, Any], b_size: int, within: bool
                     ) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """The pruned pairs (i, j) and every pair of two boxes without area (IoU 0/0, whatever
    their extents), each once (i < j `within` one set). A box without area and one with an area
    have IoU 0 exactly, wherever they are: pruning them loses nothing."""
    if not flat_a.size or not flat_b.size:
        return i, j
    fi, fj = np.repeat(flat_a, flat_b.size), np.tile(flat_b, flat_a.size)
    if within:
        keep = fi < fj
        fi, fj = fi[keep], fj[keep]
    pairs = np.unique(np.concatenate([i * b_size + j, fi * b_size + fj]))
    return pairs // b_size, pairs % b_size


def _reach(x1: np.ndarray[Any, Any], x2: np.ndarray[Any, Any], reading: Reading) -> np.ndarray[Any, Any]:
    """How far right a box starting at or after a box's own left edge may start and still reach
    IoU near the threshold t with it: their x overlap must exceed t times the box's width (IoU
    <= overlap x height / (width x height)), so it starts before x2 - t w (with slack, so that a
    pair within rounding of t is never left out)."""
    t = max(reading.iou_threshold, 0.0)
    reach: np.ndarray[Any, Any] = x2 - t * (1 - _SLACK) * (x2 - x1)
    return reach


def _prunable(geometry: Geometry, reading: Reading) -> bool:
    """Whether pairs whose x extents are apart (IoU exactly 0) suppress under no reading asked."""
    t = reading.iou_threshold
    return geometry.finite and (t > 0 or (t == 0 and not reading.suppresses_equal_iou))


def _ranges(low: np.ndarray[Any, Any], high: np.ndarray[Any, Any]) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """For each k, the pairs (k, p) with low[k] <= p < high[k], as two index arrays."""
    counts = high - low
    total = int(counts.sum())
    owner = np.repeat(np.arange(low.size), counts)
    offsets = np.repeat(np.cumsum(counts) - counts, counts)
    return owner, np.repeat(low, counts) + (np.arange(total) - offsets)


def keys(scores: np.ndarray[Any, Any], nan_high: bool) -> np.ndarray[Any, Any]:
    """Keys ordered as the scores are, equal where they are equal (-0.0 and +0.0 too): the scores
    themselves in float64 where none is NaN; else dense ranks, NaN above every number or below."""
    values: np.ndarray[Any, Any] = scores.astype(np.float64)
    nan = np.isnan(values)
    if not nan.any():
        return values
    distinct, inverse = np.unique(values[~nan], return_inverse=True)
    rank = np.empty(values.shape, dtype=np.float64)
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


def _hits(pairs: Overlaps, which: np.ndarray[Any, Any], count: int) -> np.ndarray[Any, Any]:
    """Per box of `a` (count of them), whether one of its pairs selected by `which` exists."""
    hit: np.ndarray[Any, Any] = np.bincount(pairs.i[which], minlength=count) > 0
    return hit


def check_class(geometry: Geometry, key: np.ndarray[Any, Any], passing: np.ndarray[Any, Any],
                kept: np.ndarray[Any, Any], reading: Reading) -> ClassCheck:
    """Whether `kept` (distinct box indices, in range) is a set some order of the equal scores
    gives, for one batch and class with these score keys (ordered as the scores, equal where
    they are equal) and threshold passes."""
    below = kept[~passing[kept]]
    if below.size:
        return ClassCheck(f"box {int(below[0])} kept, its score below the score threshold", int(below[0]), False)
    cap = max(reading.cap, 0)
    if kept.size > cap:
        return ClassCheck(f"{kept.size} boxes kept, more than the cap of {cap}", int(kept[-1]), False)
    # No two kept boxes overlap.
    pairs = overlaps_within(geometry, kept, reading)
    clash = pairs.certain
    if clash.any():
        at = int(np.flatnonzero(clash)[0])
        first, second = int(kept[pairs.i[at]]), int(kept[pairs.j[at]])
        return ClassCheck(f"boxes {first} and {second} both kept, their IoU above the threshold", first, False)
    common = not pairs.exact.any()
    # Every candidate left out is suppressed by a kept box at least as high, or finds the cap
    # reached; only those the cap does not explain are compared with the kept boxes.
    candidate = passing.copy()
    candidate[kept] = False
    left = np.flatnonzero(candidate)
    kept_key = key[kept]
    if kept.size >= cap:  # the cap is reached: a box scoring below every kept one finds it reached
        left = left[key[left] >= kept_key.min()] if kept.size else left[:0]
    order = np.sort(kept_key)
    at_least = kept.size - np.searchsorted(order, key[left], side="left")  # kept with a key >= the box's
    higher = kept.size - np.searchsorted(order, key[left], side="right")  # kept with a key > the box's
    admissible_open = at_least < cap
    # Kept boxes before the box in the common order: higher keys, then equal keys at lower indices.
    common_open = higher < cap
    if common and common_open.any():  # kept boxes of an equal key and lower index precede it too
        open_at = np.flatnonzero(common_open)
        before = higher[open_at] + _equal_below(kept, kept_key, key[left[open_at]], left[open_at])
        common_open[open_at] = before < cap
    need = admissible_open | (common_open if common else np.zeros_like(admissible_open))
    boxes = left[need]
    pairs = overlaps(geometry, boxes, kept, reading)
    as_high = kept_key[pairs.j] >= key[boxes][pairs.i]
    covered = _hits(pairs, (pairs.certain | pairs.uncertain) & as_high, boxes.size)
    uncovered = ~covered & admissible_open[need]
    if uncovered.any():
        u = int(boxes[np.flatnonzero(uncovered)[0]])
        return ClassCheck(f"box {u} left out, though it overlaps no kept box of a score at least its own "
                          f"and the cap was not reached", u, False)
    if common:
        precedes = (kept_key[pairs.j] > key[boxes][pairs.i]) | (
            (kept_key[pairs.j] == key[boxes][pairs.i]) & (kept[pairs.j] < boxes[pairs.i]))
        suppressed = _hits(pairs, pairs.exact & precedes, boxes.size)
        common = bool((suppressed | ~common_open[need]).all())
    return ClassCheck("", -1, common)


def _equal_below(kept: np.ndarray[Any, Any], kept_key: np.ndarray[Any, Any], keys: np.ndarray[Any, Any],
                 boxes: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Per box, how many kept boxes have its key and a lower index (one pass per key a box shares
    with a kept box: few, where scores are distinct or ties are heavy)."""
    count = np.zeros(boxes.size, dtype=np.int64)
    if not boxes.size or not kept.size:
        return count
    ordered = np.sort(kept_key)
    at = np.minimum(np.searchsorted(ordered, keys), ordered.size - 1)
    for value in np.unique(keys[ordered[at] == keys]):
        mine = keys == value
        count[mine] = np.searchsorted(np.sort(kept[kept_key == value]), boxes[mine])
    return count


def greedy(geometry: Geometry, key: np.ndarray[Any, Any], passing: np.ndarray[Any, Any],
           reading: Reading) -> np.ndarray[Any, Any]:
    """The common answer for one batch and class: candidates by descending score, equal scores
    by ascending index, each kept unless its IoU with a kept box is above the threshold
    (compared exactly: in float32, NaN suppressing nothing), at most the cap. For messages and
    case files: the judge never needs it. Each box kept strikes out at once every later
    candidate it overlaps. With a threshold of 0 or more only a box whose x extent meets the
    kept one's can be struck (elsewhere the IoU is 0, or NaN), so the IoU is computed only for
    the candidates whose left edge lies within the widest box's width of it (one search in
    the candidates sorted by left edge): a detector's thousands of boxes cost thousands of
    small windows, not thousands of passes over every box."""
    candidates = np.flatnonzero(passing)
    ranked = candidates[np.lexsort((candidates, -key[candidates]))]  # position -> box
    corners = geometry.single
    y1, x1, y2, x2, area = (corners.y1[ranked], corners.x1[ranked], corners.y2[ranked], corners.x2[ranked],
                            corners.area[ranked])
    threshold = np.float32(reading.iou_threshold)
    by_left = np.argsort(x1, kind="stable")  # positions by left edge (NaN last)
    lefts = x1[by_left].astype(np.float64)
    with np.errstate(invalid="ignore"):
        widths = x2.astype(np.float64) - x1.astype(np.float64)
    widths = widths[~np.isnan(widths)]
    # Widened a little: the bound only has to hold every box that can meet the kept one.
    widest = float(widths.max()) * 1.001 + 1e-30 if widths.size else np.inf
    alive = np.ones(ranked.size, dtype=bool)
    kept: list[int] = []
    cap = max(reading.cap, 0)
    position = 0
    while len(kept) < cap and position < ranked.size:
        kept.append(int(ranked[position]))
        top, left, bottom, right, own = y1[position], x1[position], y2[position], x2[position], area[position]
        if threshold >= 0:
            window = by_left[np.searchsorted(lefts, float(left) - widest, "left"):
                             np.searchsorted(lefts, float(right), "left")]
            window = window[(window > position) & alive[window]]
            near = window[(x1[window] < right) & (x2[window] > left)]
        else:  # a negative threshold strikes boxes that do not meet too
            near = position + 1 + np.flatnonzero(alive[position + 1:])
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            h = np.minimum(bottom, y2[near]) - np.maximum(top, y1[near])
            w = np.minimum(right, x2[near]) - np.maximum(left, x1[near])
            inter = np.maximum(h, 0) * np.maximum(w, 0)
            alive[near[inter / (own + area[near] - inter) > threshold]] = False
        position += 1
        while position < ranked.size and not alive[position]:
            position += 1
    return np.array(kept, dtype=np.int64)
