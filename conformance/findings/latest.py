"""`findings check --latest`: each finding's repro on the newest release of its runtime on the
package index (installed in the history cache, as `findings history` installs releases), held
against what its record says of the release the suite pins. A scheduled CI job runs it to
notice an upstream fix (a finding that no longer reproduces on the newest release) or a change
(one that now breaks, or cannot run) before the pins move."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from conformance.findings import history as finding_history
from conformance.findings.records import Finding
from conformance.findings.running import expected_here
from conformance.findings.runtimes import releases_of

RESOLVE_SECONDS = 300


class NoRelease(RuntimeError):
    """The package index could not say which release is the newest; the message says why."""


def newest_release(distribution: str) -> str:
    """The version pip would install today (its resolver, the configured index, nothing
    installed: `pip install --dry-run --report`)."""
    command = [sys.executable, "-m", "pip", "install", "--dry-run", "--quiet", "--no-deps", "--ignore-installed",
               "--disable-pip-version-check", "--report", "-", distribution]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=RESOLVE_SECONDS,
                              stdin=subprocess.DEVNULL, check=False)
    except subprocess.TimeoutExpired:
        raise NoRelease(f"pip took more than {RESOLVE_SECONDS} s to resolve {distribution}") from None
    lines = [line for line in done.stderr.splitlines() if line.strip() and not line.startswith("WARNING")]
    if done.returncode != 0:
        raise NoRelease(f"pip cannot resolve {distribution}: {lines[-1] if lines else 'no reason given'}")
    try:
        installs = json.loads(done.stdout)["install"]
        return str(installs[0]["metadata"]["version"])
    except (ValueError, KeyError, IndexError) as exc:
        raise NoRelease(f"pip's report for {distribution} has no version ({type(exc).__name__})") from None


@dataclass(frozen=True)
class Change:
    finding: str
    distribution: str
    version: str  # the newest release
    pinned: str  # what the record says of the pinned release: reproduced / not reproduced
    newest: str  # the repro's outcome on the newest release
    reason: str

    @property
    def changed(self) -> bool:
        return self.newest != self.pinned

    @property
    def says(self) -> str:
        if not self.changed:
            return "as recorded"
        if self.pinned == "reproduced" and self.newest == "not reproduced":
            return f"FIXED in {self.distribution} {self.version}"
        if self.pinned == "not reproduced" and self.newest == "reproduced":
            return f"SHOWS AGAIN in {self.distribution} {self.version}"
        return f"CHANGED in {self.distribution} {self.version}: {self.newest}" + (f" ({self.reason})" if self.reason
                                                                                else "")


def on_newest(findings: Sequence[Finding], tier: str, jobs: int, say: Callable[[str], None]) -> list[Change]:
    """Each finding (with a distribution to vary, from the package index) on its runtime's
    newest release."""
    changes = []
    for distribution, group in finding_history.by_distribution(findings, say).items():
        known = releases_of(distribution)
        if known and known.elsewhere:
            say(f"{distribution}: {known.elsewhere}; not checked on a newer release")
            continue
        try:
            version = newest_release(distribution)
        except NoRelease as exc:
            say(str(exc))
            changes += [Change(f.id, distribution, "?", expected_here(f, tier), "cannot run", str(exc)) for f in group]
            continue
        say(f"{distribution}: the newest release is {version}")
        measured = finding_history.measure(distribution, [version], group, jobs, say)
        refused = measured.refused.get(version, "")
        for finding in group:
            outcome = measured.outcomes.get(finding.id, {}).get(version, "cannot run")
            reason = measured.reasons.get(finding.id, {}).get(version, refused)
            changes.append(Change(finding.id, distribution, version, expected_here(finding, tier), outcome, reason))
    return changes
