"""Assign every non-pass ArgMax/ArgMin result to exactly one note of baseline-notes.yaml.

note_for(result) takes one result of a `conformance run` (a dict as in results.json) and returns
the note's key; it raises ValueError on a result no note covers. Rules use the result's backend,
verdict, graph, message and case id only (the case ids of cases/argmax/edge/ name the element
type, the input and select_last_index).

    python assign_notes.py [/tmp/am-edge/results.json]   # counts per backend and note
"""
from __future__ import annotations

import collections
import json
import re
import sys

ONNX_BACKENDS = ("onnx-reference", "ort-cpu", "ort-dml-wine", "openvino-cpu")
NO_KERNEL_ORT_CPU = ("int16", "uint16", "uint32", "uint64", "bfloat16")


def _dtype(case: str) -> str:
    found = re.search(r"(bfloat16|float16|float32|float64|u?int(?:8|16|32|64))", case)
    return found.group(1) if found else "float32"


def _onnx_skip(message: str) -> str | None:
    if re.search(r"has no select_last_index|has no bfloat16|reduces one axis|indices are always int64", message):
        return "skip-onnx-cannot-express"
    return None


def note_for(result: dict) -> str:
    backend, verdict = result["backend"], result["verdict"]
    case, message, graph = result["case"], result.get("message") or "", result.get("graph", "")
    if verdict == "pass":
        raise ValueError(f"{case} passes on {backend}: no note")
    nan = "-nan-" in case
    dtype = _dtype(case)

    if verdict == "skip":
        if backend in ONNX_BACKENDS and _onnx_skip(message):
            return "skip-onnx-cannot-express"
        if backend == "directml-wine":
            if "no keepdims" in message:
                return "skip-dml-no-keepdims0"
            if "REDUCE has no AxisDirection" in message:
                return "skip-dml-reduce-first-only"
            if "reports" in message and "unsupported" in message or "no bfloat16 tensor type" in message:
                return "skip-dml-type-unsupported"

    elif backend == "onnx-reference":
        if verdict == "divergent" and nan:
            return "ref-nan-first-wins"
        if verdict == "error" and "of an empty sequence" in message:
            return "ref-empty-axis-raises"

    elif backend == "ort-cpu":
        if verdict == "error" and "NOT_IMPLEMENTED" in message and dtype in NO_KERNEL_ORT_CPU:
            return "ort-argmax-no-kernel"
        if verdict == "error" and "InsertedPrecisionFreeCast" in message and graph == "onnx-opset1":
            return "ort-float16-opset1-inserted-cast"
        if verdict == "error" and "RUNTIME_EXCEPTION" in message and "-empty-" in case:
            return "ort-empty-axis-error-no-message"
        if verdict == "fail" and "nan-everywhere" in case and case.endswith("-last"):
            return "ort-nan-last-keeps-first"
        if verdict == "divergent" and nan:
            return "ort-nan-placement"

    elif backend == "ort-dml-wine":
        if verdict == "error" and "DmlExecutionProvider declined" in message and dtype in ("float16", "float64"):
            return "dml-ep-declines-float16-float64"
        if verdict == "error" and "Provider type for Arg" in message and dtype in ("int16", "uint16", "bfloat16"):
            return "dml-ep-provider-type-not-set"
        if verdict == "error" and "InsertedPrecisionFreeCast" in message and graph == "onnx-opset1":
            return "ort-float16-opset1-inserted-cast"
        if verdict == "error" and "cannot reshape" in message and "-empty-" in case:
            return "suite-empty-axis-unjudged"
        if verdict == "fail" and "-wide-2147483648-int64" in case:
            return "dml-int64-low-words-signed"
        if verdict == "fail" and "nan-everywhere" in case and case.endswith("-last"):
            return "dml-nan-last-keeps-first"
        if verdict == "divergent" and nan:
            return "dml-nan-placement"

    elif backend == "directml-wine":
        if verdict == "error" and "CreateOperator" in message:
            if dtype == "float64":
                return "dml-refuses-float64"
            if "-empty-" in case:
                return "dml-refuses-empty"
        if verdict == "fail" and "-wide-2147483648-int64" in case:
            return "dml-int64-low-words-signed"
        if verdict == "fail" and "-axes-2-0" in case:
            return "dml-axes-flattened-in-dimension-order"
        if verdict == "fail" and "nan-everywhere" in case and case.endswith("-last"):
            return "dml-nan-last-keeps-first"
        if verdict == "divergent" and nan:
            return "dml-nan-placement"

    elif backend == "openvino-cpu":
        if verdict == "fail" and dtype in ("int64", "uint32", "uint64") and re.search(r"-(extremes|wide-2147483648)-", case):
            return "ov-argmax-wide-int-in-i32"
        if verdict == "fail" and dtype == "float64" and re.search(r"-(max-neighbours|subnormals)-", case):
            return "ov-argmax-float64-in-float32"
        if verdict == "fail" and dtype == "bfloat16" and "-subnormals-" in case:
            return "ov-argmax-bfloat16-subnormal-ties"
        if verdict in ("fail", "divergent") and case.startswith("edge-argmin-nan-") and (
                "nan-everywhere" in case or verdict == "fail"):
            return "ov-argmin-nan-resets-minimum"
        if verdict == "divergent" and nan:
            return "ov-nan-placement"
        if verdict == "error" and "cannot reshape" in message and "-empty-" in case:
            return "suite-empty-axis-unjudged"

    raise ValueError(f"no note for {backend} {verdict} {case} {graph}: {message[:120]}")


def main(path: str = "/tmp/am-edge/results.json") -> None:
    results = json.load(open(path))["results"]
    counts: collections.Counter[tuple[str, str, str]] = collections.Counter()
    for result in results:
        if result.get("op") in ("argmax", "argmin") and result["verdict"] != "pass":
            counts[(result["backend"], note_for(result), result["verdict"])] += 1
    for (backend, note, verdict), count in sorted(counts.items()):
        print(f"{backend:15s} {note:40s} {verdict:9s} {count}")
    print("every non-pass result assigned:", sum(counts.values()))


if __name__ == "__main__":
    main(*sys.argv[1:])
