"""What one build of the documentation site gives the tests that read it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class DocsBuild:
    """One build of the documentation site: Sphinx's exit code, its warnings, the HTML folder and
    the folder of the executed notebooks."""

    code: int
    warnings: str
    html: Path
    executed: Path
