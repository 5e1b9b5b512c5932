"""Runs every benchmark in this folder and writes BENCHMARKS.md.

    python benches/run.py            # all sections
    python benches/run.py transport  # only the named sections

Each ``bench_*.py`` module has ``TITLE`` and ``run() -> str`` (a markdown section). Benchmarks
compare sunflux with the peers named by the issue in the same process and run, interleaving
rounds so that a noisy shared machine affects every contender alike; ratios are what to read.
Use a release build (``pip install .``); a debug build is reported as such.
``compare_revisions.py`` writes one more section: two git revisions' release builds, before vs after.
"""

from __future__ import annotations

import datetime as _dt
import importlib
import os
import pathlib
import platform
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def _build_kind() -> str:
    import sunflux._core as core

    return str(getattr(core, "_build_profile", "unknown"))


def main(argv: list[str]) -> int:
    wanted = set(argv)
    modules = sorted(p.stem for p in HERE.glob("bench_*.py"))
    sections = []
    for name in modules:
        if wanted and name.removeprefix("bench_") not in wanted:
            continue
        module = importlib.import_module(name)
        started = time.perf_counter()
        print(f"running {name} ...", flush=True)
        body = module.run()
        sections.append((module.TITLE, f"{body.strip()}\n\n_Section ran in {time.perf_counter() - started:.1f} s._"))
    write_sections(sections, replace_all=not wanted)
    return 0


def write_sections(sections: list[tuple[str, str]], replace_all: bool = False, build: str | None = None) -> None:
    """Writes BENCHMARKS.md with ``sections`` (title, markdown body), each stamped with the time and
    build profile it was measured with; the sections of the previous file with other titles are kept,
    stamps included, unless ``replace_all``. ``build`` is the build profile the sections measured
    (default: that of the sunflux this process imports)."""
    import sunflux

    header = (
        "# Benchmarks\n\n"
        "Written by `python benches/run.py` (the before-vs-after section by `benches/compare_revisions.py`); "
        "each section says when it was measured and on which build. "
        f"sunflux {sunflux.__version__}, Python {platform.python_version()}, "
        f"{platform.machine()}, {os.cpu_count()} cores. The machine is shared and noisy: read the ratios, "
        "which compare contenders measured in the same run with interleaved rounds.\n\n"
    )
    stamp = f"_Measured {_dt.datetime.now(_dt.timezone.utc):%Y-%m-%d %H:%M} UTC, {build or _build_kind()} build._\n\n"
    out = HERE.parent / "BENCHMARKS.md"
    previous = out.read_text() if out.exists() and not replace_all else ""
    titles = {title for title, _ in sections}
    kept = [s for s in previous.split("\n## ")[1:] if not any(s.startswith(title) for title in titles)]
    text = header + "\n".join(f"## {title}\n\n{stamp}{body}\n" for title, body in sections) + "".join(f"\n## {s}" for s in kept)
    out.write_text(text)
    print(f"wrote {out}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
