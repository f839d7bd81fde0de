"""What a report may say and how long a repro may be (issue 37): the suite's own words are found
where a tracker's reader would meet them, plain English is not; a repro's working part is
counted without its docstring, comments or blank lines; a repro runs where only its needs are."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml
from harness import REPO

from conformance.findings.plain import Vocabulary, working_lines
from conformance.findings.records import load_findings
from conformance.findings.running import run_repro

WORDS = Vocabulary(frozenset({"edge-ties-k2-float32", "simple"}), frozenset({"ort-cpu", "tract"}))


def test_the_suite_s_names_are_found_and_plain_english_is_not() -> None:
    text = ("TopK breaks the `selection` rule on edge-ties-k2-float32 (ort-cpu, W1 (W1)); same cause as TR5. "
            "tract orders the selection wrongly; a simple error; AM-ORT4 too; it is divergent.")
    found = WORDS.suite_words(text)
    assert sorted(found) == sorted(["rule or outcome `selection`", "suite word '(W1)'", "suite word 'divergent'",
                                    "finding id TR5", "finding id AM-ORT4", "backend name ort-cpu",
                                    "case id edge-ties-k2-float32"])
    plain = "TopK orders ties by index; tract gives the selection in a simple order, with no error."
    assert WORDS.suite_words(plain) == []


def test_working_lines_leave_out_docstrings_comments_and_blank_lines() -> None:
    source = ('"""What goes wrong.\n\nStandalone: numpy."""\nimport sys  # why\n\n# a comment\n'
              'def f():\n    """Its doc."""\n    return 1\n\n\nprint(f())\nsys.exit(0)\n')
    assert working_lines(source) == 5


def _finding_needing(tmp_path: Path, needs: list[str]):  # type: ignore[no-untyped-def]
    shutil.copytree(REPO / "findings" / "TVM3", tmp_path / "TVM3")
    record = tmp_path / "TVM3" / "finding.yaml"
    raw = yaml.safe_load(record.read_text(encoding="utf-8"))
    raw["repro"]["needs"] = needs
    record.write_text(yaml.safe_dump(raw, sort_keys=False), encoding="utf-8")
    (tmp_path / "TVM3" / "repro.py").write_text(
        "import sys\ntry:\n    import onnx\nexcept ImportError as error:\n"
        "    print(f'CANNOT RUN: {error}')\n    sys.exit(2)\nprint('REPRODUCED')\n", encoding="utf-8")
    return load_findings(tmp_path).findings["TVM3"]


def test_a_repro_runs_where_only_its_needs_are_installed(tmp_path: Path) -> None:
    """onnx is installed beside the suite, but a repro whose record does not list it cannot
    import it: the record is wrong, and a maintainer following it would see the same."""
    assert run_repro(_finding_needing(tmp_path / "a", ["numpy"])).outcome == "cannot run"
    assert run_repro(_finding_needing(tmp_path / "b", ["numpy", "onnx"])).outcome == "reproduced"
