"""The documentation stands on its own (issue 30): every relative link in README.md and docs/
reaches a file of this repository (and, with `#anchor`, a heading of it, by GitHub's anchor
rules), no link leaves the repository, and nothing points at the contract's old home outside
it. A clone or an installed wheel has only what is in the repository."""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import pytest
from harness import REPO, run_cli

PAGES = sorted([REPO / "README.md", *(REPO / "docs").rglob("*.md")])
# Everything a user or a tool reads that could name the contract: the pages, the code's
# docstrings and comments, the schemas' descriptions, the packaging.
SOURCES = sorted({
    *PAGES,
    *(REPO / "conformance").rglob("*.py"), *(REPO / "backends").rglob("*.py"),
    *(REPO / "conformance").rglob("*.json"),
    REPO / "setup.py", REPO / "MANIFEST.in", REPO / "pyproject.toml",
})
# Where the contract used to live: outside the repository, so absent from a clone or a wheel.
OUTSIDE = ("CONTRACT.md", "../shared")
# The pages also may not send a reader to the notes that lived beside it.
OUTSIDE_OF_PAGES = (*OUTSIDE, "shared/notes")

FENCE = re.compile(r"^ {0,3}(```|~~~)")
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
HTML_ANCHOR = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"")  # <a id="OV1"></a>, as findings.md writes
EXTERNAL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")  # https:, mailto:, ...


def _prose_lines(text: str) -> Iterator[tuple[int, str]]:
    """The lines outside fenced code blocks, with their numbers (a link in code is an example)."""
    fenced = False
    for number, line in enumerate(text.splitlines(), start=1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield number, line


def github_anchor(heading: str) -> str:
    """GitHub's anchor for a heading: its text without markup, lower-cased, every character
    that is not a letter, digit, space, hyphen or underscore dropped, spaces made hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = re.sub(r"<[^>]+>", "", text).replace("`", "").lower()
    kept = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LN")
    return kept.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """Every anchor GitHub makes for a page's headings (a repeated one gains -1, -2, ...),
    and every HTML anchor the page sets itself."""
    seen: dict[str, int] = {}
    found: set[str] = set()
    for _, line in _prose_lines(page.read_text(encoding="utf-8")):
        found.update(HTML_ANCHOR.findall(line))
        match = HEADING.match(line)
        if not match:
            continue
        anchor = github_anchor(match.group(2))
        count = seen.get(anchor, 0)
        seen[anchor] = count + 1
        found.add(anchor if count == 0 else f"{anchor}-{count}")
    return found


def links(page: Path) -> Iterator[tuple[int, str]]:
    for number, line in _prose_lines(page.read_text(encoding="utf-8")):
        for match in LINK.finditer(INLINE_CODE.sub("", line)):
            yield number, match.group(1)


def broken_links(page: Path) -> list[str]:
    """Each relative link of a page that leaves the repository, reaches nothing, or names an
    anchor its target does not have."""
    broken = []
    where = page.relative_to(REPO)
    for number, target in links(page):
        if EXTERNAL.match(target):
            continue
        path_part, _, anchor = target.partition("#")
        resolved = (page.parent / path_part).resolve() if path_part else page
        if not resolved.is_relative_to(REPO.resolve()):
            broken.append(f"{where}:{number}: {target} leaves the repository")
        elif not resolved.exists():
            broken.append(f"{where}:{number}: {target} does not exist")
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            broken.append(f"{where}:{number}: {target}: no heading makes #{anchor}")
    return broken


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_every_relative_link_reaches_a_file_and_heading_of_the_repository(page: Path) -> None:
    assert broken_links(page) == []


def test_nothing_names_the_contract_outside_the_repository() -> None:
    named = [
        f"{source.relative_to(REPO)}:{number}: {line.strip()}"
        for source in SOURCES
        for number, line in enumerate(source.read_text(encoding="utf-8").splitlines(), start=1)
        if any(outside in line for outside in (OUTSIDE_OF_PAGES if source in PAGES else OUTSIDE))
    ]
    assert named == []


def test_the_readme_links_the_contract_on_its_first_screen() -> None:
    first_screen = "\n".join((REPO / "README.md").read_text(encoding="utf-8").splitlines()[:25])
    assert "](docs/contract.md)" in first_screen


def test_the_contract_covers_every_backend_graph_rule_and_verdict() -> None:
    """The contract page names what the code defines: a backend, graph, rule or verdict added
    to the suite without a word in docs/contract.md fails here."""
    from conformance.backends.registry import builtin_backends
    from conformance.operator.attributes import MINIMAL_SUFFIX
    from conformance.ops.registry import OPERATORS
    from conformance.results.records import VERDICTS

    contract = (REPO / "docs" / "contract.md").read_text(encoding="utf-8")
    named = {f"`{b.name}`" for b in builtin_backends()}
    # A minimal twin's name is its graph's with MINIMAL_SUFFIX, which section 7 names once.
    assert f"`{MINIMAL_SUFFIX}`" in contract
    named |= {f"`{v.graph.removesuffix(MINIMAL_SUFFIX)}`" for record in OPERATORS.values() for v in record.variants()}
    named |= {f"`{rule}`" for record in OPERATORS.values() for rule in record.rules}
    named |= {f"`{verdict}`" for verdict in VERDICTS}
    assert sorted(name for name in named if name not in contract) == []


def test_the_checker_finds_what_it_is_for(tmp_path: Path) -> None:
    """The link check itself: a dead link, one outside the repository and a missing anchor
    are each reported; GitHub's anchor rule gives what GitHub gives."""
    assert github_anchor("1. TopK: three documents that disagree") == "1-topk-three-documents-that-disagree"
    assert github_anchor("`--pack` and [packs](x.md)") == "--pack-and-packs"
    page = REPO / "docs" / "contract.md"
    assert "1-topk-three-documents-that-disagree" in anchors(page)
    probe = REPO / "docs" / f".probe-{tmp_path.name}.md"
    probe.write_text(
        "# Here\n\n[a](contract.md#no-such-heading) [b](../../elsewhere.md) [c](nothing.md) "
        "[d](contract.md#2-how-an-output-is-judged) [e](#here) `[f](nothing.md)`\n",
        encoding="utf-8",
    )
    try:
        found = broken_links(probe)
    finally:
        probe.unlink()
    assert len(found) == 3, found
    assert "no heading makes #no-such-heading" in found[0]
    assert "leaves the repository" in found[1] and "does not exist" in found[2]


def test_the_contracts_example_case_file_loads_and_passes_as_written(tmp_path: Path) -> None:
    """The case file docs/contract.md prints is a case file: it loads without an error and its
    expected outputs are the reference evaluator's."""
    page = (REPO / "docs" / "contract.md").read_text(encoding="utf-8")
    block = page.split("```yaml\n", 1)[1].split("```", 1)[0]
    (tmp_path / "example.yaml").write_text(block, encoding="utf-8")
    done = run_cli("run", "--cases", tmp_path / "example.yaml", "--backend", "onnx-reference",
                   "--out", tmp_path / "out")
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    assert not results.get("case_errors") and results["results"]
    verdicts = [r["verdict"] for r in results["results"]]
    assert "pass" in verdicts and set(verdicts) <= {"pass", "skip"}, results["results"]
