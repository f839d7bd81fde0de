"""The LiteRT backend (issue 36): onnx2tf and LiteRT in a Python environment of their own
(`setup litert`), driven through a host process. Real onnx2tf, TensorFlow and LiteRT: a graph
converts and runs with ONNX's shapes, a stage that refuses names itself, a conversion never
reaches the network, a dead host is that graph's crash and the next graph runs, and packs change
no result."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from harness import DOCUMENTED, require_available
from onnx import TensorProto, helper

from conformance.backends.base import Backend, BackendCrash, Graph
from conformance.backends.litert import environment, litert_cpu
from conformance.backends.registry import by_name
from conformance.cases.loader import load_cases
from conformance.ops.topk.variants import Variant
from conformance.running.suite import Executors, run_cases


def _topk(opset: int, x: np.ndarray, k: int, axis: int = -1) -> Graph:
    inputs = [helper.make_tensor_value_info("X", TensorProto.FLOAT, list(x.shape))]
    feeds: dict[str, np.ndarray] = {"X": x}
    if opset == 1:
        node = helper.make_node("TopK", ["X"], ["values", "indices"], axis=axis, k=k)
    else:
        inputs.append(helper.make_tensor_value_info("K", TensorProto.INT64, [1]))
        feeds["K"] = np.array([k], np.int64)
        node = helper.make_node("TopK", ["X", "K"], ["values", "indices"], axis=axis)
    outputs = [helper.make_tensor_value_info("values", TensorProto.FLOAT, None),
               helper.make_tensor_value_info("indices", TensorProto.INT64, None)]
    model = helper.make_model(helper.make_graph([node], "g", inputs, outputs),
                              opset_imports=[helper.make_opsetid("", opset)], ir_version=8)
    return Graph(Variant("onnx", opset, "attribute" if opset == 1 else "input"), model, feeds)


@pytest.fixture(scope="module")
def litert() -> Iterator[Backend]:
    (backend,) = by_name(["litert-cpu"])
    yield require_available(backend)
    backend.close()


def test_the_record_says_how_it_is_set_up_and_isolated() -> None:
    record = litert_cpu.RECORD
    assert record.setup is environment.SETUP and record.setup.name == "litert" and record.extra is None
    assert record.isolation == "host process" and record.packs and not record.by_default


def test_without_its_environment_it_is_unavailable_naming_the_setup(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOPK_CONFORMANCE_CACHE", str(tmp_path))
    availability = litert_cpu.LiteRT().availability()
    assert not availability.available and "topk-conformance setup litert" in availability.reason


def test_a_graph_runs_with_the_onnx_shapes_of_its_input(litert: Backend) -> None:
    """Rank 4 with 3 as its last size, an image's shape to onnx2tf: converted with ONNX's layout
    kept, and converted offline (onnx2tf would download sample images for such a graph)."""
    x = np.arange(2 * 3 * 4 * 3, dtype=np.float32).reshape(2, 3, 4, 3) * 7 % 5
    outputs = litert.run(_topk(11, x, 2, axis=1)).outputs
    order = np.argsort(-x, axis=1, kind="stable")[:, :2]
    np.testing.assert_array_equal(outputs["values"], np.take_along_axis(x, order, axis=1))
    np.testing.assert_array_equal(outputs["indices"], order)


def test_a_refusal_names_the_converter_and_its_version(litert: Backend) -> None:
    with pytest.raises(litert_cpu.LiteRTError, match=r"^onnx2tf convert: .*\(onnx2tf 1\.29\.24\)$"):
        litert.run(_topk(1, np.array([[3, 1, 2]], np.float32), 2))


def test_a_dead_host_is_that_graphs_crash_and_the_next_graph_runs(litert: Backend) -> None:
    host = litert._started()  # type: ignore[attr-defined]
    os.kill(host.process.pid, 9)
    with pytest.raises(BackendCrash, match=r"LiteRT's process died \(signal SIGKILL\)"):
        litert.run(_topk(11, np.array([[5, 4, 6]], np.float32), 1))
    assert litert.run(_topk(11, np.array([[5, 4, 6]], np.float32), 1)).outputs["indices"].tolist() == [[2]]


def test_a_pack_of_several_opsets_answers_each_graph_and_leaves_refusals_unanswered(litert: Backend) -> None:
    pack = [_topk(11, np.array([[5, 4, 6]], np.float32), 2), _topk(1, np.array([[5, 4, 6]], np.float32), 1),
            _topk(13, np.array([[1, 9, 3, 7]], np.float32), 3)]
    first, refused, last = litert.run_pack(pack)
    assert first.outputs["indices"].tolist() == [[2, 0]] and last.outputs["indices"].tolist() == [[1, 3, 2]]
    assert not refused.outputs  # unanswered: the runner runs it alone, where its refusal is its own


def test_packs_change_no_result(litert: Backend) -> None:
    """cases/documented packed (64 graphs a model) and alone: the same verdict, rules and message."""
    cases = load_cases([DOCUMENTED]).cases
    alone = run_cases(cases, [litert], executors=Executors(timeout=300, jobs=1, pack=1))
    packed = run_cases(cases, [litert], executors=Executors(timeout=300, jobs=1, pack=64))

    def compared(result: object) -> tuple[object, ...]:
        return tuple(getattr(result, field) for field in ("case", "graph", "k_source", "verdict", "rules", "message"))

    assert sorted(map(compared, packed)) == sorted(map(compared, alone))
    assert sum(r.compilations or 0 for r in packed) < sum(r.compilations or 0 for r in alone) / 2


def test_a_host_leaves_no_temporary_file_behind() -> None:
    """TensorFlow writes a file per traced function to the temporary folder and removes them
    only at a clean exit; the host is killed as the backend closes, so its temporary folder is
    the host's own, removed with it (a whole run here had left 1,251 files in /tmp)."""
    backend = require_available(litert_cpu.LiteRT())
    try:
        backend.run(_topk(11, np.array([[5, 4, 6]], np.float32), 2))
        host = backend._started()  # type: ignore[attr-defined]
        assert any(host.temporary.glob("__autograph_generated_file*"))  # where TensorFlow wrote them
    finally:
        backend.close()
    assert not host.folder.exists()
