"""The vendors' quick-start works as written (issue 30): every `sh` block of
docs/vendors/README.md, and of backends.md which continues it, carries a marker saying the
folder it runs from, the exit status it ends with and what it prints or writes, or why it
cannot run here; this test runs the marked
blocks in order, as a new user would, in a scratch folder holding a copy of this checkout
(tracked and untracked files, nothing ignored: no .venv, no build output), with no virtual
environment active, and checks each stated outcome. The prose before each block must say
the same folder and exit status, so the words a person reads are the ones checked.

A marker is an HTML comment on the line before the block (invisible on GitHub):
`<!-- quickstart: cwd=runs exit=0 output="text" creates=a/b,c -->`, or
`<!-- quickstart: skip="why" -->` for what needs a network or another operating system."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from harness import REPO

VENDORS = REPO / "docs" / "vendors"
QUICKSTART = VENDORS / "README.md"
# The pages whose sh blocks run, in this order, in one scratch folder.
PAGES = (QUICKSTART, VENDORS / "backends.md")
# The folders the quick-start's layout names, as they lie in the scratch folder.
FOLDERS = ("topk-conformance", "runs")
MARKER = re.compile(r"^<!-- quickstart: (.*) -->$")
FIELD = re.compile(r'(\w+)=(?:"([^"]*)"|(\S+))')
BLOCK_SECONDS = 900  # building the wheel and installing its dependencies from pip's cache


@dataclass(frozen=True)
class Step:
    where: str  # page:line of the block's opening fence, for messages
    fields: dict[str, str]
    script: str
    prose: str  # the paragraph(s) between the previous block and this one

    @property
    def skip(self) -> str:
        return self.fields.get("skip", "")


def steps(text: str, page: str = QUICKSTART.name) -> list[Step]:
    """Every `sh` block of the page, with its marker's fields (a block without one is an
    error: every command of the quick-start must be either run here or say why not)."""
    lines = text.splitlines()
    found: list[Step] = []
    prose_start = 0
    number = 0
    while number < len(lines):
        if lines[number].strip() == "```sh":
            end = next(i for i in range(number + 1, len(lines)) if lines[i].startswith("```"))
            marker = MARKER.match(lines[number - 1]) if number else None
            if marker is None:
                raise AssertionError(f"{page}:{number + 1}: an sh block without a quickstart marker")
            fields = {m.group(1): m.group(2) if m.group(2) is not None else m.group(3)
                      for m in FIELD.finditer(marker.group(1))}
            prose = "\n".join(lines[prose_start:number - 1])
            found.append(Step(f"{page}:{number + 1}", fields, "\n".join(lines[number + 1:end]) + "\n", prose))
            prose_start = end + 1
            number = end
        elif lines[number].startswith("```"):  # another kind of block: skip past it whole
            number = next(i for i in range(number + 1, len(lines)) if lines[i].startswith("```"))
        number += 1
    return found


def _checkout_copy(into: Path) -> None:
    """The files a fresh clone has: tracked, and untracked but not ignored (work in progress)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO, capture_output=True, check=True,
    ).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = REPO / name
        if source.is_file():
            target = into / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


def _new_users_environment() -> dict[str, str]:
    """No virtual environment active and nothing of this checkout on PATH: `python3` is the
    system's, as for a person who has just cloned."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "PYTEST_ADDOPTS", "PYTEST_XDIST_WORKER")
           and not k.startswith("PYTEST_")}
    path = [p for p in env.get("PATH", "").split(os.pathsep) if p and not Path(p).resolve().is_relative_to(REPO)]
    env.update(PATH=os.pathsep.join(path), COLUMNS="120", CI="true")
    return env


def all_steps() -> list[Step]:
    return [step for page in PAGES for step in steps(page.read_text(encoding="utf-8"), page.name)]


def test_every_sh_block_of_the_quickstart_is_marked_and_its_prose_states_the_outcome() -> None:
    found = all_steps()
    assert sum(1 for step in found if not step.skip) >= 5, "the quick-start lost its runnable steps"
    for step in found:
        if step.skip:
            continue
        where = step.where
        assert step.fields.get("cwd") in FOLDERS, f"{where}: cwd must be one of {FOLDERS}"
        assert re.fullmatch(r"\d+", step.fields.get("exit", "")), f"{where}: no exit status"
        folder, status = step.fields["cwd"], step.fields["exit"]
        assert f"`{folder}/`" in step.prose, f"{where}: the text does not say to run it from `{folder}/`"
        stated = re.compile(rf"\bexit(?:s| status)? {status}\b", re.IGNORECASE)
        assert stated.search(step.prose), f"{where}: the text does not say it ends with exit status {status}"
        # No command may lean on an activated environment: the suite's programs by path.
        for command in ("topk-conformance ", "pytest ", "pip "):
            bare = [line for line in step.script.splitlines() if line.startswith(command)]
            assert not bare, f"{where}: {bare[0]!r} assumes an activated virtual environment"


def test_the_steps_parser_finds_markers_and_rejects_a_bare_block() -> None:
    page = ('Intro. From `runs/` (exit 0):\n\n'
            '<!-- quickstart: cwd=runs exit=0 output="a b" -->\n```sh\necho "a b"\n```\n')
    [step] = steps(page)
    assert step.fields == {"cwd": "runs", "exit": "0", "output": "a b"} and step.script == 'echo "a b"\n'
    assert "From `runs/`" in step.prose
    with pytest.raises(AssertionError, match="without a quickstart marker"):
        steps("text\n\n```sh\necho hi\n```\n")


def test_the_quickstart_runs_as_written_from_a_fresh_clone(tmp_path: Path) -> None:
    """Each marked block, in order, with `bash -e` from the folder its marker names; its exit
    status, what it prints and the files it says it writes are checked."""
    _checkout_copy(tmp_path / "topk-conformance")
    env = _new_users_environment()
    skipped = []
    for step in all_steps():
        if step.skip:
            skipped.append(f"{step.where}: {step.skip}")
            continue
        cwd = tmp_path / step.fields["cwd"]
        assert cwd.is_dir(), f"{step.where}: the folder {cwd.name}/ does not exist at this step"
        completed = subprocess.run(
            ["bash", "-e", "-c", step.script], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
            capture_output=True, text=True, timeout=BLOCK_SECONDS, check=False,
        )
        said = completed.stdout + completed.stderr
        context = f"{step.where}, from {cwd.name}/:\n{step.script}\n--- output (end) ---\n{said[-4000:]}"
        assert completed.returncode == int(step.fields["exit"]), f"exit {completed.returncode}, " + context
        if "output" in step.fields:
            assert step.fields["output"] in said, f"no {step.fields['output']!r} in its output, " + context
        for made in filter(None, step.fields.get("creates", "").split(",")):
            assert (cwd / made).is_file(), f"{made} was not written, " + context
    # What cannot run here is named, with why, in the page itself (shown with -rP).
    print("not run here:", *skipped, sep="\n  ")
    assert all(reason.split(": ", 1)[1] for reason in skipped), shlex.join(skipped)
