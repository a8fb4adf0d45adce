"""A build's libraries as of a date: its Keystone's release, or one given.

``--build-deps suite`` (the default) pins every library of a build to the
suite's own version (:mod:`.pins`): two builds then differ only by Keystone.
``--build-deps release`` installs instead what PyPI offered on the day the
build's Keystone was uploaded there, and ``--build-deps YYYY-MM-DD`` what
it offered that day: a Keystone of 2025 with the oslo libraries, SQLAlchemy
and cryptography of 2025, as a deployment of that release ran.

OpenStack pins each release's libraries in its upper-constraints, which
live in a git repository this machine cannot reach; uv's
``--exclude-newer DATE`` resolves against PyPI as it was on that date
instead (PyPI records each file's upload time: the simple index's
``upload-time``, PEP 700). Where that resolution differs from what the
release shipped with in a way that breaks it, :data:`KNOWN_FIXES` narrows
it, each with its reason.
"""

from __future__ import annotations

import datetime
import json
import re
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rally_keystone_perf.deploy.extras import INSTALL_LOCAL
from rally_keystone_perf.deploy.options import LaunchError

SUITE, RELEASE = "suite", "release"
SIMPLE_URL = "https://pypi.org/simple/keystone/"
SIMPLE_JSON = "application/vnd.pypi.simple.v1+json"
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
# uv takes the newest of every library, then backs off those that conflict:
# pysaml2 of 2025 asks pyOpenSSL<24.3, whose 24.x ask cryptography<44, so uv
# keeps cryptography 44 and falls back to pyOpenSSL 22.0.0, which does not
# import beside it (X509_V_FLAG_NOTIFY_POLICY). The upper-constraints of the
# time had pyOpenSSL 24.2.1 (and cryptography 43): asking pyOpenSSL>=24
# gives that pair.
KNOWN_FIXES = ("pyOpenSSL>=24.0",)
Fetch = Callable[[str], dict[str, Any]]


def choice(text: str) -> str:
    """``--build-deps``' value, checked: suite, release or a YYYY-MM-DD."""
    if text in (SUITE, RELEASE):
        return text
    if _DATE.match(text):
        try:
            datetime.date.fromisoformat(text)
            return text
        except ValueError:
            pass
    raise ValueError(f"not suite, release or a date (YYYY-MM-DD): {text!r}")


def fetch_simple_json(url: str) -> dict[str, Any]:
    """PyPI's simple index page of a project, as JSON (PEP 691)."""
    request = urllib.request.Request(url, headers={"Accept": SIMPLE_JSON})
    with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310
        return dict(json.load(response))


def release_date(version: str, fetch: Fetch = fetch_simple_json) -> str:
    """When keystone ``version`` was uploaded to PyPI (its last file), as
    an ISO timestamp; LaunchError when PyPI has no such release."""
    try:
        page = fetch(SIMPLE_URL)
    except OSError as exc:
        raise LaunchError(
            f"--build-deps release: PyPI's index of keystone did not answer "
            f"({exc}); give the date instead (--build-deps YYYY-MM-DD)"
        ) from None
    prefix = f"keystone-{version}"
    times = [
        str(item["upload-time"])
        for item in page.get("files", [])
        if _is_release_file(str(item.get("filename", "")), prefix)
        and item.get("upload-time")
    ]
    if not times:
        raise LaunchError(
            f"--build-deps release: PyPI has no upload time for keystone "
            f"{version} (a build not from PyPI has no release date: give one, "
            "--build-deps YYYY-MM-DD)"
        )
    return max(times)


def _is_release_file(filename: str, prefix: str) -> bool:
    """``keystone-27.0.0-py3-none-any.whl`` or ``keystone-27.0.0.tar.gz``
    of ``keystone-27.0.0`` (not 27.0.0.0rc1)."""
    return filename in (f"{prefix}.tar.gz", f"{prefix}.zip") or filename.startswith(
        f"{prefix}-"
    )


def cutoff(deps: str, version: str, fetch: Fetch = fetch_simple_json) -> str | None:
    """The date the build's libraries are taken as of (None: the suite's)."""
    if deps == SUITE:
        return None
    if deps == RELEASE:
        return release_date(version, fetch)
    return deps


def uv_binary() -> Path:
    """The uv that came with the suite (the ``uv`` package from PyPI, in the
    ``local`` extra)."""
    try:
        from uv import find_uv_bin  # costly: optional, the local extra's
    except ImportError:
        raise LaunchError(f"Keystone builds need uv: {INSTALL_LOCAL}") from None
    try:
        return Path(find_uv_bin())
    except FileNotFoundError as exc:
        raise LaunchError(f"Keystone builds: uv is not usable here ({exc})") from None


def install_argv(
    python: Path,
    requirements: list[str],
    constraints: Path,
    cutoff_time: str | None = None,
) -> list[str]:
    """uv's install of ``requirements`` into ``python``'s venv, narrowed by
    ``constraints``; as of ``cutoff_time`` when one is given.

    uv for every build, pinned or dated: it installs a build's hundred
    libraries faster than pip, the same versions (a build's measured time:
    doc/source/studies/releases.rst); uv reads ``UV_INDEX_URL`` and
    ``uv.toml``, not pip's configuration.
    """
    dated = ("--exclude-newer", cutoff_time) if cutoff_time is not None else ()
    return [
        str(uv_binary()),
        *("pip", "install", "--quiet", "--python", str(python)),
        "--compile-bytecode",  # as pip does: no Keystone start compiles it
        *dated,
        *("--constraint", str(constraints)),
        *requirements,
    ]
