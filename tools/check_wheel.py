"""Builds the manylinux wheel and proves that it installs and runs where there is no Rust toolchain.

    python3 tools/check_wheel.py                                   # what .ci/run calls (x86_64)
    python3 tools/check_wheel.py --target aarch64-unknown-linux-gnu   # cross-build and inspect only
    python3 tools/check_wheel.py --wheel path/to/sunflux-....whl       # check a wheel already built

Steps, each of which fails the run with the reason:

1. Build: a build venv (``target/wheel-check/build-venv``) gets maturin (the version range of
   pyproject's ``[build-system]``) and zig from the ``ziglang`` package, then
   ``maturin build --release --zig --compatibility manylinux2014`` cross-links against glibc 2.17.
2. Inspect the wheel: one ``cp311-abi3`` tag whose platform is ``manylinux_2_17`` or older, in the
   file name and in ``WHEEL`` alike; the extension's ELF needs no symbol version newer than that
   glibc floor (nor newer libgcc / libstdc++ versions than manylinux2014 ships), links only
   libraries of the manylinux allow-list (no libssl or libcrypto: TLS is rustls), carries no
   debug sections and no symbol table, and the wheel stays within the size budget stated in
   docs/design.md ("Wheels").
3. Install (native target only): a fresh venv (``target/wheel-check/runtime-venv``) whose PATH has
   no cargo or rustc installs the wheel and its runtime dependencies from binary wheels only, then
   runs ``python -m sunflux demo`` (the README's main job) and an import-and-call smoke test from a
   directory outside the checkout (the optimizer's section classes included: their schema is
   embedded in the extension, no data file ships beside it).

The runtime venv is left in place for ``benches/bench_wheel.py``; both venvs are recreated or
reused under ``target/``, which git ignores.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import pathlib
import platform
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import tomllib
import zipfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
WORK = ROOT / "target" / "wheel-check"
BUILD_VENV = WORK / "build-venv"
RUNTIME_VENV = WORK / "runtime-venv"

#: The zig that cross-links against glibc 2.17 (a PyPI package, so no download outside pip).
ZIGLANG = "ziglang==0.17.1"
#: What maturin calls the policy: manylinux2014 is manylinux_2_17.
COMPATIBILITY = "manylinux2014"
GLIBC_FLOOR = (2, 17)

#: Libraries a manylinux_2_17 wheel may link without bundling them (auditwheel's policy for
#: manylinux_2_17), plus the dynamic loaders, which are part of glibc itself.
ALLOWED_LIBRARIES = frozenset({
    "libatomic.so.1", "libgcc_s.so.1", "libstdc++.so.6", "libm.so.6", "libanl.so.1", "libdl.so.2", "librt.so.1",
    "libc.so.6", "libnsl.so.1", "libutil.so.1", "libpthread.so.0", "libX11.so.6", "libXext.so.6",
    "libXrender.so.1", "libICE.so.6", "libSM.so.6", "libGL.so.1", "libgobject-2.0.so.0", "libgthread-2.0.so.0",
    "libglib-2.0.so.0", "libresolv.so.2", "libexpat.so.1", "libz.so.1",
    "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1",
})
#: The newest symbol version of each system library that manylinux2014 provides, per architecture.
NEWEST_SYMBOL_VERSIONS = {
    "x86_64": {"GLIBC": (2, 17), "GCC": (4, 8, 0), "GLIBCXX": (3, 4, 19), "CXXABI": (1, 3, 7)},
    "aarch64": {"GLIBC": (2, 17), "GCC": (4, 7, 0), "GLIBCXX": (3, 4, 19), "CXXABI": (1, 3, 7)},
}
#: libc functions manylinux forbids although glibc 2.17 has them (a weak reference is allowed:
#: Rust's standard library looks ``__cxa_thread_atexit_impl`` up weakly and copes without it).
FORBIDDEN_SYMBOLS = frozenset({
    "__cxa_thread_atexit_impl", "__issignaling", "__issignalingf", "__issignalingl",
    "pthread_getattr_default_np", "pthread_setattr_default_np",
})
ELF_MACHINES = {62: "x86_64", 183: "aarch64"}

BUDGET_RULE = re.compile(r"Size budget: at most \*\*(\d+(?:\.\d+)?) MiB\*\*")


class CheckFailed(Exception):
    """One assertion of the check did not hold; the message says which and why."""


def require(condition: bool, message: str) -> None:
    if not condition:
        raise CheckFailed(message)


def size_budget_bytes() -> int:
    """The wheel size budget, read from the one place that states it (docs/design.md, "Wheels")."""
    found = BUDGET_RULE.search((ROOT / "docs" / "design.md").read_text())
    require(found is not None, "docs/design.md states no 'Size budget: at most **N MiB**'")
    assert found is not None
    return int(float(found.group(1)) * 1024 * 1024)


# --- ELF ------------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class ElfFacts:
    """What the check needs to know about one shared object (64-bit little-endian ELF)."""

    machine: str
    needed: tuple[str, ...]
    #: symbol versions required from other objects, e.g. {"libc.so.6": {"GLIBC_2.17", ...}}
    version_needs: dict[str, frozenset[str]]
    section_names: tuple[str, ...]
    has_symbol_table: bool
    #: undefined dynamic symbols bound globally (a weak reference may stay unresolved)
    strong_imports: frozenset[str]


def _cstring(data: bytes, offset: int) -> str:
    return data[offset:data.index(b"\0", offset)].decode()


def read_elf(data: bytes) -> ElfFacts:
    """Reads the dynamic section, the version needs, the section names and the dynamic symbols."""
    require(data[:4] == b"\x7fELF" and data[4] == 2 and data[5] == 1, "the extension is not a 64-bit little-endian ELF")
    (_type, machine, _version, _entry, _phoff, shoff, _flags, _ehsize, _phentsize, _phnum, shentsize, shnum,
     shstrndx) = struct.unpack_from("<HHIQQQIHHHHHH", data, 16)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names_at = sections[shstrndx][4]
    names = tuple(_cstring(data, names_at + s[0]) for s in sections)

    def body(index: int) -> bytes:
        _name, _kind, _flags, _addr, offset, size, *_ = sections[index]
        return data[offset:offset + size]

    needed: list[str] = []
    version_needs: dict[str, frozenset[str]] = {}
    strong_imports: set[str] = set()
    for index, (_name, kind, _flags, _addr, _offset, _size, link, info, _align, _entsize) in enumerate(sections):
        if kind == 6:  # SHT_DYNAMIC
            strings = body(link)
            for tag, value in struct.iter_unpack("<qQ", body(index)):
                if tag == 1:  # DT_NEEDED
                    needed.append(_cstring(strings, value))
        elif kind == 0x6FFFFFFE:  # SHT_GNU_verneed
            strings, table, at = body(link), body(index), 0
            for _ in range(info):
                _vn_version, count, file_at, aux_at, next_at = struct.unpack_from("<HHIII", table, at)
                versions, aux = set(), at + aux_at
                for _ in range(count):
                    _hash, _vflags, _other, name_at, aux_next = struct.unpack_from("<IHHII", table, aux)
                    versions.add(_cstring(strings, name_at))
                    aux += aux_next
                version_needs[_cstring(strings, file_at)] = frozenset(versions)
                at += next_at
        elif kind == 11:  # SHT_DYNSYM
            strings = body(link)
            for name_at, sym_info, _other, section_index, _value, _size in struct.iter_unpack("<IBBHQQ", body(index)):
                if section_index == 0 and name_at and sym_info >> 4 == 1:  # undefined, STB_GLOBAL
                    strong_imports.add(_cstring(strings, name_at))
    return ElfFacts(
        machine=ELF_MACHINES.get(machine, f"e_machine {machine}"),
        needed=tuple(needed),
        version_needs=version_needs,
        section_names=names,
        has_symbol_table=any(s[1] == 2 for s in sections),  # SHT_SYMTAB
        strong_imports=frozenset(strong_imports),
    )


def _version_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def newest_versions(facts: ElfFacts) -> dict[str, tuple[int, ...]]:
    """The newest required version per family: {"GLIBC": (2, 17), "GCC": (3, 0), ...}."""
    newest: dict[str, tuple[int, ...]] = {}
    for versions in facts.version_needs.values():
        for version in versions:
            family, _, number = version.partition("_")
            if number and re.fullmatch(r"\d+(\.\d+)*", number):
                newest[family] = max(newest.get(family, ()), _version_tuple(number))
    return newest


# --- the wheel --------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class WheelReport:
    path: pathlib.Path
    size: int
    tags: tuple[str, ...]
    glibc_floor: tuple[int, int]
    elf_glibc: tuple[int, ...]
    extension: str
    extension_size: int
    needed: tuple[str, ...]


def platform_floor(platform_tag: str, arch: str) -> tuple[int, int]:
    """The glibc a manylinux platform tag promises to need at most: manylinux_2_17_x86_64 -> (2, 17)."""
    legacy = {"manylinux1": (2, 5), "manylinux2010": (2, 12), "manylinux2014": (2, 17)}
    found = re.fullmatch(rf"manylinux_(\d+)_(\d+)_{arch}", platform_tag)
    if found:
        return int(found.group(1)), int(found.group(2))
    legacy_name = platform_tag.removesuffix(f"_{arch}")
    require(legacy_name in legacy, f"platform tag {platform_tag!r} is not a manylinux tag for {arch}")
    return legacy[legacy_name]


def inspect_wheel(path: pathlib.Path, arch: str) -> WheelReport:
    """Asserts tags, glibc floor, linked libraries, stripping and size; returns what it measured."""
    name, version, python_tag, abi_tag, platform_tags = path.stem.split("-")
    require(name == "sunflux", f"wheel of {name!r}")
    require((python_tag, abi_tag) == ("cp311", "abi3"), f"wheel tagged {python_tag}-{abi_tag}, expected cp311-abi3")
    floors = {platform_floor(tag, arch) for tag in platform_tags.split(".")}
    require(len(floors) == 1, f"platform tags {platform_tags} promise different glibc floors {sorted(floors)}")
    floor = floors.pop()
    require(floor <= GLIBC_FLOOR, f"glibc floor {floor} is newer than manylinux_2_17")
    file_tags = tuple(f"{python_tag}-{abi_tag}-{tag}" for tag in platform_tags.split("."))

    with zipfile.ZipFile(path) as archive:
        wheel_meta = archive.read(f"{name}-{version}.dist-info/WHEEL").decode()
        meta_tags = tuple(line.split(":", 1)[1].strip() for line in wheel_meta.splitlines() if line.startswith("Tag:"))
        require(sorted(meta_tags) == sorted(file_tags), f"WHEEL says {meta_tags}, the file name {file_tags}")
        require("Root-Is-Purelib: false" in wheel_meta, "WHEEL does not mark the wheel as platform-specific")
        extensions = [info for info in archive.infolist() if info.filename.endswith(".so")]
        require([e.filename for e in extensions] == ["sunflux/_core.abi3.so"],
                f"expected exactly sunflux/_core.abi3.so, found {[e.filename for e in extensions]}")
        require(not any(n.endswith(".pyc") or "/tests/" in n for n in archive.namelist()),
                "the wheel carries bytecode or tests")
        extension = extensions[0]
        facts = read_elf(archive.read(extension))

    require(facts.machine == arch, f"extension built for {facts.machine}, wheel tagged {arch}")
    outside = sorted(set(facts.needed) - ALLOWED_LIBRARIES)
    require(not outside, f"the extension links libraries outside the manylinux allow-list: {outside}")
    require(not any(lib.startswith(("libssl", "libcrypto", "libpython")) for lib in facts.needed),
            f"the extension links {facts.needed}")
    newest = newest_versions(facts)
    for family, limit in NEWEST_SYMBOL_VERSIONS[arch].items():
        if family in newest:
            require(newest[family] <= limit,
                    f"the extension needs {family}_{'.'.join(map(str, newest[family]))}, newer than manylinux2014's "
                    f"{family}_{'.'.join(map(str, limit))}")
    require(newest.get("GLIBC", ()) <= floor, f"the extension needs GLIBC {newest.get('GLIBC')}, newer than its tag's {floor}")
    forbidden = sorted(FORBIDDEN_SYMBOLS & facts.strong_imports)
    require(not forbidden, f"the extension binds symbols manylinux forbids: {forbidden}")
    debug = [s for s in facts.section_names if s.startswith((".debug", ".zdebug"))]
    require(not debug and not facts.has_symbol_table,
            f"the extension is not stripped (debug sections {debug}, symbol table {facts.has_symbol_table})")

    size, budget = path.stat().st_size, size_budget_bytes()
    require(size <= budget, f"the wheel is {size / 2**20:.2f} MiB, over the {budget / 2**20:.1f} MiB budget of docs/design.md")
    return WheelReport(
        path=path, size=size, tags=file_tags, glibc_floor=floor, elf_glibc=newest.get("GLIBC", ()),
        extension=extension.filename, extension_size=extension.file_size, needed=facts.needed,
    )


# --- building ---------------------------------------------------------------------------------

def run(command: list[str], *, env: dict[str, str] | None = None, cwd: pathlib.Path | None = None,
        capture: bool = False) -> subprocess.CompletedProcess[str]:
    shown = " ".join("<script>" if "\n" in str(part) else str(part) for part in command)
    print(f"$ {shown}", flush=True)
    result = subprocess.run(command, env=env, cwd=cwd, text=True, capture_output=capture)
    if result.returncode != 0:
        detail = (result.stdout or "")[-3000:] + (result.stderr or "")[-3000:] if capture else ""
        raise CheckFailed(f"`{shown}` exited with {result.returncode}\n{detail}")
    return result


def venv_python(venv: pathlib.Path) -> pathlib.Path:
    return venv / "bin" / "python"


def maturin_requirement() -> str:
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]["requires"]
    found = [r for r in requires if r.startswith("maturin")]
    require(len(found) == 1, f"pyproject's build-system names maturin {len(found)} times")
    return found[0]


def ensure_build_venv() -> None:
    """maturin and zig in a venv of their own, reused between runs."""
    if not venv_python(BUILD_VENV).exists():
        run([sys.executable, "-m", "venv", str(BUILD_VENV)])
    run([str(venv_python(BUILD_VENV)), "-m", "pip", "install", "-q", "--disable-pip-version-check",
         maturin_requirement(), ZIGLANG])


def build_wheel(target: str) -> tuple[pathlib.Path, float]:
    """One release wheel for ``target``, linked by zig against glibc 2.17; returns it and the seconds taken."""
    ensure_build_venv()
    out = WORK / "dist" / target
    shutil.rmtree(out, ignore_errors=True)
    env = dict(os.environ, PATH=f"{BUILD_VENV / 'bin'}{os.pathsep}{os.environ['PATH']}")
    started = time.perf_counter()
    run([str(BUILD_VENV / "bin" / "maturin"), "build", "--release", "--zig", "--compatibility", COMPATIBILITY,
         "--target", target, "--out", str(out), "--manifest-path", str(ROOT / "Cargo.toml")], env=env, cwd=ROOT)
    seconds = time.perf_counter() - started
    wheels = sorted(out.glob("*.whl"))
    require(len(wheels) == 1, f"maturin left {len(wheels)} wheels in {out}")
    return wheels[0], seconds


# --- installing without Rust ------------------------------------------------------------------

SMOKE_TEST = """
import pathlib, shutil, sys
import polars as pl
import sunflux as sf

assert shutil.which("cargo") is None and shutil.which("rustc") is None, "a Rust toolchain is on PATH"
assert pathlib.Path(sf.__file__).is_relative_to(sys.prefix), f"sunflux imported from {sf.__file__}"
assert sf._core._build_profile == "release", sf._core._build_profile
try:
    sf.Client(api_key="short")
except sf.ParameterError as error:
    assert "40" in str(error), error
else:
    raise AssertionError("a short key was accepted")
with sf.LocalService() as svc:
    client = svc.client()
    query = client.solar.data_query(39.74, -105.18, version="v1")
    station = query.closest["tmy3"]
    assert station is not None
    estimate = client.pv.estimate(4, sf.ModuleType.STANDARD, 14, sf.ArrayType.FIXED_ROOF_MOUNT, 20, 180,
                                  file_id=station, timeframe="hourly")
    local = sf.pvwatts.simulate(svc.station_weather(station.id), 4, 0, 14, 1, 20, 180)
    assert local.ac_annual == estimate.ac_annual > 0, (local.ac_annual, estimate.ac_annual)
    hourly = estimate.hourly
    assert isinstance(hourly, pl.DataFrame) and hourly.height == 8760, hourly
# The optimizer's section classes come from the schema the extension embeds (no data file ships).
from sunflux.optimizer import PV
assert PV().losses == 0.14 and "losses : float | None, default 0.14" in PV.__doc__, PV.__doc__
print(f"smoke test: sunflux {sf.__version__} from {pathlib.Path(sf.__file__).parent}, "
      f"{local.ac_annual:.1f} kWh/yr from the service and the local engine alike")
"""


def without_rust(base: dict[str, str], venv: pathlib.Path) -> dict[str, str]:
    """The environment with only the venv and PATH folders holding neither cargo nor rustc."""
    kept = [d for d in base.get("PATH", "").split(os.pathsep)
            if d and not any((pathlib.Path(d) / tool).exists() for tool in ("cargo", "rustc"))]
    env = {k: v for k, v in base.items() if not k.startswith(("CARGO", "RUSTUP", "RUSTC", "MATURIN", "VIRTUAL_ENV"))}
    env["PATH"] = os.pathsep.join([str(venv / "bin"), *kept])
    env["PIP_ONLY_BINARY"] = ":all:"  # nothing may be built from source
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def install_and_run(wheel: pathlib.Path) -> float:
    """Installs the wheel into a fresh Rust-free venv and runs the demo and the smoke test; returns
    the cumulative import time of ``sunflux`` there in milliseconds (one cold-cache run)."""
    shutil.rmtree(RUNTIME_VENV, ignore_errors=True)
    run([sys.executable, "-m", "venv", str(RUNTIME_VENV)])
    env = without_rust(dict(os.environ), RUNTIME_VENV)
    python = str(venv_python(RUNTIME_VENV))
    with tempfile.TemporaryDirectory() as outside:
        here = pathlib.Path(outside)
        run([python, "-m", "pip", "install", "-q", str(wheel)], env=env, cwd=here)
        demo = run([python, "-m", "sunflux", "demo"], env=env, cwd=here, capture=True)
        for expected in ("identical to the service: True", "auth=basic  -> HTTP 200", "optimal: PV"):
            require(expected in demo.stdout, f"the demo's output lacks {expected!r}:\n{demo.stdout[-2000:]}")
        print("\n".join(demo.stdout.strip().splitlines()[-3:]))
        print(run([python, "-c", SMOKE_TEST], env=env, cwd=here, capture=True).stdout.strip())
        timing = run([python, "-X", "importtime", "-c", "import sunflux"], env=env, cwd=here, capture=True).stderr
    return import_time_ms(timing, "sunflux")


def import_time_ms(importtime_output: str, module: str) -> float:
    """The cumulative import time of ``module`` from ``python -X importtime`` output, in ms."""
    for line in importtime_output.splitlines():
        parts = [p.strip() for p in line.removeprefix("import time:").split("|")]
        if len(parts) == 3 and parts[2] == module:
            return int(parts[1]) / 1000
    raise CheckFailed(f"no import of {module!r} in the -X importtime output")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--target", default=f"{platform.machine()}-unknown-linux-gnu",
                        help="Rust target triple (default: this machine's)")
    parser.add_argument("--wheel", type=pathlib.Path, help="check this wheel instead of building one")
    args = parser.parse_args(argv)
    arch = args.target.split("-")[0]
    started = time.perf_counter()
    try:
        if args.wheel:
            wheel, build_seconds = args.wheel.resolve(), None
        else:
            wheel, build_seconds = build_wheel(args.target)
        report = inspect_wheel(wheel, arch)
        print(f"wheel {report.path.name}: {report.size / 2**20:.2f} MiB "
              f"(budget {size_budget_bytes() / 2**20:.0f} MiB), {report.extension} {report.extension_size / 2**20:.2f} MiB "
              f"unpacked, stripped")
        print(f"tags {', '.join(report.tags)}; glibc floor {'.'.join(map(str, report.glibc_floor))} "
              f"(newest GLIBC symbol version the extension needs: {'.'.join(map(str, report.elf_glibc))}); "
              f"links {', '.join(report.needed)}")
        if build_seconds is not None:
            print(f"build: {build_seconds:.0f} s")
        if arch == platform.machine():
            import_ms = install_and_run(wheel)
            print(f"installed and ran without cargo or rustc on PATH; import sunflux {import_ms:.0f} ms (one run)")
        else:
            print(f"not installed: a {arch} wheel does not run on this {platform.machine()} machine")
    except CheckFailed as failure:
        print(f"wheel check FAILED: {failure}", file=sys.stderr)
        return 1
    print(f"wheel check passed in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
