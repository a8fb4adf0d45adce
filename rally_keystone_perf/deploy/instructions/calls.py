"""Keystone's Python functions, by calls and lines run, in a native replay.

Callgrind attributes instructions to CPython's C functions, not to the
Python functions they run, so a count says how much more a request costs
but not where. A replay with ``--profile FILE`` (:mod:`.replay`) runs
outside valgrind with this profile in place of callgrind's markers: the
same warm-up (not profiled: toggles before :meth:`CallProfile.start` do
nothing) and segments, collection on only inside Keystone's application.
It traces (``sys.settrace``) every Python function called there and
counts, per function, its calls (each resumption of a generator is one)
and the lines it ran itself: both exact, the same every run, so two
builds' profiles subtract (:func:`per_iteration`). C functions (the
hashes, the C parts of SQLAlchemy) are not traced: their cost shows in
their Python callers' calls, not in their lines.

A function is named by its file below ``site-packages`` (``keystone/
token/provider.py``; the standard library's as ``stdlib/...``) and its
qualified name, without its line number, so that the same function in two
builds keeps its name when lines above it moved.
"""

from __future__ import annotations

import collections
import json
import sys
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

Trace = Any  # the local trace function sys.settrace's returns


def function_name(code: CodeType) -> str:
    """``keystone/token/provider.py:Manager.validate_token`` of a code."""
    path = code.co_filename
    if "site-packages/" in path:
        path = path.rsplit("site-packages/", 1)[1]
    elif "/lib/python3" in path:
        path = "stdlib/" + path.rsplit("/lib/python3", 1)[1].split("/", 1)[-1]
    return f"{path}:{getattr(code, 'co_qualname', code.co_name)}"


class CallProfile:
    """Callgrind's markers' calls (start, toggle, zero, dump), counting each
    Python function's calls and own lines while collecting, over every
    segment."""

    def __init__(self) -> None:
        self.started = False  # the warm-up's requests are not profiled
        self.collecting = False
        self.calls: collections.Counter[CodeType] = collections.Counter()
        self.lines: collections.Counter[CodeType] = collections.Counter()

    def _call(self, frame: FrameType, event: str, arg: Any) -> Trace:
        if event == "call":
            self.calls[frame.f_code] += 1
            return self._line
        return None

    def _line(self, frame: FrameType, event: str, arg: Any) -> Trace:
        if event == "line":
            self.lines[frame.f_code] += 1
        return self._line

    def start(self) -> None:
        """From now on each toggle counts: the warm-up is over."""
        self.started = True

    def toggle(self) -> None:
        """Trace the functions called from now on if not collecting, else
        stop; nothing before :meth:`start`."""
        if not self.started:
            return
        self.collecting = not self.collecting
        sys.settrace(self._call if self.collecting else None)

    def zero(self) -> None:
        """Nothing: the profile sums every segment."""

    def dump(self, label: str) -> None:
        """Nothing: :meth:`write` writes the sum."""

    def write(self, path: Path, iterations: int) -> None:
        """Each function's calls and own lines over ``iterations``, as JSON."""
        functions: dict[str, list[int]] = {}
        for code in set(self.calls) | set(self.lines):
            found = functions.setdefault(function_name(code), [0, 0])
            found[0] += self.calls[code]
            found[1] += self.lines[code]
        document = {"iterations": iterations, "functions": functions}
        path.write_text(json.dumps(document, sort_keys=True) + "\n")


def per_iteration(path: Path) -> dict[str, tuple[float, float]]:
    """Each function's calls and own lines per iteration, from a replay's
    ``--profile`` file.

    :raises ValueError: the file holds no iteration.
    """
    document = json.loads(path.read_text())
    iterations = int(document.get("iterations", 0))
    if iterations <= 0:
        raise ValueError(f"{path}: no iteration profiled")
    return {
        name: (calls / iterations, lines / iterations)
        for name, (calls, lines) in document["functions"].items()
    }
