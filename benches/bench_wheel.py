"""The release wheel: its size, and the time `import sunflux` takes, beside polars and pyarrow.

Runs ``tools/check_wheel.py`` first (it builds the manylinux wheel unless cargo finds nothing to
do, checks it and installs it into a Rust-free venv), then measures in that venv, so the numbers are
those of the wheel users install, whatever build the benchmark process itself imported.
"""

from __future__ import annotations

import json
import pathlib
import platform
import subprocess
import sys

from timing import median

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import check_wheel as check  # noqa: E402  (a tool of the repository, not a package)

TITLE = "Wheel size and import time"
ROUNDS = 15

# Each statement runs in a fresh interpreter of the runtime venv, timed from before its first line.
IMPORTS = {
    "import sunflux": "import sunflux",
    "import sunflux; sunflux.Client()": "import sunflux; sunflux.Client()",
    "import sunflux; sunflux.LocalService": "import sunflux; sunflux.LocalService",
    "import polars": "import polars",
    "import pyarrow": "import pyarrow",
}
TIMER = "import time; _t = time.perf_counter(); {statement}; print(time.perf_counter() - _t)"
INSTALLED_SIZE = """
import importlib.metadata as m, json, sys
print(json.dumps({name: sum(f.size or 0 for f in m.distribution(name).files) for name in sys.argv[1:]}))
"""


def _run(python: pathlib.Path, code: str, *args: str) -> str:
    return subprocess.run([str(python), "-c", code, *args], capture_output=True, text=True, check=True, cwd="/").stdout


def run() -> str:
    native = f"{platform.machine()}-unknown-linux-gnu"
    if check.main([]) != 0:
        raise RuntimeError("tools/check_wheel.py failed; see its output above")
    python = check.venv_python(check.RUNTIME_VENV)

    samples: dict[str, list[float]] = {name: [] for name in IMPORTS}
    names = list(IMPORTS)
    for round_index in range(ROUNDS):
        for name in names[round_index % len(names):] + names[: round_index % len(names)]:
            samples[name].append(float(_run(python, TIMER.format(statement=IMPORTS[name]))))
    breakdown = subprocess.run([str(python), "-X", "importtime", "-c", "import sunflux"], capture_output=True,
                               text=True, check=True, cwd="/").stderr
    core_ms = check.import_time_ms(breakdown, "sunflux._core")
    medians = {name: median(values) for name, values in samples.items()}
    reference = medians["import polars"]
    import_rows = [
        f"| `{name}` | {medians[name] * 1e3:.1f} | {min(samples[name]) * 1e3:.1f} | {medians[name] / reference:.2f}x |"
        for name in names
    ]

    wheels = {}
    for target in dict.fromkeys((native, "x86_64-unknown-linux-gnu", "aarch64-unknown-linux-gnu")):
        found = sorted((check.WORK / "dist" / target).glob("*.whl"))
        if found:
            wheels[target] = check.inspect_wheel(found[0], target.split("-")[0])
    installed = json.loads(_run(python, INSTALLED_SIZE, "sunflux", "polars", "polars-runtime-32", "pyarrow"))
    budget = check.size_budget_bytes() / 2**20
    wheel_rows = [
        f"| `{report.path.name}` | {report.size / 2**20:.2f} | {report.extension_size / 2**20:.2f} | "
        f"{'.'.join(map(str, report.glibc_floor))} |"
        for report in wheels.values()
    ]
    polars_installed = installed["polars"] + installed["polars-runtime-32"]
    return (
        f"The manylinux wheels that `tools/check_wheel.py` builds (`maturin build --release --zig`, stripped; "
        f"the budget in docs/design.md is {budget:.0f} MiB per wheel):\n\n"
        "| wheel | MiB | `_core.abi3.so` unpacked MiB | glibc floor |\n|---|---|---|---|\n"
        + "\n".join(wheel_rows)
        + f"\n\nInstalled in the check's venv: sunflux {installed['sunflux'] / 2**20:.1f} MiB, polars "
        f"{polars_installed / 2**20:.1f} MiB (with its runtime), pyarrow {installed['pyarrow'] / 2**20:.1f} MiB.\n\n"
        f"Import time in that venv: each statement in a fresh interpreter (files in the page cache), "
        f"{ROUNDS} interleaved rounds; ratio of the medians to `import polars`.\n\n"
        "| statement | median ms | best ms | vs import polars |\n|---|---|---|---|\n"
        + "\n".join(import_rows)
        + f"\n\nOf `import sunflux`, loading the extension (`sunflux._core`) took {core_ms:.1f} ms in one "
        "`-X importtime` run. `Client()` loads the service modules (the optimizer's field tables among them); "
        "`LocalService` loads the embedded service's Python face; neither is on the import path.\n"
    )


if __name__ == "__main__":
    print(run())
    sys.exit(0)
