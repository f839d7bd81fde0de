"""JUnit XML for CI systems that show test results: one test suite per backend, one test
case per result, named as the pytest plugin names its tests (`case[op-backend-graph-k_source]`).
fail is a <failure>, error and crash are <error>s, skip is <skipped>;
divergent passes (valid under the dialect) with the difference in <system-out>."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from pathlib import Path

from conformance.core.atomic_files import atomic_write_bytes
from conformance.results.records import Result


def junit_xml(results: Iterable[Result]) -> ET.ElementTree:
    root = ET.Element("testsuites", name="topk-conformance")
    suites: dict[str, ET.Element] = {}
    for result in results:
        suite = suites.get(result.backend)
        if suite is None:
            suite = suites[result.backend] = ET.SubElement(root, "testsuite", name=result.backend)
        case = ET.SubElement(
            suite, "testcase", classname=f"{result.backend}.{result.op}.{result.graph}",
            name=f"{result.case}[{result.op}-{result.backend}-{result.graph}-{result.k_source}]",
            time=f"{result.seconds:.6f}",
        )
        detail = result.message + (f" (rules: {', '.join(result.rules)})" if result.rules else "")
        if result.verdict == "fail":
            ET.SubElement(case, "failure", type="fail", message=detail[:1000]).text = detail
        elif result.verdict in ("error", "crash"):
            ET.SubElement(case, "error", type=result.verdict, message=detail[:1000]).text = detail
        elif result.verdict == "skip":
            ET.SubElement(case, "skipped", message=result.message[:1000])
        elif result.verdict == "divergent":
            ET.SubElement(case, "system-out").text = f"divergent: {detail}"
    for suite in suites.values():
        cases = list(suite)
        suite.set("tests", str(len(cases)))
        suite.set("failures", str(sum(1 for c in cases if c.find("failure") is not None)))
        suite.set("errors", str(sum(1 for c in cases if c.find("error") is not None)))
        suite.set("skipped", str(sum(1 for c in cases if c.find("skipped") is not None)))
    return ET.ElementTree(root)


def write_junit(path: Path, results: Iterable[Result]) -> None:
    tree = junit_xml(results)
    ET.indent(tree)
    buffer = io.BytesIO()
    tree.write(buffer, encoding="utf-8", xml_declaration=True)
    atomic_write_bytes(path, buffer.getvalue())
