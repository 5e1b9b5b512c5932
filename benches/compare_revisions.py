"""Before vs after: the transport and climate benchmarks' sunflux rows for two git revisions, in one run.

    python benches/compare_revisions.py BEFORE [AFTER]     # AFTER defaults to HEAD

A change that reshapes the tree (issue #34's async seam, moves and renames) must not slow the calls
users make. Each revision is checked out into its own worktree under ``target/revisions/`` and built
as a release extension (``cargo build --release``, one shared target folder, so the second build only
recompiles sunflux itself). Then ``revision_probe.py`` runs in a fresh interpreter per revision and
round, alternating the revisions every round so a noisy shared machine affects both alike; each
probe times the same operations as ``bench_transport`` and ``bench_climate`` time for sunflux. The
section written into BENCHMARKS.md gives the medians over rounds and the after/before ratio.
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
WORKTREES = ROOT / "target" / "revisions"
SHARED_TARGET = ROOT / "target" / "revisions-build"
ROUNDS = 6
TITLE = "Before vs after: transport and climate parsing of two revisions"

# What each probe measures, with its unit, in the order the table shows them.
MEASURES = {
    "transport_p50_us": ("Transport: Client.request round trip, p50", "µs"),
    "csv_p50_ms": ("Climate: parse_csv of one site-year, p50", "ms"),
    "zip_best_s": ("Climate: parse_zip of 100 site-years, best of 3", "s"),
}


def _git(*args: str, cwd: pathlib.Path = ROOT) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def build(revision: str) -> pathlib.Path:
    """The ``python`` folder of ``revision``'s worktree, with its release extension built in place."""
    commit = _git("rev-parse", "--verify", f"{revision}^{{commit}}")
    tree = WORKTREES / commit[:12]
    if not tree.exists():
        WORKTREES.mkdir(parents=True, exist_ok=True)
        _git("worktree", "add", "--detach", str(tree), commit)
    extension = tree / "python" / "sunflux" / "_core.abi3.so"
    if not extension.exists():
        environment = {**os.environ, "CARGO_TARGET_DIR": str(SHARED_TARGET)}
        subprocess.run(["cargo", "build", "--release", "--lib", "-q"], cwd=tree, env=environment, check=True)
        shutil.copyfile(SHARED_TARGET / "release" / "libsunflux.so", extension)
    return tree / "python"


def probe(package: pathlib.Path) -> dict[str, float]:
    """One round of ``revision_probe.py`` with ``package`` first on the import path."""
    environment = {**os.environ, "PYTHONPATH": str(package)}
    output = subprocess.run(
        [sys.executable, str(HERE / "revision_probe.py")], env=environment, check=True, capture_output=True, text=True
    ).stdout
    return json.loads(output.strip().splitlines()[-1])


def section(before: str, after: str, samples: dict[str, list[dict[str, float]]]) -> str:
    """The markdown table: per measure the median and the best round of each revision, and both
    ratios. On a shared machine the best round is the steadier estimate of what the code costs;
    the median shows what a user sees under the same load."""
    rows = []
    for key, (label, unit) in MEASURES.items():
        old = [sample[key] for sample in samples[before]]
        new = [sample[key] for sample in samples[after]]
        old_median, new_median = statistics.median(old), statistics.median(new)
        rows.append(
            f"| {label} | {old_median:.3g} / {min(old):.3g} {unit} | {new_median:.3g} / {min(new):.3g} {unit} "
            f"| {new_median / old_median:.2f} | {min(new) / min(old):.2f} |"
        )
    return (
        f"Revisions `{before}` (before) and `{after}` (after), release builds, {ROUNDS} rounds alternating the two, "
        "each round in a fresh interpreter (`benches/compare_revisions.py`). A ratio below 1 means the after "
        "revision is faster.\n\n"
        "| measure | before (median / best) | after (median / best) | after / before, medians | after / before, best |\n"
        "|---|---|---|---|---|\n" + "\n".join(rows)
    )


def main(argv: list[str]) -> int:
    if not 1 <= len(argv) <= 2:
        print(__doc__)
        return 2
    before = _git("rev-parse", "--short=12", argv[0])
    after = _git("rev-parse", "--short=12", argv[1] if len(argv) == 2 else "HEAD")
    packages = {before: build(before), after: build(after)}
    samples: dict[str, list[dict[str, float]]] = {before: [], after: []}
    for round_index in range(ROUNDS):
        order = [before, after] if round_index % 2 == 0 else [after, before]
        for revision in order:
            samples[revision].append(probe(packages[revision]))
            print(f"round {round_index + 1}/{ROUNDS} {revision}: {samples[revision][-1]}", flush=True)
    sys.path.insert(0, str(HERE))
    import run

    run.write_sections([(TITLE, section(before, after, samples))], build="release")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
