"""The DirectML answer: the one output DML_TOP_K1's documented rules admit for an input.

Sorted by value in the direction asked; ties by ascending index, both for which tied
elements are selected at the boundary and for their order. DirectML says nothing about
NaN; this answer places NaN above every number (and the judge marks such input as outside
the defined domain).

Linear in the input where K is small: per sequence, the K-th best value is found by
selection, not a sort (a partition; of a sample first where K is small against the
sequence; a sort only where one value crowds the sequence, since numpy's partition slows
down many times over there), every element strictly better than it is taken, then the
lowest-indexed elements tied with it until K are taken (looked for in a prefix of the
sequence: where ties are many, the first ones lie near its front), and only those K are
sorted (by value, ties by index). Sequences are independent: blocks of them go to one
thread per core where the input is large (`threads`), each block within its thread's share
of BLOCK elements, and a sequence longer than that share is split in equal spans, one per
thread, each taken a piece at a time (a running best K); so no temporary is larger than a
block in all, whatever the input's size, and the input itself is never copied whole."""

from __future__ import annotations

import itertools
import math
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from conformance.core.dtypes import is_float
from conformance.core.keys import comparable, has_nan, nan_mask, natively_ordered, value_key
from conformance.core.sequences import from_rows, output_shape, row_block, sequence_count

Order = Literal["value", "index", "none"]

# Elements handled at once: bounds every temporary of the oracle.
BLOCK = 1 << 22
# Rows up to this long, or where K is half the row or more, are simply sorted.
FULL_SORT_UP_TO = 64
# Rows from this long, with K at most a 4*SAMPLE_STEP-th of them, are selected from a sample's
# bound (`_select_sampled`); every SAMPLE_STEP-th element or fewer is in the sample.
SAMPLED_FROM = 4096
SAMPLE_STEP = 16
# The first prefix of a row looked in for the elements tied with the K-th best.
TIES_PREFIX = 64
# Calls with this many rows or more take the nearer bound of a sample (`sample_reach`).
RETRIES_SPREAD = 16
# Rows from this long are looked at for a crowd of equal values before a partition
# (`_crowded`), in a sample of CROWD_SAMPLE elements.
CROWD_FROM = 256
CROWD_SAMPLE = 64
# Inputs from this many elements are shared among threads (`threads`): one per core this
# process may run on, or THREADS where set.
PARALLEL_FROM = 1 << 16
THREADS: int | None = None


@dataclass(frozen=True)
class Answer:
    values: np.ndarray[Any, Any]
    indices: np.ndarray[Any, Any]
    # False where a case's expected output gave indices only: the values are then the
    # input's at those indices (the source checks only the indices).
    values_given: bool = True


def directml_answer(
    x: np.ndarray[Any, Any], axis: int, k: int, largest: bool, nan_in_rows: np.ndarray[Any, Any] | None = None,
) -> Answer:
    """Vectorized over every sequence; any rank, any axis (negative counts from the back).
    Blocks of sequences (or spans of a long one) on every core (`threads`). `nan_in_rows`:
    per sequence, whether it holds NaN (`nan_rows`), where the caller has it: no pass over
    the input to find out then."""
    axis = axis % x.ndim
    n = x.shape[axis]
    if not 0 <= k <= n:
        raise ValueError(f"k={k} is outside [0, {n}] for axis {axis}")
    count = sequence_count(x.shape, axis)
    indices = np.empty((count, k), dtype=np.int64)
    if k and count:
        workers = threads(x.size)
        if n > BLOCK // workers:
            for row in range(count):
                nan = None if nan_in_rows is None else bool(nan_in_rows[row])
                indices[row] = top_k_long(row_block(x, axis, row, row + 1)[0], k, largest, workers, nan)
        else:

            def block(start: int, stop: int) -> None:
                nan = None if nan_in_rows is None else bool(nan_in_rows[start:stop].any())
                indices[start:stop] = top_k(comparable(row_block(x, axis, start, stop), nan=nan), k, largest)

            in_parallel(block, row_runs(count, n, workers), workers)
    shape = output_shape(x.shape, axis, k)
    placed = from_rows(indices, shape, axis)
    return Answer(np.take_along_axis(x, placed, axis=axis), placed)


def threads(elements: int) -> int:
    """Threads worth starting on this many elements: one below PARALLEL_FROM (starting them
    costs more than it saves), else one per core this process may run on. Each takes its
    share of BLOCK, so that the temporaries of all of them together stay within a block."""
    if elements < PARALLEL_FROM:
        return 1
    if THREADS is not None:
        return THREADS
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, cores or 1)


def row_runs(count: int, length: int, workers: int) -> list[tuple[int, int]]:
    """(start, stop) of consecutive runs of `count` rows of `length` elements: each within
    a worker's share of BLOCK (at least one row), as many as a multiple of `workers` (so
    that the workers finish together)."""
    most = max(1, (BLOCK // workers) // max(1, length))
    parts = -(-count // most)
    parts = min(count, -(-parts // workers) * workers)
    per = -(-count // parts)
    return [(start, min(count, start + per)) for start in range(0, count, per)]


def in_parallel(work: Callable[[int, int], None], runs: list[tuple[int, int]], workers: int) -> None:
    """work(start, stop) for every run, on up to `workers` threads: numpy lets go of the GIL
    in what takes the time (partitions, sorts, comparisons, gathers). Threads started here
    end here: none is left running in the process."""
    if workers == 1 or len(runs) == 1:
        for start, stop in runs:
            work(start, stop)
        return
    with ThreadPoolExecutor(min(workers, len(runs))) as pool:
        for _ in pool.map(lambda run: work(*run), runs):
            pass


def nan_rows(x: np.ndarray[Any, Any], axis: int) -> np.ndarray[Any, Any]:
    """Per sequence (as `sequences.as_rows` numbers them), whether it holds a NaN; tested in
    x's own type, a block at a time, the blocks (or spans of a long sequence) on several
    threads as in `directml_answer`."""
    axis = axis % x.ndim
    count = sequence_count(x.shape, axis)
    found = np.zeros(count, dtype=bool)
    if not is_float(x.dtype) or x.size == 0:
        return found
    n = x.shape[axis]
    workers = threads(x.size)
    if n > BLOCK // workers:
        for row in range(count):
            found[row] = _has_nan_in_spans(row_block(x, axis, row, row + 1)[0], workers)
    else:

        def block(start: int, stop: int) -> None:
            rows = row_block(x, axis, start, stop)
            if has_nan(rows):  # one pass of a minimum; a mask only where there is NaN
                found[start:stop] = nan_mask(rows).any(axis=1)

        in_parallel(block, row_runs(count, n, workers), workers)
    return found


def _has_nan_in_spans(sequence: np.ndarray[Any, Any], workers: int) -> bool:
    """Whether one long sequence holds a NaN, an equal span of it per worker."""
    spans_with_nan: list[bool] = []

    def span(start: int, stop: int) -> None:
        spans_with_nan.append(has_nan(sequence[start:stop]))

    in_parallel(span, _spans(len(sequence), workers), workers)
    return any(spans_with_nan)


def _spans(n: int, workers: int) -> list[tuple[int, int]]:
    """(start, stop) of `workers` equal spans of a sequence of n (none empty)."""
    return list(itertools.pairwise(sorted({n * i // workers for i in range(workers + 1)})))


def stable_order(c: np.ndarray[Any, Any], largest: bool) -> np.ndarray[Any, Any]:
    """Per row of `c` (comparable values), positions best first, equal values by ascending
    position. For largest, a stable ascending sort of the reversed row, reversed back, keeps
    ties in ascending position without negating anything (no overflow, no -0.0 games)."""
    if not largest:
        return np.argsort(c, axis=1, kind="stable")
    width = c.shape[1]
    reversed_order = np.argsort(c[:, ::-1], axis=1, kind="stable")
    ordered: np.ndarray[Any, Any] = (width - 1 - reversed_order)[:, ::-1]
    return ordered


def top_k(c: np.ndarray[Any, Any], k: int, largest: bool) -> np.ndarray[Any, Any]:
    """Per row of `c` (rows of comparable values, see keys.comparable), the positions of the
    DirectML answer: best first, ties by ascending position (int64, shape (rows, k))."""
    n = c.shape[1]
    if 2 * k >= n or n <= FULL_SORT_UP_TO:
        return np.ascontiguousarray(stable_order(c, largest)[:, :k], dtype=np.int64)
    chosen = select(c, k, largest)
    order = stable_order(np.take_along_axis(c, chosen, axis=1), largest)
    ordered: np.ndarray[Any, Any] = np.take_along_axis(chosen, order, axis=1)
    return ordered


def select(c: np.ndarray[Any, Any], k: int, largest: bool) -> np.ndarray[Any, Any]:
    """Per row, the positions of the K best of `c`: those strictly better than the K-th best
    value in ascending position, then the lowest-positioned elements equal to it in
    ascending position (so the positions of any one value ascend, which is all a stable sort
    by value needs). Linear."""
    rows, n = c.shape
    if k == n:
        return np.broadcast_to(np.arange(n, dtype=np.int64), (rows, n)).copy()
    if n >= SAMPLED_FROM and SAMPLE_STEP * 4 * k <= n:
        return _select_sampled(c, k, largest)
    return _select_partitioned(c, k, largest)


def _kth_best(c: np.ndarray[Any, Any], k: int, largest: bool) -> np.ndarray[Any, Any]:
    """Per row of `c`, its K-th best value (a column, shape (rows, 1)), by one partition; or
    by a sort, for rows where one value is a crowd (`_crowded`): numpy's partition slows
    down many times over there (measured 10-15x with nine elements in ten equal), its sort
    does not."""
    at = c.shape[1] - k if largest else k - 1
    crowded = _crowded(c)
    if not crowded.any():
        kth: np.ndarray[Any, Any] = np.partition(c, at, axis=1)[:, at : at + 1]
        return kth
    if crowded.all():
        kth = np.sort(c, axis=1)[:, at : at + 1]
        return kth
    kth = np.empty((c.shape[0], 1), dtype=c.dtype)
    kth[crowded] = np.sort(c[crowded], axis=1)[:, at : at + 1]
    kth[~crowded] = np.partition(c[~crowded], at, axis=1)[:, at : at + 1]
    return kth


def _crowded(c: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Per row of `c`, whether one value holds a third or more of a few spread-out elements
    (CROWD_SAMPLE of them, sorted: a value that fills a third of them spans that far)."""
    rows, n = c.shape
    if n < CROWD_FROM:
        return np.zeros(rows, dtype=bool)
    few = np.sort(c[:, :: max(1, n // CROWD_SAMPLE)][:, :CROWD_SAMPLE], axis=1)
    span = max(1, few.shape[1] // 3)
    crowded: np.ndarray[Any, Any] = (few[:, span:] == few[:, :-span]).any(axis=1)
    return crowded


def _better(c: np.ndarray[Any, Any], bound: np.ndarray[Any, Any], largest: bool) -> tuple[
        np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """The elements strictly better than each row's `bound` (a column): their rows and
    positions, by row and then ascending position, and their count per row."""
    rows, n = c.shape
    flat = np.flatnonzero(c > bound if largest else c < bound)
    row_of = flat // n
    return row_of, flat - row_of * n, np.bincount(row_of, minlength=rows)


def _ranks(counts: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """For entries grouped by row, `counts` per row: each entry's place within its row."""
    ranks: np.ndarray[Any, Any] = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
    return ranks


def _select_partitioned(c: np.ndarray[Any, Any], k: int, largest: bool) -> np.ndarray[Any, Any]:
    """`select` by one partition per row (to find the K-th best value): the elements better
    than it (fewer than K), then the first of those equal to it."""
    rows = c.shape[0]
    kth = _kth_best(c, k, largest)
    row_of, columns, counts = _better(c, kth, largest)
    positions = np.empty((rows, k), dtype=np.int64)
    positions[row_of, _ranks(counts)] = columns
    missed = _fill_with_ties(c, np.arange(rows), kth[:, 0], counts, positions)
    assert not missed.size, "fewer ties with the K-th best than places"
    return positions


def _fill_with_ties(
    c: np.ndarray[Any, Any], ids: np.ndarray[Any, Any], value: np.ndarray[Any, Any],
    taken: np.ndarray[Any, Any], positions: np.ndarray[Any, Any],
    density: np.ndarray[Any, Any] | None = None,
) -> np.ndarray[Any, Any]:
    """Fills positions[i, taken[j]:] (i = ids[j]) with the positions of the first elements of
    row i of `c` equal to value[j], as many as there are places; gives back the rows (of
    `ids`) that hold fewer, left unfilled. They are looked for in a prefix of the row,
    lengthened for the rows where it held too few: where ties are many the first ones lie
    near the front, and no pass over whole rows (or a running count along them) is needed.
    `density`, the share of each row's elements thought equal to its value, sizes the first
    prefix."""
    n = c.shape[1]
    need = positions.shape[1] - taken
    pending = np.arange(len(ids))
    width = max(TIES_PREFIX, 4 * int(need.max(initial=0)))
    if density is not None and len(ids):
        width = max(width, int((need / density).max() * 1.5))
    if n <= 8 * TIES_PREFIX:  # short rows (candidates, mostly): whole at once
        width = n
    width = min(n, width)
    while pending.size:
        prefix = c[ids[pending], :width] if len(pending) < c.shape[0] else c[:, :width]
        flat = np.flatnonzero(prefix == value[pending, None])
        row_of = flat // width
        found = np.bincount(row_of, minlength=len(pending))
        wanted = need[pending]
        rank = _ranks(found)
        keep = (found >= wanted)[row_of] & (rank < wanted[row_of])
        done = pending[row_of[keep]]
        positions[ids[done], taken[done] + rank[keep]] = flat[keep] - row_of[keep] * width
        short = found < wanted
        pending = pending[short]
        if width == n:
            break
        # Long enough for the rows still short if ties keep their density so far, and at
        # least twice the last prefix.
        density = np.maximum(found[short], 1) / width
        width = min(n, max(2 * width, int((wanted[short] / density).max(initial=0) * 1.25)))
    missed: np.ndarray[Any, Any] = ids[pending]
    return missed


def sample_step(n: int, k: int) -> int:
    """Every how many elements of a row of `n` the sample takes one, for K: a sample of about
    1.5 * sqrt(n * K) elements, at most every SAMPLE_STEP-th. With the sample's K-th best
    for a bound, which leaves about K * n / sample candidates, that balanced the sample's
    partition against the candidates' selection (measured); with `sample_reach`'s nearer
    bound the candidates depend less on it, and the larger sample finds more ties."""
    return max(SAMPLE_STEP, math.isqrt(n // k) * 2 // 3)


def sample_reach(step: int, k: int, rows: int) -> int:
    """Which best of the sample bounds the row: the sample's j-th best has about j * step
    elements of the row at least as good. Among many rows, j = 4K / step (at least 3)
    leaves about 4K candidates (each costs tens of nanoseconds: fewer pay for the sample's
    K-th best, which leaves about K * step), and fewer than K in one to four rows of distinct
    values in a hundred (measured), done again with the sample's K-th best, which never
    leaves fewer. Among few rows (RETRIES_SPREAD), where one row done again would double
    the time, j = 8K / step (at least 6): fewer than K about once in 10^5. At most K."""
    if rows >= RETRIES_SPREAD:
        return min(k, max(3, -(-4 * k // step)))
    return min(k, max(6, -(-8 * k // step)))


def _select_sampled(c: np.ndarray[Any, Any], k: int, largest: bool, safe: bool = False) -> np.ndarray[Any, Any]:
    """`select` on long rows with small K, without partitioning whole rows. The bound is a
    sample's j-th best (every `sample_step`-th element; j as `sample_reach`, or K where
    `safe`). Where K or more elements are strictly better than it, the K best are among
    those (a few times K where the sample is fair), which go, padded into a small array with
    a value worse than every one of them, through `_select_partitioned`; rows where the
    bound leaves too many (sorted input) are partitioned whole. Where fewer are, and the row
    holds enough elements equal to the bound to fill K, the bound is the K-th best, and
    those elements and the first ones equal to it are the answer (heavy ties: found in a
    prefix of the row). Where it does not (the bound was better than the K-th best), the row
    is done again with the sample's K-th best, which is at worst the row's K-th best."""
    rows, n = c.shape
    step = sample_step(n, k)
    sample = np.ascontiguousarray(c[:, ::step])  # read twice: gathered once
    bound = _kth_best(sample, k if safe else sample_reach(step, k, rows), largest)
    row_of, columns, counts = _better(c, bound, largest)
    positions = np.empty((rows, k), dtype=np.int64)
    short = counts < k
    if short.any():
        ids = np.flatnonzero(short)
        keep = short[row_of]
        positions[row_of[keep], _ranks(counts[ids])] = columns[keep]
        if safe:
            missed = _fill_with_ties(c, ids, bound[ids, 0], counts[ids], positions)
            assert not missed.size, "the sample's K-th best left fewer than K"
        else:
            # The sample's copies of the bound foretell the row's: where it holds one
            # (distinct values, mostly), a bound better than the K-th best is likelier than
            # ties enough to fill K, and the row is done again at once.
            copies = np.count_nonzero(sample[ids] == bound[ids], axis=1)
            tied = copies >= 2
            hopeful = ids[tied]
            missed = _fill_with_ties(c, hopeful, bound[hopeful, 0], counts[hopeful], positions,
                                     copies[tied] / sample.shape[1])
            again = np.sort(np.concatenate([ids[~tied], missed]))
            if again.size:
                positions[again] = _select_sampled(c[again], k, largest, safe=True)
    heavy = counts > max(n // 8, 4 * step * k)
    if heavy.any():
        positions[heavy] = _select_partitioned(c[heavy], k, largest)
    light = ~short & ~heavy
    if light.all():
        positions = _select_among(c, row_of, columns, counts, k, largest)
    elif light.any():
        keep = light[row_of]
        positions[light] = _select_among(c, row_of[keep], columns[keep], counts[light], k, largest)
    return positions


def _select_among(
    c: np.ndarray[Any, Any], row_of: np.ndarray[Any, Any], columns: np.ndarray[Any, Any],
    counts: np.ndarray[Any, Any], k: int, largest: bool,
) -> np.ndarray[Any, Any]:
    """`select` for the rows `row_of` names (by row, then ascending position), among their
    candidates only (K or more per row, each better than a value no worse than the padding:
    a padded place is never taken)."""
    starts = np.cumsum(counts) - counts
    slot = np.arange(len(columns)) - np.repeat(starts, counts)  # the place within its row
    if np.issubdtype(c.dtype, np.floating):
        worst: float | int = -np.inf if largest else np.inf
    else:
        worst = np.iinfo(c.dtype).min if largest else np.iinfo(c.dtype).max
    width = int(counts.max())
    padded = np.full((len(counts), width), worst, dtype=c.dtype)
    # Flat positions where the layout allows: several times faster than pairs of indices.
    values = c.ravel()[row_of * c.shape[1] + columns] if c.flags.c_contiguous else c[row_of, columns]
    padded.ravel()[np.repeat(np.arange(len(counts)) * width, counts) + slot] = values
    chosen = _select_partitioned(padded, k, largest)
    positions: np.ndarray[Any, Any] = columns[starts[:, None] + chosen]
    return positions


def top_k_long(
    row: np.ndarray[Any, Any], k: int, largest: bool, workers: int = 1, nan: bool | None = None,
) -> np.ndarray[Any, Any]:
    """`top_k` of one sequence longer than a worker's share of BLOCK: each worker takes an
    equal span of it; the best K of each span (`_best_of_span`, in ascending index) together
    hold the best K of the sequence, and are selected among by the sequence's own order.
    `nan`: whether the sequence holds NaN, where known."""
    n = row.shape[0]
    piece_size = max(1, BLOCK // workers)
    if 4 * k > piece_size:  # no gain in pieces: the running best K is as large as a piece
        whole: np.ndarray[Any, Any] = top_k(comparable(row, nan=nan)[None, :], k, largest)[0]
        return whole
    runs = _spans(n, workers)
    found: dict[int, np.ndarray[Any, Any]] = {}

    def span(start: int, stop: int) -> None:
        # A span of a sequence without NaN has none; one of a sequence with NaN is keyed
        # (keys order like the values, so a span without NaN among them is still right).
        found[start] = start + _best_of_span(row[start:stop], k, largest, piece_size, nan)

    in_parallel(span, runs, workers)
    candidates = np.concatenate([found[start] for start, _ in runs])  # ascending index
    chosen = top_k(comparable(row[candidates])[None, :], k, largest)[0]
    best: np.ndarray[Any, Any] = candidates[chosen]
    return best


def _best_of_span(
    row: np.ndarray[Any, Any], k: int, largest: bool, piece_size: int, nan: bool | None = None,
) -> np.ndarray[Any, Any]:
    """The positions of the best K of `row` (or all of a shorter one), in ascending position,
    a piece at a time: a running best K merged with each piece's candidates. An element of a
    later piece equal to the running K-th best never displaces it (its index is higher), so
    a piece offers only elements strictly better than that; and only its own best K of
    those."""
    n = row.shape[0]
    k = min(k, n)
    # One representation for the whole span: its values where numpy compares them in the
    # DirectML order, else keys (NaN somewhere in the span, or bfloat16).
    use_keys = not natively_ordered(row, nan)
    pool_c: np.ndarray[Any, Any] | None = None
    pool_i = np.empty(0, dtype=np.int64)
    for start in range(0, n, piece_size):
        piece = row[start : start + piece_size]
        c = value_key(piece) if use_keys else piece
        if pool_c is not None and len(pool_i) == k:
            worst = pool_c.min() if largest else pool_c.max()
            candidates = np.flatnonzero(c > worst if largest else c < worst)
        else:
            candidates = np.sort(select(c[None, :], min(k, len(c)), largest)[0])
        if not candidates.size:
            continue
        if candidates.size > k:
            candidates = candidates[np.sort(select(c[candidates][None, :], k, largest)[0])]
        merged_c = c[candidates] if pool_c is None else np.concatenate([pool_c, c[candidates]])
        merged_i = np.concatenate([pool_i, start + candidates])  # ascending index
        if len(merged_i) > k:
            keep = np.sort(select(merged_c[None, :], k, largest)[0])
            merged_c, merged_i = merged_c[keep], merged_i[keep]
        pool_c, pool_i = merged_c, merged_i
    assert len(pool_i) == k
    return pool_i


def in_order(answer: Answer, axis: int, order: Order) -> Answer:
    """The same selection in a dialect's output order: by value as the oracle gives it, or
    by ascending index (OpenVINO sort=index). For no order ('none') the value order stands
    in; comparisons against it are by set."""
    if order != "index":
        return answer
    axis = axis % answer.values.ndim
    by_index = np.argsort(answer.indices, axis=axis, kind="stable")
    return Answer(
        np.take_along_axis(answer.values, by_index, axis=axis),
        np.take_along_axis(answer.indices, by_index, axis=axis),
    )
