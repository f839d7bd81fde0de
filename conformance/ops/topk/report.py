"""TopK in the HTML report (its record's `report`): the three documents and what each says
(contract section 1's table, docs/contract.md), how a backend's results bear on each aspect, the
case's input line, DirectML's feature levels, and where a discrepancy's reference came from."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from conformance.core.keys import has_nan
from conformance.operator.report import Aspect, ReportAspects, ResultView, case_count, counts_text
from conformance.ops.topk.case import Case
from conformance.ops.topk.feature_levels import admitting_levels, describe_levels
from conformance.ops.topk.judge import RULES
from conformance.ops.topk.variants import Variant

Results = Sequence[ResultView]
Cases = Mapping[str, Case]

DOCUMENTS = ("ONNX TopK (opsets 1, 10, 11, 24)", "OpenVINO TopK-11 (also TopK-1, TopK-3)", "DirectML TOP_K / TOP_K1")

# Where a case file is not found, its tags say which K category it is about.
_K_TAGS = {"k_zero": "K=0", "k_equals_n": "K=n", "k_too_large": "K>n"}


def _rules_text(results: Results) -> str:
    counts = Counter(rule for r in results for rule in r.rules)
    return ", ".join(f"{rule} {counts[rule]}" for rule in RULES if counts[rule])


def _direction(results: Results, cases: Cases) -> list[str]:
    smallest = [r for r in results if ((c := cases.get(r.case)) is not None and not c.largest)
                or (c is None and "smallest" in r.tags)]
    lines = [f"smallest-K ({case_count(smallest)}): {counts_text(smallest)}"]
    broken = [r for r in smallest if r.verdict == "fail"]
    if broken:
        lines.append(f"rules broken there: {_rules_text(broken)}")
    return lines


def _output_order(results: Results, cases: Cases) -> list[str]:
    order = [r for r in results if r.verdict != "skip" and "order" in r.rules]
    on_defined = sum(1 for r in order if r.domain == "defined")
    lines = [f"order broken: {len(order)} results ({on_defined} on defined inputs)"]
    for sort in ("index", "none"):
        chosen = [r for r in results if (c := cases.get(r.case)) is not None and c.sort == sort]
        if chosen:
            lines.append(f"sort={sort} cases: {counts_text(chosen)}")
    return lines


def _ties(results: Results, cases: Cases) -> list[str]:
    defined = [r for r in results if r.verdict != "skip" and r.domain == "defined"]
    tie_order = [r for r in defined if "tie-order" in r.rules]
    selection = [r for r in defined if "selection" in r.rules]
    divergent = [r for r in defined if r.verdict == "divergent"]
    lines: list[str] = []
    if not tie_order and not selection:
        lines.append(f"no tie-order or selection broken on defined inputs ({len(defined)} judged)")
    for label, chosen in (("tie-order broken", tie_order), ("selection broken", selection)):
        if chosen:
            graphs = ", ".join(sorted({r.graph for r in chosen}))
            k_sources = ", ".join(sorted({r.k_source.split("-", 1)[0] for r in chosen}))
            lines.append(f"{label} on defined inputs: {len(chosen)} results, {case_count(chosen)} "
                         f"(graphs {graphs}; K {k_sources})")
    if divergent:
        lines.append(f"valid but not the DirectML answer (divergent): {len(divergent)} results, "
                     f"{case_count(divergent)}")
    return lines


def _k_category(case: Case) -> str | None:
    if case.k == 0:
        return "K=0"
    if case.k == case.n:
        return "K=n"
    if case.k > case.n:
        return "K>n"
    return None


def _k(results: Results, cases: Cases) -> list[str]:
    by_category: dict[str, list[ResultView]] = {}
    for r in results:
        case = cases.get(r.case)
        category = _k_category(case) if case else next((_K_TAGS[t] for t in r.tags if t in _K_TAGS), None)
        if category:
            by_category.setdefault(category, []).append(r)
    lines = []
    for category in ("K=0", "K=n", "K>n"):
        chosen = by_category.get(category, [])
        if chosen:
            undefined = sum(1 for r in chosen if r.domain == "undefined")
            lines.append(f"{category} ({case_count(chosen)}): {counts_text(chosen)}"
                         + (f"; {undefined} outside the defined domain" if undefined else ""))
    return lines or ["no K=0, K=n or K>n case ran"]


def _index_type(results: Results, cases: Cases) -> list[str]:
    dtype_broken = [r for r in results if r.verdict != "skip" and "dtype" in r.rules]
    lines = [f"dtype rule broken (value or index type): {len(dtype_broken)} results"]
    for index_type in ("int32", "int64"):
        chosen = [r for r in results if (c := cases.get(r.case)) is not None and c.index_type == index_type]
        if chosen:
            lines.append(f"index_type {index_type} cases: {counts_text(chosen)}")
    return lines


def _dtypes(results: Results, cases: Cases) -> list[str]:
    per_dtype: dict[str, list[ResultView]] = {}
    for r in results:
        case = cases.get(r.case)
        per_dtype.setdefault(case.dtype_name if case else "unknown", []).append(r)
    errors, never = [], []
    for dtype, chosen in sorted(per_dtype.items()):
        ran = [r for r in chosen if r.verdict != "skip"]
        failed = [r for r in ran if r.verdict in ("error", "crash")]
        if failed:
            errors.append(f"{dtype} {len(failed)}/{len(ran)}")
        if not ran:
            never.append(dtype)
    ran_types = sorted(d for d, chosen in per_dtype.items() if any(r.verdict != "skip" for r in chosen))
    lines = [f"ran on: {', '.join(ran_types) or 'nothing'}"]
    if errors:
        lines.append(f"error/crash (of those run): {', '.join(errors)}")
    if never:
        lines.append(f"only skips: {', '.join(never)}")
    return lines


def _nan(results: Results, cases: Cases) -> list[str]:
    nan = [r for r in results if ((c := cases.get(r.case)) is not None and has_nan(c.x))
           or (r.case not in cases and "nan" in r.tags)]
    lines = [f"NaN inputs ({case_count(nan)}): {counts_text(nan)}"]
    nan_order = [r for r in nan if "nan-order" in r.rules]
    if nan_order:
        lines.append(f"nan-order broken (no single NaN placement explains it): {len(nan_order)} results")
    other = [r for r in nan if r.verdict == "fail" and "nan-order" not in r.rules]
    if other:
        lines.append(f"other rules broken with NaN placed: {_rules_text(other)}")
    return lines


# Contract section 1, as the three documents say it, in DOCUMENTS' order.
ASPECTS: tuple[Aspect[Case], ...] = (
    Aspect("direction", (
        "largest (opset 11+), max only before", "mode: max / min",
        "AxisDirection (TOP_K1); TOP_K is decreasing only"), _direction),
    Aspect("output order", (
        "sorted=1: by value; sorted=0: undefined", "sort: value / index / none (none: undefined)",
        "always by value, per direction"), _output_order),
    Aspect("ties", (
        "lower index first, for selection and order", "undefined unless stable=true; then input order",
        "indices ascending, whatever the direction"), _ties),
    Aspect("K", (
        "attribute (opset 1) or input; \"a single positive value\"; K > n is an error; K=0 is outside "
        "the defined domain", "input; must be in [1, n], else undefined",
        "UINT, > 0; the docs say \"less than\" the axis size"), _k),
    Aspect("index type", (
        "int64", "index_element_type i32 (default) or i64", "UINT32, or UINT64 from feature level 5.0"), _index_type),
    Aspect("dtypes", (
        "v11: all numeric; v24 adds bfloat16", "any numeric", "table per feature level (2.0, 2.1, 3.1, 5.0)"), _dtypes),
    Aspect("NaN", ("not specified", "implementation-defined", "not specified"), _nan),
)


def input_line(case: Case) -> str:
    return (f"axis {case.axis}, k {case.k}, largest {str(case.largest).lower()}, sort {case.sort}, "
            f"stable {case.stable if case.stable is not None else 'unset'}, "
            f"index_type {case.index_type or 'default'}")


def levels(case: Case) -> str:
    return describe_levels(admitting_levels(case.dtype_name, case.x.ndim, case.index_type))


def reference_from(case: Case, variant: Variant) -> str:
    """Case.reference's rule: the case's `expected` where the variant's order allows it."""
    if case.uses_expected(variant.profile(case).order):
        return "the case's expected output"
    return "the DirectML answer (the suite's oracle)"


REPORT: ReportAspects[Case, Variant] = ReportAspects(
    documents=DOCUMENTS,
    aspects=ASPECTS,
    input_line=input_line,
    levels=levels,
    levels_tables="DML_TOP_K / DML_TOP_K1",
    reference_from=reference_from,
    reference_unknown="the case's expected output or the DirectML answer (case file not found)",
    outputs_shown=("indices", "values"),
    index_output="indices",
    length_label="K",
)
