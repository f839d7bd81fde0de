"""Hostile but fair input: every broken case file in tests/malformed/ (and the big or deep ones,
made here at run time) gives one error line naming file, case and field; nothing raises, hangs
or runs away with memory; and the good cases beside them still load and run.

docs/broken-input.md lists what each kind of broken input gives."""

from __future__ import annotations

import functools
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from conformance.cases.loader import CaseError, load_cases, load_file
from conformance.ops.topk.case import Case
from tests.harness import run_cli

MALFORMED = Path(__file__).resolve().parent / "malformed"

# file -> [(case, field, words the message holds)]: the errors loading it alone gives, in order.
# Most of these took the run down, ran away, hung or were accepted without a word before
# (docs/broken-input.md); a few (a list as a case, a Python tag, two documents, ...) were
# already refused, and stay here so that they stay refused.
EXPECTED: dict[str, list[tuple[str | None, str, str]]] = {
    "alias-in-expected.yaml": [("alias-expected", "expected.values[1]", "take no YAML aliases")],
    "alias-recursive.yaml": [("recursive", "tags[0]", "refers to a node that contains it")],
    "alias-rows-in-data.yaml": [("alias-rows", "input.data[1]", "take no YAML aliases")],
    "alias-unknown.yaml": [(None, "", "undefined alias 'nowhere', line 2")],
    "alias-whole-data.yaml": [("aliased-data", "input.data", "the alias *d at line 10")],
    "axis-2-70.yaml": [("axis-huge", "axis", "outside int64")],
    # The case whose field the aliases expand into is the error; the others load.
    "billion-laughs.yaml": [(None, "anchors", "unknown top-level field"),
                            ("laughs", "source[0][0][0][0]", "the YAML aliases up to it stand for 141148 nodes, "
                             "more than 100000; the limit is TOPK_MAX_ALIAS_NODES=100000")],
    "binary-not-utf8.yaml": [(None, "", "not UTF-8")],
    "case-is-a-list.yaml": [("#1", "case", "not a list")],
    "case-is-a-scalar.yaml": [("#1", "case", "not a number")],
    "case-is-null.yaml": [("#1", "case", "not a null (nothing)")],
    "case-non-string-key.yaml": [("int-key", "7", "unknown field")],
    "cases-is-a-mapping.yaml": [(None, "cases", "'cases' is a mapping")],
    "control-characters.yaml": [(None, "", "control characters are not allowed")],
    "data-is-a-mapping.yaml": [("data-mapping", "input.data", "is not of type 'array'")],
    "data-shape-10-9.yaml": [("data-billion", "input.shape[0]", "TOPK_MAX_ELEMENTS=100000000")],
    "duplicate-key-cases.yaml": [(None, "cases", "the key 'cases' is given twice")],
    "duplicate-key-dtype.yaml": [("dup-dtype", "input.dtype", "the key 'dtype' is given twice")],
    "duplicate-key-k.yaml": [("dup-k", "k", "the key 'k' is given twice in one mapping (line 7, column 5 and line 8")],
    "empty.yaml": [(None, "cases", "no YAML document")],
    "file-is-a-list.yaml": [(None, "cases", "the file is a list")],
    "file-is-a-scalar.yaml": [(None, "cases", "the file is a number")],
    "file-is-only-a-comment.yaml": [(None, "cases", "no YAML document")],
    "generator-10-9.yaml": [("billion", "input.shape", "1000000000 elements, more than the 100000000")],
    "generator-2-40-squared.yaml": [("huge-square", "input.shape[0]", "1099511627776 is more than")],
    "generator-2-63.yaml": [("huge-line", "input.shape[0]", "9223372036854775808 is more than")],
    "generator-arange-infinite-step.yaml": [("gen-arange-infinite-step", "input.generator.step", "finite")],
    "generator-arange-nan-start.yaml": [("gen-arange-nan-start", "input.generator.start", "NaN")],
    "generator-arange-overflows-float16.yaml": [
        ("gen-arange-overflows-float16", "input.generator.step", "leaves float16's range at i = 66")],
    "generator-constant-beyond-float16.yaml": [
        ("gen-constant-beyond-float16", "input.generator.value", "beyond float16's range")],
    "generator-constant-beyond-uint8.yaml": [
        ("gen-constant-beyond-uint8", "input.generator.value", "not representable in uint8")],
    "generator-few-distinct-2-70.yaml": [("gen-few-distinct-2-70", "input.generator.count", "1 <= count <= 100")],
    "generator-few-distinct-zero.yaml": [("gen-few-distinct-zero", "input.generator.count", "1 <= count <= 100")],
    "generator-iota-infinite-step.yaml": [("gen-iota-infinite-step", "input.generator.step", "not representable")],
    "generator-special-huge-rate.yaml": [("gen-special-huge-rate", "input.generator.rate", "0 <= rate <= 1")],
    "generator-special-nan-rate.yaml": [("gen-special-nan-rate", "input.generator.rate", "0 <= rate <= 1")],
    "generator-uniform-beyond-float16.yaml": [
        ("gen-uniform-beyond-float16", "input.generator.low", "beyond float16's range")],
    "generator-uniform-beyond-float64.yaml": [
        ("gen-uniform-beyond-float64", "input.generator.high", "beyond float64's range")],
    "generator-uniform-beyond-int8.yaml": [("gen-uniform-beyond-int8", "input.generator.low", "low = -1000")],
    "generator-uniform-infinite-bounds.yaml": [
        ("gen-uniform-infinite-bounds", "input.generator.low", "must be a finite number")],
    "generator-uniform-low-above-high.yaml": [("gen-uniform-low-above-high", "input.generator.high", "low < high")],
    "generator-uniform-nan-low.yaml": [("gen-uniform-nan-low", "input.generator.low", "NaN")],
    "generator-uniform-span-overflows.yaml": [
        ("gen-uniform-span-overflows", "input.generator.high", "overflows float64")],
    "id-not-a-string.yaml": [("#1", "id", "12 is not of type 'string'"), ("#2", "id", "is not of type 'string'")],
    "impossible-date.yaml": [(None, "", "month must be in 1..12")],
    "input-is-a-list.yaml": [("input-list", "input", "is not of type 'object'")],
    "integer-5000-digits.yaml": [(None, "", "an integer of more than 4300 digits")],
    "k-2-70.yaml": [("k-huge", "k", "1180591620717411303424 is outside int64")],
    "k-minus-2-70.yaml": [("k-huge-negative", "k", "-1180591620717411303424 is outside int64")],
    "keys-1-and-true.yaml": [("one-and-true", "True", "the keys 1 and True are one key")],
    "nesting-100-deep.yaml": [(None, "", "nested deeper than 64 levels at line 5")],
    "python-tag.yaml": [(None, "", "could not determine a constructor")],
    "shape-nine-dimensions.yaml": [("rank-9", "input.shape", "is too long")],
    "shape-zero-times-2-63.yaml": [("empty-huge", "input.shape[1]", "9223372036854775808 is more than")],
    "top-level-non-string-keys.yaml": [(None, "1", "unknown top-level field")],
    "two-documents.yaml": [(None, "", "expected a single document")],
    "unclosed-bracket.yaml": [(None, "", "did not find expected ',' or ']'")],
}

# Cases in those files that load: a good case beside a broken one in the same file.
LOADS = {"alias-whole-data.yaml": ["anchored-data"]}

GOOD = """\
cases:
  - id: good-data
    source: a well-formed neighbour
    input: {dtype: float32, shape: [2, 3], data: [[1, 2, 3], [4, 5, 6]]}
    axis: 1
    k: 2
  - id: good-generator
    source: a well-formed neighbour
    input: {dtype: int32, shape: [4, 50], generator: {name: uniform, seed: 3}}
    axis: -1
    k: 5
  - id: good-expected
    source: a well-formed neighbour
    input: {dtype: int8, shape: [5], data: [3, 1, 4, 1, 5]}
    axis: 0
    k: 3
    expected: {values: [5, 4, 3], indices: [4, 2, 0]}
"""
GOOD_IDS = ["good-data", "good-generator", "good-expected"]


def errors_and_cases(items: list[Case | CaseError]) -> tuple[list[CaseError], list[str]]:
    return [i for i in items if isinstance(i, CaseError)], [i.id for i in items if isinstance(i, Case)]


def check_line(error: CaseError, words: str) -> None:
    line = str(error)
    assert "\n" not in line, line
    assert words in line, line
    assert len(line) <= 1000 + len(error.file) + 20, len(line)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_broken_file_gives_its_error_lines(name: str) -> None:
    errors, cases = errors_and_cases(load_file(MALFORMED / name))
    assert [(e.case, e.field) for e in errors] == [(case, field) for case, field, _ in EXPECTED[name]], \
        [str(e) for e in errors]
    for error, (_, _, words) in zip(errors, EXPECTED[name], strict=True):
        assert name in error.file
        check_line(error, words)
    assert cases == LOADS.get(name, [])


# --- hostile files too big or too deep to commit: made at run time ------------------------------


def case_text(case_id: str, input_: str, rest: str = "axis: 0\n    k: 1", source: str = "hostile input") -> str:
    return f"cases:\n  - id: {case_id}\n    source: {source}\n    input: {input_}\n    {rest}\n"


def make_generated(folder: Path) -> dict[str, list[tuple[str | None, str, str]]]:
    """Writes the generated hostile files into `folder`; returns what each gives."""
    folder.mkdir(parents=True, exist_ok=True)
    deep = 20_000
    files = {
        # 20,000 lists deep: PyYAML's composer recursed until RecursionError, a traceback.
        "nesting-20000-deep.yaml": case_text("deep", "{dtype: float32, shape: [1], data: "
                                             + "[" * deep + "1" + "]" * deep + "}"),
        "mappings-20000-deep.yaml": case_text("deep-map", "{a: " * deep + "1" + "}" * deep),
        "aliases-2000.yaml": "cases:\n  - id: many-aliases\n    source: &s hostile\n    tags: ["
                             + ", ".join(["*s"] * 2000) + "]\n    input: {dtype: float32, shape: [2], data: [1, 2]}"
                             "\n    axis: 0\n    k: 1\n",
        "id-100000-chars.yaml": case_text("X" * 100_000, "{dtype: float32, shape: [2], data: [1, 2]}"),
        "id-9000-chars.yaml": case_text("X" * 9000, "{dtype: float32, shape: [2], data: [1, 2]}"),
        "source-list-300000.yaml": case_text("source-list", "{dtype: float32, shape: [2], data: [1, 2]}",
                                             source="[" + ", ".join(["123456"] * 300_000) + "]"),
        "cases-10001.yaml": "cases: [" + ", ".join(["{}"] * 10_001) + "]\n",
        "nodes-300000.yaml": "cases: []\nx: [" + ", ".join(["{}"] * 300_000) + "]\n",
    }
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    with (folder / "bigger-than-64-mb.yaml").open("wb") as stream:  # sparse: no disk, no memory
        stream.write(b"cases: []\n#")
        stream.truncate(65 * 1024 * 1024)
    (folder / "a-folder.yaml").mkdir()
    os.mkfifo(folder / "a-fifo.yaml")  # reading it would wait for a writer forever
    (folder / "dev-zero.yaml").symlink_to("/dev/zero")  # reading it would never end
    return {
        "a-fifo.yaml": [(None, "", "not a regular file")],
        "a-folder.yaml": [(None, "", "it is a folder")],
        "aliases-2000.yaml": [(None, "", "more than 1000 YAML aliases")],
        "bigger-than-64-mb.yaml": [(None, "", "the file is 68157440 bytes, more than 67108864; "
                                               "the limit is TOPK_MAX_FILE_BYTES=67108864")],
        "cases-10001.yaml": [(None, "cases", "10001 cases, more than 10000 in one file")],
        "dev-zero.yaml": [(None, "", "not a regular file")],
        # Beyond TOPK_MAX_TEXT_CHARS: the case is named by its position.
        "id-100000-chars.yaml": [("#1", "id", "a string of 100000 characters at line 2, column 9, more than the "
                                              "10000 one string may have; the limit is TOPK_MAX_TEXT_CHARS=10000")],
        # Within it, but longer than an error line: cut.
        "id-9000-chars.yaml": [("X" * 210 + "… (8790 more characters cut)", "id", "more characters cut")],
        "mappings-20000-deep.yaml": [(None, "", "nested deeper than 64 levels")],
        "nesting-20000-deep.yaml": [(None, "", "nested deeper than 64 levels")],
        "nodes-300000.yaml": [(None, "", "more than 250000 YAML nodes")],
        "source-list-300000.yaml": [("source-list", "source", "more characters cut")],
    }


def test_generated_hostile_files(tmp_path: Path) -> None:
    expected = make_generated(tmp_path)
    for name, wanted in sorted(expected.items()):
        started = time.process_time()
        errors, cases = errors_and_cases(load_file(tmp_path / name))
        assert time.process_time() - started < 10, name
        assert [(e.case, e.field) for e in errors] == [(case, field) for case, field, _ in wanted], \
            (name, [str(e)[:300] for e in errors])
        for error, (_, _, words) in zip(errors, wanted, strict=True):
            check_line(error, words)
        assert cases == [], name


# --- all together, beside good cases -------------------------------------------------------------


def write_good(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "good.yaml").write_text(GOOD, encoding="utf-8")
    return folder


def expected_lines(generated: dict[str, list[tuple[str | None, str, str]]]) -> int:
    return sum(map(len, EXPECTED.values())) + sum(map(len, generated.values()))


def test_all_together_load_in_seconds_and_the_good_cases_load(tmp_path: Path) -> None:
    assert sorted(p.name for p in MALFORMED.iterdir()) == sorted(EXPECTED)  # every file is listed
    generated = make_generated(tmp_path / "generated")
    good = write_good(tmp_path / "good")
    started = time.process_time()
    loaded = load_cases([MALFORMED, tmp_path / "generated", good])
    seconds = time.process_time() - started  # CPU time: the machine may be busy
    assert len(loaded.errors) == expected_lines(generated), [str(e)[:200] for e in loaded.errors]
    assert sorted(case.id for case in loaded.cases) == sorted([*GOOD_IDS, *LOADS["alias-whole-data.yaml"]])
    assert seconds < 10, seconds


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def test_run_of_broken_and_good_cases_finishes_in_seconds_within_2_gb(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`topk-conformance run` on all of it, its address space held to 2 GB: before, 71 such
    files with 3 good cases hit a 120 s limit at 5.5 GB, printed no error line and ran nothing."""
    generated = make_generated(tmp_path / "generated")
    good = write_good(tmp_path / "good")
    # run_cli, with the memory limit on the child (and only on it).
    monkeypatch.setattr(subprocess, "run", functools.partial(subprocess.run, preexec_fn=_limit_memory))
    started, before = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
    completed = run_cli("run", "--cases", MALFORMED, "--cases", tmp_path / "generated", "--cases", good,
                        "--backend", "onnx-reference", "--out", tmp_path / "out", timeout=60)
    seconds, after = time.perf_counter() - started, resource.getrusage(resource.RUSAGE_CHILDREN)
    assert completed.returncode == 0, completed.stderr[-3000:]
    # CPU seconds of the run and its workers (wall time on a loaded machine says less); and a
    # wall-clock bound all the same.
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    assert cpu < 10 and seconds < 30, (cpu, seconds)
    lines = [line for line in completed.stderr.splitlines() if line.startswith("case error: ")]
    assert len(lines) == expected_lines(generated), completed.stderr[-3000:]
    for name, wanted in [*EXPECTED.items(), *generated.items()]:
        mine = [line for line in lines if f"/{name}: " in line or line.startswith(f"case error: {name}: ")]
        assert len(mine) == len(wanted), (name, mine)
        for line, (case, field, _) in zip(mine, wanted, strict=True):
            where = line.split(f"{name}: ", 1)[1]
            if case is not None:
                assert where.startswith(f"case '{case}': {field}: "), line
            elif field:
                assert where.startswith(f"{field}: "), line
    document = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    assert len(document["case_errors"]) == len(lines)
    results: list[dict[str, Any]] = document["results"]
    ran = {r["case"] for r in results}
    assert ran == {*GOOD_IDS, *LOADS["alias-whole-data.yaml"]}
    assert all(r["verdict"] in ("pass", "skip") for r in results), [r for r in results if r["verdict"] != "pass"]
    for case_id in ran:
        assert any(r["verdict"] == "pass" for r in results if r["case"] == case_id), case_id


# --- the limits: each named in its error, and raised by its environment variable ---------------------


LIMITED: dict[str, tuple[str, str, str, str]] = {
    # limit variable: (value that refuses, value that allows, the file, words of the error)
    "TOPK_MAX_FILE_BYTES": ("100", "1000", case_text("small", "{dtype: int8, shape: [3], data: [1, 2, 3]}"),
                            "more than 100; the limit is TOPK_MAX_FILE_BYTES=100"),
    "TOPK_MAX_CASES": ("1", "2", case_text("one", "{dtype: int8, shape: [3], data: [1, 2, 3]}")
                       + case_text("two", "{dtype: int8, shape: [3], data: [1, 2, 3]}").replace("cases:\n", ""),
                       "2 cases, more than 1 in one file; the limit is TOPK_MAX_CASES=1"),
    "TOPK_MAX_NODES": ("10", "100", case_text("nodes", "{dtype: int8, shape: [3], data: [1, 2, 3]}"),
                       "more than 10 YAML nodes"),
    "TOPK_MAX_ELEMENTS": ("5", "6", case_text("six", "{dtype: int8, shape: [2, 3], generator: {name: uniform}}",
                                              "axis: 1\n    k: 1"),
                          "2 x 3 is 6 elements, more than the 5 a case may have; the limit is TOPK_MAX_ELEMENTS=5"),
    # root mapping, cases, the case, input, data, a row: 6 levels
    "TOPK_MAX_DEPTH": ("5", "6", case_text("deep", "{dtype: int8, shape: [1, 2], data: [[1, 2]]}", "axis: 1\n    k: 1"),
                       "nested deeper than 5 levels at line 4, column 48; the limit is TOPK_MAX_DEPTH=5"),
    "TOPK_MAX_ALIASES": ("1", "2", case_text("aliases", "{dtype: int8, shape: [2], data: [1, 2]}",
                                             "axis: 0\n    k: 1\n    tags: [&t x, *t, *t]"),
                         "more than 1 YAML aliases (the last at line 7, column 22); the limit is TOPK_MAX_ALIASES=1"),
    # the alias stands for the list and its two strings: 3 nodes
    "TOPK_MAX_ALIAS_NODES": ("2", "3", case_text("alias-nodes", "{dtype: int8, shape: [2], data: [1, 2]}",
                                                 "axis: 0\n    k: 1\n    tags: &t [a, b]\n    graphs: *t"),
                             "stand for 3 nodes, more than 2; the limit is TOPK_MAX_ALIAS_NODES=2"),
    "TOPK_MAX_TEXT_CHARS": ("13", "14", case_text("text", "{dtype: int8, shape: [2], data: [1, 2]}",
                                                  source="fourteen chars"),
                            "source: a string of 14 characters at line 3, column 13, more than the 13 one string "
                            "may have; the limit is TOPK_MAX_TEXT_CHARS=13"),
    # the alias stands for one string of 6 characters
    "TOPK_MAX_ALIAS_CHARS": ("5", "6", case_text("alias-chars", "{dtype: int8, shape: [2], data: [1, 2]}",
                                                   "axis: 0\n    k: 1\n    tags: [&t sixsix, *t]"),
                             "tags[1]: the alias *t at line 7, column 23: the YAML aliases up to it stand for 6 "
                             "characters of strings and numbers, more than 5"),
}


@pytest.mark.parametrize("variable", sorted(LIMITED))
def test_each_limit_is_named_and_its_variable_raises_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    refuses, allows, text, words = LIMITED[variable]
    path = tmp_path / "a.yaml"
    path.write_text(text, encoding="utf-8")
    monkeypatch.setenv(variable, refuses)
    errors = load_cases([path]).errors
    assert len(errors) == 1 and words in str(errors[0]), [str(e) for e in errors]
    monkeypatch.setenv(variable, allows)
    loaded = load_cases([path])
    blocking = [e for e in loaded.errors if variable in str(e)]
    assert blocking == [], [str(e) for e in loaded.errors]


def test_limits_as_loader_parameters(tmp_path: Path) -> None:
    from conformance.core.safe_yaml import Limits

    path = tmp_path / "a.yaml"
    path.write_text(case_text("six", "{dtype: int8, shape: [2, 3], generator: {name: uniform}}", "axis: 1\n    k: 1"),
                    encoding="utf-8")
    assert [e.field for e in load_cases([path], Limits(elements=5)).errors] == ["input.shape"]
    assert [c.id for c in load_file(path, Limits(elements=6)) if isinstance(c, Case)] == ["six"]


def test_error_line_length_is_a_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "a.yaml"
    path.write_text(case_text("long-source", "{dtype: int8, shape: [2], data: [1, 2]}",
                              source="[" + ", ".join(["7"] * 5000) + "]"), encoding="utf-8")
    monkeypatch.setenv("TOPK_MAX_ERROR_CHARS", "300")
    (error,) = load_cases([path]).errors
    assert len(str(error)) <= 300 and "more characters cut)" in str(error), str(error)
    monkeypatch.setenv("TOPK_MAX_ERROR_CHARS", "100000")
    (error,) = load_cases([path]).errors
    assert "more characters cut" not in str(error) and str(error).count(", 7") == 4999


@pytest.mark.parametrize("value", ["lots", "0", "-5", "1.5"])
def test_a_bad_limit_variable_is_every_files_error_not_a_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    write_good(tmp_path)
    monkeypatch.setenv("TOPK_MAX_DEPTH", value)
    loaded = load_cases([tmp_path])
    assert loaded.cases == []
    assert [str(e) for e in loaded.errors] == [
        f"{tmp_path / 'good.yaml'}: TOPK_MAX_DEPTH={value!r} is not a whole number of at least 1"
    ]


# --- what a file may put into memory and into the report (issue 38) -----------------------------------


def aliased_sources(chars: int, cases: int) -> str:
    """One string of `chars` characters, anchored as the first case's source and aliased as
    the source of `cases` - 1 more, beside a good case."""
    text = case_text("good", "{dtype: int8, shape: [2], data: [1, 2]}")
    text += case_text("long-0", "{dtype: int8, shape: [2], data: [1, 2]}", source="&s " + "x" * chars)[7:]
    return text + "".join(case_text(f"long-{n}", "{dtype: int8, shape: [2], data: [1, 2]}", source="*s")[7:]
                          for n in range(1, cases))


def test_a_string_beyond_the_limit_aliased_as_many_sources_is_each_cases_error(tmp_path: Path) -> None:
    """The issue's probe, 1 MB anchored once and aliased 899 times as `source`, was accepted:
    a run wrote a 1.8 GB report at 5.3 GB peak memory."""
    path = tmp_path / "aliased.yaml"
    path.write_text(aliased_sources(1 << 20, 900), encoding="utf-8")
    errors, cases = errors_and_cases(load_file(path))
    assert cases == ["good"]
    assert [(e.case, e.field) for e in errors] == [(f"long-{n}", "source") for n in range(900)]
    for error in errors:
        check_line(error, "source: a string of 1048576 characters at line 8, column 13, more than the 10000 one "
                          "string may have; the limit is TOPK_MAX_TEXT_CHARS=10000")


def test_aliases_standing_for_more_characters_than_the_limit_are_those_cases_errors(tmp_path: Path) -> None:
    from conformance.core.safe_yaml import Limits

    path = tmp_path / "aliased.yaml"
    path.write_text(aliased_sources(5000, 10), encoding="utf-8")
    errors, cases = errors_and_cases(load_file(path, Limits(alias_chars=25_000)))
    # long-1 ... long-5 stand for 25000 characters: within the limit; each later alias is beyond it.
    assert cases == ["good", *(f"long-{n}" for n in range(6))]
    assert [(e.case, e.field) for e in errors] == [(f"long-{n}", "source") for n in range(6, 10)]
    check_line(errors[0], "the YAML aliases up to it stand for 30000 characters of strings and numbers, more "
                          "than 25000; the limit is TOPK_MAX_ALIAS_CHARS=25000")


@pytest.mark.parametrize(("field", "rest", "words"), [
    ("tags", "tags: [" + ", ".join(f"t{n}" for n in range(200_000)) + "]", "200000 items, more than the 64"),
    ("tags[0]", "tags: [" + "t" * 101 + "]", "101 characters, more than the 100"),
    ("id", "", "1001 characters, more than the 1000"),
])
def test_ids_and_tags_on_every_row_are_few_and_short(tmp_path: Path, field: str, rest: str, words: str) -> None:
    """Each result (a row of results.json and the report) carries its case's id and tags: one
    case of 200000 tags (a 2.4 MB file) made a 32 MB results.json on one backend (nine rows).
    An id longer than 1000 characters was run, and its results.json then refused by merge."""
    case_id = "i" * 1001 if field == "id" else "tagged"
    path = tmp_path / "a.yaml"
    path.write_text(case_text(case_id, "{dtype: int8, shape: [2], data: [1, 2]}", "axis: 0\n    k: 1\n    " + rest)
                    + case_text("good", "{dtype: int8, shape: [2], data: [1, 2]}")[7:], encoding="utf-8")
    errors, cases = errors_and_cases(load_file(path))
    assert cases == ["good"]
    assert [error.field for error in errors] == [field]
    check_line(errors[0], f"{field}: {words} it may have")


_PEAK = """
import resource, sys
from pathlib import Path
from conformance.cases.loader import load_file
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
assert [type(item).__name__ for item in load_file(Path(sys.argv[1]))] == ["Case"]
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before)
"""


def test_a_long_flat_list_of_numbers_costs_at_most_about_17_times_its_file(tmp_path: Path) -> None:
    """A list of one-digit numbers (3 bytes each) peaked at 84 times its file (the 60 MB probe
    at 4.6 GB): matching the whole list with one regular expression of a repeated group kept
    a backtracking record of ~200 bytes a number."""
    count = 700_000
    path = tmp_path / "digits.yaml"
    path.write_text(case_text("digits", f"{{dtype: int8, shape: [{count}], data: [" + ", ".join(["7"] * count)
                              + "]}"), encoding="utf-8")
    done = subprocess.run([sys.executable, "-c", _PEAK, str(path)], capture_output=True, text=True, check=True,
                          cwd=Path(__file__).resolve().parent.parent)
    peak = int(done.stdout.split()[-1]) * 1024
    assert peak < 20 * path.stat().st_size, peak / path.stat().st_size


def test_a_long_aliased_source_adds_its_error_lines_to_the_report_not_the_string(tmp_path: Path) -> None:
    """The good case runs and its results are written; the report of the run with the aliased
    cases is as large as without them, give or take their error lines (it was the string
    twice on each of their rows)."""
    reports = {}
    for name, text in {"without": aliased_sources(5, 1).split("  - id: long-0")[0],
                       "with": aliased_sources(100_000, 5)}.items():
        path = tmp_path / f"{name}.yaml"
        path.write_text(text, encoding="utf-8")
        completed = run_cli("run", "--cases", path, "--backend", "onnx-reference", "--out", tmp_path / name,
                            timeout=120)
        assert completed.returncode == 0, completed.stderr[-2000:]
        written = json.loads((tmp_path / name / "results.json").read_text())
        assert {result["case"] for result in written["results"]} == {"good"}
        reports[name] = (tmp_path / name / "report.html").stat().st_size
    assert [error.split(": ")[1:3] for error in written["case_errors"]] == [
        [f"case 'long-{n}'", "source"] for n in range(5)]
    assert reports["with"] - reports["without"] < 5 * 5 * 1000, reports


# --- whatever breaks while loading one file is that file's (or case's) error ----------------------


@pytest.mark.parametrize("failure", [RuntimeError("boom"), MemoryError(), RecursionError("too deep")],
                         ids=lambda e: type(e).__name__)
def test_an_exception_loading_a_case_is_that_cases_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failure: BaseException
) -> None:
    import conformance.cases.loader as loader

    write_good(tmp_path)
    real = loader._build_case

    def breaks_on_one(raw: Any, *args: Any) -> Case:
        if raw.get("id") == "good-generator":
            raise failure
        return real(raw, *args)

    monkeypatch.setattr(loader, "_build_case", breaks_on_one)
    loaded = load_cases([tmp_path])
    assert [(e.case, e.field) for e in loaded.errors] == [("good-generator", "")]
    assert ("out of memory" if isinstance(failure, MemoryError) else type(failure).__name__) in str(loaded.errors[0])
    assert [case.id for case in loaded.cases] == ["good-data", "good-expected"]


def test_an_exception_loading_a_file_is_that_files_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import conformance.cases.loader as loader

    write_good(tmp_path / "good")
    (tmp_path / "other.yaml").write_text(case_text("other", "{dtype: int8, shape: [2], data: [1, 2]}"))
    real = loader.parse

    def breaks_on_other(text: str, *args: Any, **kwargs: Any) -> Any:
        if "other" in text:
            raise TypeError("unexpected")
        return real(text, *args, **kwargs)

    monkeypatch.setattr(loader, "parse", breaks_on_other)
    loaded = load_cases([tmp_path])
    assert [(Path(e.file).name, e.case, e.field) for e in loaded.errors] == [("other.yaml", None, "")]
    assert "TypeError: unexpected" in str(loaded.errors[0])
    assert sorted(case.id for case in loaded.cases) == sorted(GOOD_IDS)


# --- both YAML parsers enforce the same --------------------------------------------------------------


@pytest.mark.parametrize("name", ["billion-laughs.yaml", "nesting-100-deep.yaml", "duplicate-key-k.yaml",
                                  "alias-rows-in-data.yaml", "alias-recursive.yaml", "keys-1-and-true.yaml"])
def test_pure_python_yaml_gives_the_same_errors(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import conformance.core.safe_yaml as safe_yaml

    with_libyaml = [str(e) for e in load_file(MALFORMED / name)]
    monkeypatch.setattr(safe_yaml, "YAML_LOADER", safe_yaml.PurePythonLoader)
    pure = [e for e in load_file(MALFORMED / name) if isinstance(e, CaseError)]
    assert [(e.case, e.field) for e in pure] == [(c, f) for c, f, _ in EXPECTED[name]]
    for error, (_, _, words) in zip(pure, EXPECTED[name], strict=True):
        check_line(error, words)
    assert [str(e) for e in pure] == with_libyaml


# --- what stays allowed ---------------------------------------------------------------------------


def test_anchors_outside_tensors_and_merge_keys_still_load(tmp_path: Path) -> None:
    text = """\
base: &base {source: shared, axis: 0, k: 1}
cases:
  - id: first
    <<: *base
    input: &in {dtype: int8, shape: [3], data: &row [3, 1, 2]}
    tags: &tags [shared_tag]
  - id: second
    <<: *base
    k: 2
    input: *in
    tags: *tags
"""
    path = tmp_path / "a.yaml"
    path.write_text(text, encoding="utf-8")
    loaded = load_cases([path])
    assert [str(e) for e in loaded.errors] == ["a.yaml: base: unknown top-level field (the only one is 'cases')"
                                               .replace("a.yaml", str(path))]
    assert [(c.id, c.k, c.x.tolist(), c.tags) for c in loaded.cases] == [
        ("first", 1, [3, 1, 2], ("shared_tag",)), ("second", 2, [3, 1, 2], ("shared_tag",))]


def test_a_big_generated_case_loads_in_bounded_memory(tmp_path: Path) -> None:
    """10**8 float32 elements (400 MB) load within a 2 GB address space: the generators draw a
    block at a time (they used to hold about 2.3 GB of temporaries for this)."""
    path = tmp_path / "big.yaml"
    path.write_text(case_text("big", "{dtype: float32, shape: [100, 1000000], generator: {name: uniform, seed: 1}}",
                              "axis: 1\n    k: 3"), encoding="utf-8")
    script = ("import sys; from pathlib import Path; from conformance.cases.loader import load_file; "
              "(case,) = load_file(Path(sys.argv[1])); print(case.x.shape, case.x.dtype)")
    started = time.perf_counter()
    completed = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True,
                               timeout=120, preexec_fn=_limit_memory, check=False,
                               cwd=Path(__file__).resolve().parent.parent)
    assert completed.returncode == 0, completed.stderr[-2000:]
    assert completed.stdout.strip() == "(100, 1000000) float32", completed.stdout + completed.stderr[-2000:]
    assert time.perf_counter() - started < 60
