"""One model judged on several backends: probed and run, each in its own worker, then each
node judged and each pair classed (the `model` command's work, apart from its terminal)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from conformance.backends.base import Backend
from conformance.models.capture import JudgedNode, captured_model
from conformance.models.outcome import ModelOutcome, judged
from conformance.models.running import BackendRun, model_graph, run_on
from conformance.models.source import ModelSource
from conformance.running.probed import Probed
from conformance.running.suite import Executors
from conformance.running.workers import ModelAnswer

Said = Callable[[str, ModelAnswer, float], None]


def judge_model(source: ModelSource, feeds: Mapping[str, np.ndarray[Any, Any]], nodes: list[JudgedNode],
                backends: list[Backend], inputs: dict[str, Any], timeout: float, named: bool,
                said: Said | None = None, isolate: bool = True) -> ModelOutcome:
    """Each backend asked whether it can run here, then given the copy and the untouched
    model. A backend that is not available is left out, or, where it was `named`, a skip."""
    capture = captured_model(source.model, nodes)
    model_outputs = tuple(value.name for value in source.model.graph.output)
    captured = model_graph(capture.model, source.opset, feeds, capture.outputs)
    untouched = model_graph(source.model, source.opset, feeds, model_outputs)
    executors = Executors(isolate=isolate, timeout=timeout)
    runs: dict[str, BackendRun] = {}
    info: dict[str, Any] = {}
    try:
        usable = []
        for probed in executors.probe(backends):  # the workers start together, as for `run`
            info[probed.name] = probed.description()
            if probed.available:
                usable.append(probed)
            elif named:
                reason = ModelAnswer(None, "skip", f"{probed.name} is not available: {probed.availability.reason}")
                runs[probed.name] = BackendRun(reason, reason)

        def on(probed: Probed) -> BackendRun:
            began = time.monotonic()
            run = run_on(executors.for_models(probed.backend), captured, untouched)
            if said is not None:
                said(probed.name, run.captured, time.monotonic() - began)
            return run

        # The backends run at once, up to one per core (each in its own worker, already started
        # from this thread): a thread per backend only waits on its worker's pipe. A worker that
        # dies on the copy is started again from that thread for the untouched model, and dies
        # with the thread (workers die with the thread that started them) once both are run.
        # In-process, one at a time.
        jobs = max(1, min(len(usable), os.cpu_count() or 1)) if isolate else 1
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            for probed, run in zip(usable, pool.map(on, usable), strict=True):
                runs[probed.name] = run
    finally:
        executors.close()
    runs = {backend.name: runs[backend.name] for backend in backends if backend.name in runs}  # in the order asked
    return judged(source, inputs, feeds, nodes, runs, model_outputs, capture.tensors, info)
