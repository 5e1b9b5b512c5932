"""The fuzz suite (issue #20): every parser — dataset query and estimator answers (JSON, XML, CSV),
climate CSV and zips, technical-potential answers, answers as a server sends them (status,
framing, headers), weather files and tables, optimizer scenario dicts — gets mutated real
samples from ``tools/fuzz.py``, which runs them in a supervised worker process so that a crash is
a reported failure with its input saved, not the end of the test run.

The default run tries 1,300 inputs (100 per target, about a minute); the slow suite 13,000. The
release run is ``python tools/fuzz.py --inputs 100000`` (see docs/design.md, "Fuzzing").
"""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

FUZZ = Path(__file__).resolve().parents[1] / "tools" / "fuzz.py"


def run_fuzz(inputs: int, seed: int, out: Path) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, str(FUZZ), "--inputs", str(inputs), "--seed", str(seed), "--out", str(out), "--hang", "30"],
        capture_output=True,
        text=True,
        timeout=3600,
    )
    assert done.stdout.strip().startswith("{"), done.stderr[-3000:]
    summary: dict[str, object] = json.loads(done.stdout)
    findings = summary["findings"]
    assert not findings, "findings (inputs saved):\n" + "\n".join(json.dumps(f) for f in findings)  # type: ignore[union-attr]
    assert done.returncode == 0, done.stderr[-3000:]
    return summary


def test_every_parser_survives_mutated_inputs(tmp_path: Path) -> None:
    summary = run_fuzz(1300, seed=20, out=tmp_path)
    assert summary["inputs"] == 1300
    assert set(summary["targets"]) >= {"climate_zip", "data_query_xml", "weather_table", "scenario", "http_answers"}  # type: ignore[arg-type]


@pytest.mark.slow
def test_every_parser_survives_a_longer_run(tmp_path: Path) -> None:
    summary = run_fuzz(13_000, seed=21, out=tmp_path)
    assert summary["inputs"] == 13_000


def test_a_crash_is_reported_with_its_input(tmp_path: Path) -> None:
    """The supervisor itself: a worker that dies by a signal is a crash, its input saved."""
    script = FUZZ.read_text().replace(
        "                target.run(value)",
        "                (__import__('os').kill(__import__('os').getpid(), 11) if index == 3 else target.run(value))",
    )
    crashing = tmp_path / "fuzz_crashing.py"
    crashing.write_text(script.replace("REPO = Path(__file__).resolve().parents[1]", f"REPO = Path({str(FUZZ.parents[1])!r})"))
    done = subprocess.run(
        [sys.executable, str(crashing), "--inputs", "10", "--targets", "tp_job", "--out", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 1, done.stderr[-2000:]
    summary = json.loads(done.stdout)
    assert (summary["inputs"], summary["crashes"]) == (10, 1)
    saved = Path(summary["findings"][0]["input"])
    name, index, value = pickle.loads(saved.read_bytes())
    assert (name, index) == ("tp_job", 3) and isinstance(value, bytes)
