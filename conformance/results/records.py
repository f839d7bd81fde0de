"""Results: one record per (case, backend, graph, K source), and the results file of
contract section 5. Fields may be added; the contract's may not be renamed or dropped."""

from __future__ import annotations

import functools
import json
import platform
import sys
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from conformance.core import machine
from conformance.core.atomic_files import atomic_write_text
from conformance.core.tool_input import InputError, check, parse_json, read_text
from conformance.operator.outcome import Domain, Verdict

VERDICTS: tuple[Verdict, ...] = ("pass", "divergent", "fail", "error", "crash", "skip")
_PACKAGES = (
    "topk-conformance", "numpy", "onnx", "onnxruntime", "onnxruntime-openvino",
    "onnxruntime-gpu", "onnxruntime-directml", "openvino", "tract", "ml_dtypes",
)


@dataclass(frozen=True)
class Result:
    case: str
    backend: str
    graph: str
    k_source: str
    verdict: Verdict
    rules: list[str] = field(default_factory=list)
    domain: Domain = "defined"
    message: str = ""
    seconds: float = 0.0
    # Added fields:
    profile: str = ""  # the dialect rules it was judged by
    placement: str = ""  # what ran the node, as the runtime reported it
    wrapping: str = ""  # how the node was handed to the provider, if not as built
    tags: list[str] = field(default_factory=list)
    discrepancy: dict[str, Any] | None = None
    machine: str = ""  # which results file it came from, once merged
    # "dynamic" where every dimension of X is symbolic in the graph (its k_source says so too).
    x_shape: str = "static"
    # onnx.checker's word on an ONNX graph that a case expecting an error got run unchecked:
    # "rejected: <message>"; "" where it accepted the graph (or the graph is not ONNX).
    checker: str = ""
    # A case with `repeat: N`: every run, in order, as {"run", "verdict", "seconds",
    # "outcome"} (outcome: which of the distinct outcomes, numbered from 1); empty for one run.
    runs: list[dict[str, Any]] = field(default_factory=list)
    case_file: str = ""  # the case file that defines the case (for the report's repro)
    # The backend's own account of `seconds` (over every run of a repeated case), where it
    # times itself (None where it does not, and where nothing ran): opening sessions /
    # compiling models, how many it opened or compiled (0: a session kept from an earlier
    # run or, with graph reuse, from an equal graph), and inside the runtime's execution call.
    compile_seconds: float | None = None
    compilations: int | None = None
    run_seconds: float | None = None
    # A performance cliff: this result's run_seconds over the median of the other backends'
    # on the same case, where more than 20 times (conformance/running/suite.py, flag_cliffs):
    # {"ratio", "run_seconds", "others_median", "others"}. Set on results.json at the end of
    # a run (not in the results.jsonl stream).
    cliff: dict[str, Any] | None = None
    # The instruction-set tier the backend's kernels were chosen under (conformance/core/machine.py:
    # the CPU's, or a backend's limit, as `openvino-cpu-avx2`); "" where the CPU does not
    # choose them (a GPU) or the file predates the field. Baseline scopes match against it.
    isa: str = ""
    # The operator (contract section 6); "topk" in a file that predates the field.
    op: str = "topk"
    # A skip of a graph the backend's record says it does not finish here (record.Unfinishable):
    # the finding that shows it; `run --slow` runs such graphs. "" otherwise.
    unfinished: str = ""

    @property
    def key(self) -> tuple[str, str, str, str, str]:
        return (self.op, self.case, self.backend, self.graph, self.k_source)


def environment() -> dict[str, Any]:
    packages = {}
    for name in _PACKAGES:
        try:
            packages[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return {
        "platform": platform.platform(),
        "machine": platform.node(),
        "python": ".".join(map(str, sys.version_info[:3])),
        "packages": packages,
        # The CPU runtimes choose their kernels by (each backend's own tier is in `backends`).
        **machine.describe(machine.host_tier()),
    }


@dataclass
class ResultsFile:
    environment: dict[str, Any]
    backends: dict[str, dict[str, Any]]
    case_errors: list[str]
    results: list[Result]
    notes: list[str] = field(default_factory=list)  # what reading it dropped (fields unknown here)
    # The `model` command's models (contract section 9): one entry each, as models/document.py writes it.
    models: list[dict[str, Any]] = field(default_factory=list)


def write_results(path: Path, data: ResultsFile) -> None:
    document = {
        "environment": data.environment,
        "backends": data.backends,
        "case_errors": data.case_errors,
        "results": [asdict(result) for result in data.results],
    }
    if data.models:
        document["models"] = data.models
    atomic_write_text(path, json.dumps(document, indent=1) + "\n")


def _stream_document(path: Path, text: str) -> dict[str, Any]:
    """A results stream (results.jsonl: a header line, then a result a line) as the
    results.json document. Only its last line may be cut short (a kill mid-write): it is
    left out; any other line that is not a record is the file's error, naming the line."""
    document: dict[str, Any] = {"results": []}
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        where = f"line {number}"
        try:
            record = parse_json(path, line, where)
        except InputError:
            if number == len(lines) and not text.endswith("\n"):
                continue
            raise
        if not isinstance(record, dict):
            raise InputError(path, where, "a record of results.jsonl is a JSON object (a header or a result)")
        if "result" in record:
            document["results"].append(record["result"])
        else:
            unknown = sorted(set(record) - {"environment", "backends", "case_errors"})
            if unknown:
                raise InputError(path, where, f"neither a header nor a result (its keys: {', '.join(unknown)})")
            document.update(record)
    return document


@functools.cache
def _ops_by_graph() -> dict[tuple[str, str], frozenset[str]]:
    """The operators whose graph variants carry each (graph, k_source): built once, not per result."""
    from conformance.ops.registry import all_variants

    found: dict[tuple[str, str], set[str]] = {}
    for variant in all_variants():
        found.setdefault((variant.graph, variant.k_label), set()).add(variant.op)
    return {key: frozenset(ops) for key, ops in found.items()}


def _topk_or_refuse(path: Path, position: int, raw: dict[str, Any]) -> None:
    """A result without `op` comes from a file written before ArgMax, when every result was
    TopK's: it is read as TopK's only where its graph and K are a TopK graph variant's; any
    other (another operator's, another tool's) is refused, naming the field, never merged
    into TopK's results."""
    graph, k_source = str(raw.get("graph")), str(raw.get("k_source"))  # both required by the schema
    ops = sorted(_ops_by_graph().get((graph, k_source), ()))
    if "topk" not in ops:
        whose = f"it is {', '.join(ops)}'s" if ops else "no operator's"
        raise InputError(path, f"results[{position}].op", f"missing, and graph {graph!r} with K {k_source!r} is not a "
                         f"TopK graph ({whose}): only TopK's results may omit `op` (files from before operators "
                         "were recorded); set `op`")


def read_results(path: Path) -> ResultsFile:
    """A results file (results.json, or a results.jsonl stream), checked against
    conformance/schemas/results.schema.json; InputError naming the field where it is not
    one. Fields this version does not know are dropped, each named once in `notes`."""
    text = read_text(path, "results_bytes")
    document = _stream_document(path, text) if path.suffix == ".jsonl" else parse_json(path, text)
    if not isinstance(document, dict):
        raise InputError(path, "", "not a results file: a JSON object with 'results' (a list of results)")
    check(path, document, "results.schema.json")
    known = set(Result.__dataclass_fields__)
    environment = document.get("environment", {})
    machine = environment.get("machine", "") or path.parent.name
    results = []
    unknown: dict[str, int] = {}
    untold = 0
    for position, raw in enumerate(document["results"]):
        if "op" not in raw:
            _topk_or_refuse(path, position, raw)
            untold += 1
        record = {}
        for key, value in raw.items():
            if key in known:
                record[key] = value
            else:
                unknown.setdefault(key, position)
        record.setdefault("machine", machine)
        results.append(Result(**record))
    notes = [f"{path}: results[{position}].{key}: a field this topk-conformance does not know (a newer "
             "version's?); dropped" for key, position in unknown.items()]
    notes += [f"{path}: {key}: a top-level field this topk-conformance does not know; dropped"
              for key in document if key not in ("environment", "backends", "case_errors", "results", "models")]
    if untold:
        notes.append(f"{path}: {untold} results without `op` (a file from before operators were recorded): read as "
                     "TopK's, each through a TopK graph")
    return ResultsFile(environment, document.get("backends", {}), document.get("case_errors", []), results, notes,
                       document.get("models", []))


@dataclass
class Merged:
    data: ResultsFile
    conflicts: list[str]  # the same result key with different verdicts in two files


def merge(files: list[ResultsFile], prefer_later: bool = False) -> Merged:
    """Several environments' or machines' results as one. The same (operator, case, backend,
    graph, K source) with different verdicts in two files is a conflict: listed, and the later
    file's result kept only with `prefer_later` (else the earlier one stays)."""
    merged: dict[tuple[str, str, str, str, str], Result] = {}
    conflicts: list[str] = []
    backends: dict[str, dict[str, Any]] = {}
    errors: list[str] = []
    for results_file in files:
        for result in results_file.results:
            earlier = merged.get(result.key)
            if earlier is not None and earlier.verdict != result.verdict:
                conflicts.append(
                    f"{result.case} on {result.backend} ({result.graph}, K {result.k_source}): "
                    f"{earlier.verdict} from {earlier.machine or '?'}, {result.verdict} from {result.machine or '?'}"
                )
                if not prefer_later:
                    continue
            merged[result.key] = result
        for name, info in results_file.backends.items():
            if info.get("available") or name not in backends:
                backends[name] = info
        errors += [e for e in results_file.case_errors if e not in errors]
    # Per source: its environment, and the tier each of its backends ran under (the merged
    # `backends` keeps one description per name).
    environments: dict[str, Any] = {"merged": [{**f.environment, **_backend_tiers(f)} for f in files]}
    left_out = _left_out_everywhere(files, backends)
    if left_out:
        environments["left_out"] = left_out
    # A model judged on several machines is several entries: each says where (its backends).
    models = [model for results_file in files for model in results_file.models]
    return Merged(ResultsFile(environments, backends, errors, list(merged.values()), models=models), conflicts)


def _left_out_everywhere(files: list[ResultsFile], backends: dict[str, dict[str, Any]]) -> list[dict[str, str]]:
    """The backends the merged files left out (environment.left_out: `run` says which it did
    not run, and why) that none of them ran, each with the first file's reason (each file's
    own list stays in its `merged` environment)."""
    ran = {name for name, info in backends.items() if isinstance(info, dict) and info.get("available")}
    found: dict[str, str] = {}
    for results_file in files:
        for environment in (results_file.environment, *_merged_environments(results_file.environment)):
            entries = environment.get("left_out")
            for entry in entries if isinstance(entries, list) else []:
                if isinstance(entry, dict) and entry.get("backend") not in ran:
                    found.setdefault(str(entry.get("backend")), str(entry.get("reason", "")))
    return [{"backend": name, "reason": reason} for name, reason in found.items()]


def _merged_environments(environment: dict[str, Any]) -> list[dict[str, Any]]:
    merged = environment.get("merged")
    return [item for item in merged if isinstance(item, dict)] if isinstance(merged, list) else []


def _backend_tiers(results_file: ResultsFile) -> dict[str, str]:
    tiers = {name: str(info.get("isa", "")) for name, info in results_file.backends.items()
             if isinstance(info, dict) and info.get("isa")}
    return {"backend_isa": ", ".join(f"{name}: {tier}" for name, tier in sorted(tiers.items()))} if tiers else {}


def _shard_records(environment: dict[str, Any]) -> list[dict[str, Any]]:
    """The shard records of a results file's environment, and of the files merged into it."""
    found = []
    shard = environment.get("shard")
    if isinstance(shard, dict) and isinstance(shard.get("index"), int) and isinstance(shard.get("count"), int):
        found.append(shard)
    for merged in environment.get("merged", []) if isinstance(environment.get("merged"), list) else []:
        if isinstance(merged, dict):
            found += _shard_records(merged)
    return found


def _numbers(values: Iterable[int]) -> str:
    return ", ".join(str(value) for value in values)


def shard_coverage(files: list[ResultsFile]) -> tuple[list[str], list[str]]:
    """What the shards among these files (`run --shard I/N`, environment.shard) add up to:
    (lines saying which splits are complete, warnings naming missing or repeated shards and
    shards of different splits). Files that are not shards say nothing."""
    # (N, the backends named) -> plan -> the shard numbers given
    splits: dict[tuple[int, str], dict[str, list[int]]] = {}
    # (N, the backends named) -> backend -> the shard numbers it ran in (files that say)
    ran_in: dict[tuple[int, str], dict[str, set[int]]] = {}
    for results_file in files:
        for shard in _shard_records(results_file.environment):
            named = shard.get("backends")
            of = ", ".join(str(name) for name in named) if isinstance(named, list) else ""
            plans = splits.setdefault((shard["count"], of), {})
            plans.setdefault(str(shard.get("plan", "")), []).append(shard["index"])
            for backend in shard.get("ran", []) if isinstance(shard.get("ran"), list) else []:
                ran_in.setdefault((shard["count"], of), {}).setdefault(str(backend), set()).add(shard["index"])
    complete: list[str] = []
    warnings: list[str] = []
    for (count, of), plans in sorted(splits.items()):
        which = f" ({of})" if of else ""
        given = [index for indices in plans.values() for index in indices]
        if len(plans) > 1:
            warnings.append(
                f"shards of {count}{which} from {len(plans)} different splits (plan {_numbers_of(plans)}): run every "
                "shard with the same cases, options and --shard-timings file, or their cases overlap and miss")
        missing = sorted(set(range(1, count + 1)) - set(given))
        repeated = sorted({index for index in given if given.count(index) > 1})
        if missing:
            warnings.append(f"shards of {count}{which}: missing {_numbers(missing)} "
                            f"(given: {_numbers(sorted(set(given)))})")
        for index in repeated:
            warnings.append(f"shard {index}/{count}{which} given {given.count(index)} times")
        # A backend the machine of some shard did not have: its results of those shards are missing.
        partial = {backend: sorted(set(given) - shards) for backend, shards in ran_in.get((count, of), {}).items()
                   if set(given) - shards}
        for backend, without in sorted(partial.items()):
            warnings.append(f"shards of {count}{which}: {backend} did not run in shard {_numbers(without)}; "
                            f"its results of those shards' cases are missing")
        if not missing and not repeated and len(plans) == 1 and not partial:
            complete.append(f"shards 1-{count} of {count}{which}: complete")
    return complete, warnings


def _numbers_of(plans: dict[str, list[int]]) -> str:
    return "; ".join(f"{plan or '?'}: {_numbers(sorted(indices))}" for plan, indices in sorted(plans.items()))
