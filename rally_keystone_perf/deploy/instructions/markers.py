"""Callgrind's client requests, callable from Python through ctypes.

Callgrind starts uncounted (``--instr-atstart=no --collect-atstart=no``);
the replay switches instrumentation on after its warm-up, turns collection
on only while Keystone's application runs (:func:`Markers.toggle`), and
dumps each segment's total (:func:`Markers.dump`). The requests are
valgrind's magic instruction sequences from ``<valgrind/callgrind.h>``,
compiled once into a small shared library; outside valgrind they do
nothing, so the same replay runs natively.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
from pathlib import Path

from rally_keystone_perf.deploy.options import LaunchError

HEADER = Path("/usr/include/valgrind/callgrind.h")  # Debian's valgrind
SOURCE = """\
#include <valgrind/callgrind.h>
void ksp_start(void) { CALLGRIND_START_INSTRUMENTATION; }
void ksp_toggle(void) { CALLGRIND_TOGGLE_COLLECT; }
void ksp_zero(void) { CALLGRIND_ZERO_STATS; }
void ksp_dump(const char *name) { CALLGRIND_DUMP_STATS_AT(name); }
int ksp_on_valgrind(void) { return RUNNING_ON_VALGRIND; }
"""


class MarkersError(LaunchError):
    """The markers library cannot be built; the message says why."""


def library_path(cache: Path) -> Path:
    """Where the library for this source lives in ``cache``."""
    digest = hashlib.sha256(SOURCE.encode()).hexdigest()[:12]
    return cache / f"callgrind-markers-{digest}.so"


def compiler() -> str:
    """The C compiler the library is built with.

    :raises MarkersError: no C compiler, or no valgrind headers.
    """
    found = shutil.which("gcc") or shutil.which("cc")
    if found is None:
        raise MarkersError(
            "no C compiler (gcc): instruction counts compile valgrind's client "
            "requests once (apt-get install build-essential)"
        )
    if not HEADER.exists():
        raise MarkersError(
            f"{HEADER} is missing: instruction counts need Debian's valgrind "
            "(apt-get install valgrind)"
        )
    return found


def build(cache: Path) -> Path:
    """Compile the markers library into ``cache`` (once); return its path.

    :raises MarkersError: as :func:`compiler`, or the compiler failed.
    """
    target = library_path(cache)
    if target.exists():
        return target
    cc = compiler()
    cache.mkdir(parents=True, exist_ok=True)
    source = cache / f"{target.stem}.c"
    source.write_text(SOURCE)
    scratch = cache / f".{target.name}.{os.getpid()}"
    argv = [cc, "-shared", "-fPIC", "-O1", "-o", str(scratch), str(source)]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise MarkersError(f"compiling {source} failed:\n{done.stderr[-2000:]}")
    os.replace(scratch, target)
    return target


class Markers:
    """The loaded library: start, toggle collection, zero, dump."""

    def __init__(self, path: Path) -> None:
        self._lib = ctypes.CDLL(str(path))
        self._lib.ksp_dump.argtypes = [ctypes.c_char_p]
        self.start = self._lib.ksp_start
        self.toggle = self._lib.ksp_toggle
        self.zero = self._lib.ksp_zero

    def dump(self, label: str) -> None:
        """Write the counts since the last zero, under ``label``."""
        self._lib.ksp_dump(label.encode())

    def on_valgrind(self) -> bool:
        """Whether this process runs under valgrind."""
        return bool(self._lib.ksp_on_valgrind())
