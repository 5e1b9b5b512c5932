"""Project hygiene that users rely on: the README's two commands, CI running the test command,
and the CLI entry points."""

from __future__ import annotations

import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _readme_commands() -> list[str]:
    block = re.search(r"## Set up.*?```bash\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    assert block, "README has no set-up block"
    return [line for line in block.group(1).splitlines() if line.strip() and not line.startswith("#")]


def test_readme_has_exactly_two_setup_commands() -> None:
    commands = _readme_commands()
    assert len(commands) == 2
    assert commands[0].endswith("python -m sunflux demo")
    assert "pytest" in commands[1] and "cargo test" in commands[1]


def test_ci_runs_the_readme_test_command() -> None:
    assert _readme_commands()[1] in (ROOT / ".ci" / "run").read_text()


def test_demo_runs_offline() -> None:
    result = subprocess.run([sys.executable, "-m", "sunflux", "demo"], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "auth=basic  -> HTTP 200" in result.stdout
    assert "API_KEY_INVALID" in result.stdout
    assert "identical to the service: True" in result.stdout
    assert "deleted map data: True" in result.stdout
    assert "optimal: PV" in result.stdout and "mean temperature Jan" in result.stdout


def test_serve_prints_url_and_key_then_serves() -> None:
    import sunflux as sf

    process = subprocess.Popen(
        [sys.executable, "-m", "sunflux", "serve", "--port", "0"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None
        url_line = process.stdout.readline()
        key_line = process.stdout.readline()
        base_url = url_line.strip().rsplit(" ", 1)[-1]
        key = key_line.strip().rsplit(" ", 1)[-1]
        assert base_url.startswith("http://127.0.0.1:") and len(key) == 40
        client = sf.Client(api_key=key, base_url=base_url)
        assert client.request("GET", "local_status", args={"format": "json"}).status == 200
    finally:
        process.terminate()
        process.wait(timeout=10)
