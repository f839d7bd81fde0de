"""The report's section per model (the `model` command, contract section 9): its judged nodes
as rows and the backends as columns, each pair's class said in words a model's author reads,
where the backends part, and the model's own outputs compared."""

from __future__ import annotations

from collections import Counter
from typing import Any

# Each class of a pair of backends at one node, as the report says it.
CLASS_WORDS = {
    "same": "same output",
    "admitted": "equal inputs, different outputs, both allowed: a choice among equal values",
    "flipped": "different inputs (numeric noise upstream), each output right for its own input",
    "fail": "an output is wrong for the input that backend gave the node",
    "error": "a backend could not run it",
    "crash": "a backend died or hung",
    "skip": "not judged on a backend",
}
ORDER = ("fail", "flipped", "admitted", "same", "error", "crash", "skip")


def sections(models: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [_section(number, model) for number, model in enumerate(models)]


def _section(number: int, model: dict[str, Any]) -> dict[str, Any]:
    backends = list(model["backends"])
    rows = []
    for node in model["nodes"]:
        counts = Counter(pair["class"] for pair in node["pairs"])
        rows.append({
            "position": _key(node), "name": _label(node), "op_type": node.get("op_type", node["op"]),
            "where": node.get("where", ""), "parting": _key(model.get("parting") or {}) == _key(node),
            "cells": [_cell(node["results"].get(backend)) for backend in backends],
            "classes": [{"name": kind, "count": counts[kind], "words": CLASS_WORDS[kind]}
                        for kind in ORDER if counts[kind]],
            "notes": _notes(node),
        })
    parting = model.get("parting")
    return {
        "anchor": f"model-{number}", "file": model["file"], "sha256": model["sha256"], "backends": backends,
        "inputs": [f"{name}: {spec['dtype']} {spec['shape']} ({spec.get('from', '')})"
                   for name, spec in model.get("inputs", {}).items()],
        "rows": rows,
        "parting": None if parting is None else {
            "node": _label(parting, "node"), "position": _key(parting),
            "pairs": [f"{pair['backends'][0]} and {pair['backends'][1]}: {CLASS_WORDS[pair['class']]}"
                      for pair in parting["pairs"] if pair["class"] in ("fail", "flipped", "admitted")][:12]},
        "runs": ([f"the command was {model['interrupted']}: a backend that had not answered is skip"]
                 if model.get("interrupted") else [])
                + [f"{name}: {info['verdict']}: {info['message']}" for name, info in model["backends"].items()
                 if info.get("verdict") != "pass"]
                + [f"{name}: capturing changed what it ran: {info['capture_changed']}"
                   for name, info in model["backends"].items() if info.get("capture_changed")],
        "outputs": [f"{o['name']}: {o['backends'][0]} and {o['backends'][1]} {o['compared']}"
                    for o in model.get("outputs", []) if o["compared"].startswith("differ")][:40],
    }


def _key(node: dict[str, Any]) -> str:
    """A node's position, and its iteration where it is in a Loop body."""
    if "position" not in node:
        return ""
    return f"{node['position']}" + (f".{node['iteration']}" if node.get("iteration") is not None else "")


def _label(node: dict[str, Any], field: str = "name") -> str:
    return str(node[field]) + (f" (iteration {node['iteration']})" if node.get("iteration") is not None else "")


def _cell(result: dict[str, Any] | None) -> dict[str, Any]:
    if result is None:
        return {"verdict": "", "text": "", "title": "", "like": []}
    rules = f" [{', '.join(result['rules'])}]" if result.get("rules") else ""
    alone = result.get("alone")
    if alone:  # a fail rerun in the node's own graph
        rules += "; fails alone: a finding candidate" if alone["candidate"] else "; not alone"
    return {"verdict": result["verdict"], "text": result["verdict"] + rules, "title": result.get("message", "")[:600],
            "like": list(result.get("like", []))}  # the finding records it is like: linked to the Findings section


def _notes(node: dict[str, Any]) -> list[str]:
    """What the pairs' messages add (how far the inputs differ), once each."""
    seen = dict.fromkeys(f"{pair['backends'][0]} and {pair['backends'][1]}: {pair['message']}"
                         for pair in node["pairs"] if pair.get("message") and pair["class"] == "flipped")
    return list(seen)[:3]
