"""One model judged on several backends: probed and run, each in its own worker, then each
node judged and each pair classed (the `model` command's work, apart from its terminal)."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any

import numpy as np

from conformance.backends.base import Backend
from conformance.core.interrupts import Interrupted
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
    model. A backend that is not available is left out, or, where it was `named`, a skip.
    SIGINT or SIGTERM while they run (Interrupted, under interruptible()) stops the others:
    what answered is judged, and the outcome says it was `interrupted`."""
    capture = captured_model(source.model, nodes)
    model_outputs = tuple(value.name for value in source.model.graph.output)
    captured = model_graph(capture.model, source.opset, feeds, capture.outputs, timeout)
    untouched = model_graph(source.model, source.opset, feeds, model_outputs, timeout)
    executors = Executors(isolate=isolate, timeout=timeout)
    runs: dict[str, BackendRun] = {}
    info: dict[str, Any] = {}
    interrupted, signum = "", 0
    try:
        usable = []
        for probed in executors.probe(backends):  # the workers start together, as for `run`
            info[probed.name] = probed.description()
            if probed.available:
                usable.append(probed)
            elif named:
                reason = ModelAnswer(None, "skip", f"{probed.name} is not available: {probed.availability.reason}")
                runs[probed.name] = BackendRun(reason, reason)

        stopping = threading.Event()

        def on(probed: Probed) -> BackendRun:
            began = time.monotonic()
            run = run_on(executors.for_models(probed.backend), captured, untouched, stopping.is_set)
            if said is not None and not stopping.is_set():
                said(probed.name, run.captured, time.monotonic() - began)
            return run

        # The backends run at once, up to one per core (each in its own worker, already started
        # from this thread): a thread per backend only waits on its worker's pipe. A worker that
        # dies on the copy is started again from that thread for the untouched model, and dies
        # with the thread (workers die with the thread that started them) once both are run.
        # In-process, one at a time.
        jobs = max(1, min(len(usable), os.cpu_count() or 1)) if isolate else 1
        pool = ThreadPoolExecutor(max_workers=jobs)
        futures = {pool.submit(on, probed): probed for probed in usable}
        try:
            for future in as_completed(futures):
                runs[futures[future].name] = future.result()
        except Interrupted as stop:
            # The backends that answered are kept and judged; the others' workers are killed
            # (their threads then return at once, and start nothing more) and said so.
            interrupted, signum = f"stopped by {stop.name}", stop.signum
            stopping.set()
            executors.close()
            not_run = ModelAnswer(None, "skip", f"not run: {interrupted} before it answered")
            for probed in usable:
                if probed.name not in runs:
                    runs[probed.name] = BackendRun(not_run, not_run)
        finally:
            pool.shutdown(wait=True)
    finally:
        executors.close()
    runs = {backend.name: runs[backend.name] for backend in backends if backend.name in runs}  # in the order asked
    outcome = judged(source, inputs, feeds, nodes, runs, model_outputs, capture, info)
    outcome.interrupted, outcome.signum = interrupted, signum
    return outcome
