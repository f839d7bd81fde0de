"""Build hook: the repository's cases/ goes into the wheel as conformance/corpus/, its
findings/ (the finding records and their repros) as conformance/finding_records/, and its
docs/ (the contract, the vendors' guide, every page the README links) as conformance/docs/, so
an installed user has the documentation the wheel's behaviour is described in.

cases/ stays the single source of the corpus; nothing is copied by hand. Every build of the
package (`pip wheel .`, `python -m build`, from the repository or from its sdist, which
carries cases/ through MANIFEST.in) copies the case files into the build's package folder,
where `conformance.cases.corpus.shipped_corpus()` finds them at run time. An editable install
reads cases/ from the checkout and gets no copy. Everything else is in pyproject.toml."""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

CASES = Path(__file__).resolve().parent / "cases"
CASE_SUFFIXES = (".yaml", ".yml")
FINDINGS = Path(__file__).resolve().parent / "findings"
# A finding's folder: its record, its repros (Python, Node, a page, C), the models beside them.
FINDING_SUFFIXES = (".yaml", ".py", ".mjs", ".html", ".c", ".onnx", ".md")
DOCS = Path(__file__).resolve().parent / "docs"
DOC_SUFFIXES = (".md",)


class BuildPyWithCorpus(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        # A build folder reused between builds (`pip wheel .` builds in place) must not keep
        # a case file that cases/ no longer has.
        shutil.rmtree(Path(self.build_lib) / "conformance" / "corpus", ignore_errors=True)
        shutil.rmtree(Path(self.build_lib) / "conformance" / "finding_records", ignore_errors=True)
        shutil.rmtree(Path(self.build_lib) / "conformance" / "docs", ignore_errors=True)
        for source, target in self._corpus_files():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs: list[str] = super().get_outputs(include_bytecode)
        if getattr(self, "editable_mode", False):
            return outputs
        return outputs + [str(target) for _, target in self._corpus_files()]

    def _corpus_files(self) -> list[tuple[Path, Path]]:
        if not CASES.is_dir():
            raise SystemExit(f"cannot build topk-conformance without its corpus: {CASES} is missing")
        corpus = Path(self.build_lib) / "conformance" / "corpus"
        records = Path(self.build_lib) / "conformance" / "finding_records"
        findings = sorted(FINDINGS.rglob("*")) if FINDINGS.is_dir() else []
        docs = Path(self.build_lib) / "conformance" / "docs"
        pages = sorted(DOCS.rglob("*")) if DOCS.is_dir() else []
        return [
            (path, corpus / path.relative_to(CASES))
            for path in sorted(CASES.rglob("*"))
            if path.is_file() and path.suffix in CASE_SUFFIXES
        ] + [
            (path, records / path.relative_to(FINDINGS))
            for path in findings
            if path.is_file() and path.suffix in FINDING_SUFFIXES and "__pycache__" not in path.parts
        ] + [
            (path, docs / path.relative_to(DOCS))
            for path in pages
            if path.is_file() and path.suffix in DOC_SUFFIXES
        ]


setup(cmdclass={"build_py": BuildPyWithCorpus})
