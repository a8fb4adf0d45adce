"""Small helpers shared by the deploy tests."""

from __future__ import annotations

from pathlib import Path


def _script(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(0o755)
    return path
