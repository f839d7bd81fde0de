"""The data the report's script renders: every result once, in columns of small integers that
index shared tables (cases, variants, rule sets, messages), and each discrepancy group with
its first result in full. A page of 60,000 results then weighs a few megabytes and opens at
once; the script draws a group or the per-case matrix only when it is opened."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from conformance.report.data import DISCREPANT, FAMILIES, FAMILY_LABELS, CaseInfo, member_message
from conformance.report.repro import graph_family
from conformance.results.records import VERDICTS, Result

VERDICT_CODES = "pdfecs"  # VERDICTS' order, one letter each
DOMAIN_CODES = {"defined": "d", "undefined": "u"}


class _Table:
    """Distinct values in first-seen order, each by its index."""

    def __init__(self, first: Any = None) -> None:
        self.values: list[Any] = []
        self._index: dict[Any, int] = {}
        if first is not None:
            self.add(first)

    def add(self, value: Any) -> int:
        key = json.dumps(value, sort_keys=True) if isinstance(value, list | dict) else value
        if key not in self._index:
            self._index[key] = len(self.values)
            self.values.append(value)
        return self._index[key]


def build(results: list[Result], infos: Mapping[str, CaseInfo], backends: list[str],
          described: Mapping[str, Mapping[str, Any]], groups: list[dict[str, Any]],
          machines_of: Mapping[str, list[str]], case_tags: Mapping[str, list[str]]) -> dict[str, Any]:
    """What the page's script reads (serialized by `to_json`)."""
    assert len(VERDICT_CODES) == len(VERDICTS)
    backend_index = {name: i for i, name in enumerate(backends)}
    cases: list[list[Any]] = []
    case_index: dict[str, int] = {}
    tags = _Table()
    for r in results:
        if r.case in case_index:
            continue
        info = infos.get(r.case)
        case_index[r.case] = len(cases)
        cases.append([
            r.case, r.op, info.file if info else r.case_file, info.case.source if info else "",
            f"{info.dtype} {info.shape}" if info else "", info.levels if info else "case file not found",
            [tags.add(t) for t in case_tags.get(r.case, [])],
        ])
    # Variants sorted by (graph, K), so that the script sorts a cell's results by index alone.
    variant_keys = sorted({(r.graph, r.k_source) for r in results})
    variant_index = {key: i for i, key in enumerate(variant_keys)}
    rule_sets = _Table([])
    messages = _Table("")
    columns: dict[str, list[Any]] = {"case": [], "backend": [], "variant": [], "rules": [], "message": []}
    verdicts, domains = [], []
    for r in results:
        columns["case"].append(case_index[r.case])
        columns["backend"].append(backend_index[r.backend])
        columns["variant"].append(variant_index[(r.graph, r.k_source)])
        columns["rules"].append(rule_sets.add(list(r.rules)))
        # Only a discrepancy's message is shown (a group row); the others stay in results.json.
        columns["message"].append(messages.add(member_message(r.message)) if r.verdict in DISCREPANT else 0)
        verdicts.append(VERDICT_CODES[VERDICTS.index(r.verdict)])
        domains.append(DOMAIN_CODES.get(r.domain, "d"))
    index_of = {id(r): i for i, r in enumerate(results)}
    return {
        "verdicts": list(VERDICTS), "families": FAMILIES, "family_labels": FAMILY_LABELS,
        "backends": [_backend(name, described.get(name, {}), machines_of.get(name, [])) for name in backends],
        "cases": cases, "tags": tags.values,
        "variants": [[graph, k, graph_family(graph)] for graph, k in variant_keys],
        "rule_sets": rule_sets.values, "messages": messages.values,
        "results": {**columns, "verdict": "".join(verdicts), "domain": "".join(domains)},
        "groups": [_group(g, index_of) for g in groups],
    }


def _backend(name: str, described: Mapping[str, Any], machines: list[str]) -> dict[str, Any]:
    return {"name": name, "family": str(described.get("family", "")), "kernels": str(described.get("kernels", "")),
            "semantics": str(described.get("semantics", "")), "machines": machines}


def _group(group: dict[str, Any], index_of: Mapping[int, int]) -> dict[str, Any]:
    first = group["first"]
    r: Result = first["result"]
    return {
        "id": group["id"], "backend": group["backend"], "verdict": group["verdict"], "placement": group["placement"],
        "rules": group["rules"], "domain": group["domain"], "kind": group["kind"], "cases": group["cases"],
        "findings": group["findings"], "members": [index_of[id(m["result"])] for m in group["members"]],
        "first": {
            "index": index_of[id(r)], "source": first["source"], "case_file": first["case_file"],
            "input": first["input"], "levels": first["levels"], "detail": _compact_detail(first["detail"]),
            "repro": first["repro"],
            "profile": r.profile, "placement": r.placement, "wrapping": r.wrapping, "machine": r.machine,
            "checker": r.checker, "message": r.message, "tags": list(r.tags),
            "runs": [[str(run.get("verdict", "?")), str(run.get("outcome") or "")] for run in r.runs],
        },
    }


def _compact_detail(detail: dict[str, Any] | None) -> dict[str, Any] | None:
    """A discrepancy's sequences as the script reads them: a gap as its count, an element as
    [position, text] or [position, text, 1] where marked."""
    if detail is None:
        return None
    def items(view: list[dict[str, Any]]) -> list[Any]:
        return [item["gap"] if "gap" in item else [item["pos"], item["text"], *([1] if item["mark"] else [])]
                for item in view]
    sequences = ["input", *(f"{side}_{name}" for name in detail["outputs"] for side in ("got", "want"))]
    return {**detail, **{key: items(detail[key]) for key in sequences}}


def to_json(payload: Mapping[str, Any]) -> str:
    """JSON safe inside <script type="application/json">: no "<" (so no "</script>" and no
    "<!--"), no "&", and no line or paragraph separators a parser might trip on."""
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    for raw, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                         ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(raw, escaped)
    return text
