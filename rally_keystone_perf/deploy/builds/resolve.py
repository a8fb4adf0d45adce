"""What a build spec resolves to, asked of pip without installing anything.

``pip install --dry-run --no-deps --report`` names the version and the exact
source pip would install: a file's sha256, a git commit, or a local folder
(whose content we hash ourselves: a checkout's uncommitted changes count).
The build's cache key covers that, the interpreter and the libraries
beside it: pinned to the suite's (:mod:`.pins`), or taken as of a date
(:mod:`.dated`), so a venv is reused only for the same build.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from packaging.utils import canonicalize_name

from rally_keystone_perf.deploy import logtail
from rally_keystone_perf.deploy.builds import dated, pins
from rally_keystone_perf.deploy.builds.spec import BuildSpec
from rally_keystone_perf.deploy.options import LaunchError

SKIPPED_FOLDERS = {".git", ".tox", ".venv", "__pycache__", "build", "dist"}
# pip's note on a configured index folder that does not exist: not the cause
NOISE = re.compile(r"WARNING: Location '.*' is ignored")
PIP_QUIET = ("--quiet", "--disable-pip-version-check", "--no-input")


@dataclass(frozen=True)
class Resolution:
    """A build spec's version, exact source and cache key."""

    spec: BuildSpec
    version: str
    source: dict[str, str]
    key: str
    libraries_as_of: str | None = None  # None: the suite's versions (pins)

    def describe(self) -> str:
        """One line: the version and where it comes from."""
        source = self.source
        where = source.get("commit") or source.get("sha256") or source.get("content")
        return f"keystone {self.version} ({self.spec.kind} {(where or '')[:12]})"

    def libraries(self) -> str:
        """Where the other libraries come from, in words."""
        if self.libraries_as_of is None:
            return "the other libraries at the suite's versions"
        return f"the other libraries as PyPI had them on {self.libraries_as_of}"


def resolve(spec: BuildSpec, deps: str = dated.SUITE) -> Resolution:
    """Ask pip what ``spec`` installs; LaunchError with pip's tail if nothing.

    ``deps``: the libraries beside it (``--build-deps``: suite, release or
    a date)."""
    with tempfile.TemporaryDirectory(prefix="ksp-resolve-") as scratch:
        report_file = Path(scratch) / "report.json"
        log = Path(scratch) / "pip.log"
        argv = [
            sys.executable,
            *("-m", "pip", "install", "--dry-run", "--no-deps", "--ignore-installed"),
            *PIP_QUIET,
            *("--report", str(report_file), spec.pip_argument),
        ]
        with log.open("wb") as out:
            code = subprocess.run(
                argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
            ).returncode
        if code != 0 or not report_file.is_file():
            raise LaunchError(
                f"Keystone build {spec.text} does not resolve (pip exit {code}); "
                f"pip said:\n{pip_tail(log)}"
            )
        item = json.loads(report_file.read_text())["install"][0]
    return _resolution(spec, item, deps)


def pip_tail(log: Path, lines: int = logtail.LOG_TAIL_LINES) -> str:
    """The last lines of a pip log, without its notes on unusable index folders."""
    kept = [
        line
        for line in logtail.log_tail(log, 10_000).splitlines()
        if not NOISE.match(line)
    ]
    return "\n".join(kept[-lines:])


def _resolution(
    spec: BuildSpec, item: dict[str, Any], deps: str = dated.SUITE
) -> Resolution:
    """The Resolution of pip's report entry; LaunchError when not Keystone."""
    name, version = item["metadata"]["name"], item["metadata"]["version"]
    if canonicalize_name(name) != "keystone":
        raise LaunchError(
            f"Keystone build {spec.text} resolves to {name} {version}, not keystone"
        )
    source = _source(spec, item.get("download_info", {}))
    as_of = dated.cutoff(deps, version)
    identity: dict[str, Any] = {"keystone": version, "source": source}
    identity["python"] = sys.version
    if as_of is None:
        identity["pins"] = pins.digest()
    else:
        identity["libraries_as_of"] = as_of
        identity["fixes"] = dated.KNOWN_FIXES
        identity["server_libraries"] = pins.SERVER_LIBRARIES
    digest = hashlib.sha256(json.dumps(identity, sort_keys=True).encode())
    key = f"keystone-{version}-{digest.hexdigest()[:16]}"
    return Resolution(spec, version, source, key, as_of)


def _source(spec: BuildSpec, info: dict[str, Any]) -> dict[str, str]:
    """Where the build comes from, exactly: a hash, a commit or a content hash."""
    url = str(info.get("url", ""))
    if "vcs_info" in info:
        return {"url": url, "commit": str(info["vcs_info"]["commit_id"])}
    hashes = info.get("archive_info", {}).get("hashes", {})
    if "sha256" in hashes:
        return {"url": url, "sha256": str(hashes["sha256"])}
    if spec.folder is not None:
        return {"folder": str(spec.folder), "content": content_digest(spec.folder)}
    raise LaunchError(f"Keystone build {spec.text}: pip names no exact source ({url})")


def content_digest(folder: Path) -> str:
    """sha256 over a checkout's files (names and bytes): a change is a new build.

    A git checkout's tracked and untracked files not ignored by git; any
    other folder's files but build leftovers (``.git``, ``build``, caches).
    """
    digest = hashlib.sha256()
    for path in _source_files(folder):
        digest.update(str(path.relative_to(folder)).encode() + b"\0")
        digest.update(path.read_bytes() if path.is_file() else b"")
        digest.update(b"\0")
    return digest.hexdigest()


def _source_files(folder: Path) -> list[Path]:
    if (folder / ".git").exists():
        listed = subprocess.run(
            ["git", "-C", str(folder), "ls-files", "-z", "-co", "--exclude-standard"],
            capture_output=True,
            check=False,
        )
        if listed.returncode == 0:
            names = listed.stdout.decode().split("\0")
            return sorted(folder / name for name in names if name)
    return sorted(
        path
        for path in folder.rglob("*")
        if path.is_file()
        and not SKIPPED_FOLDERS.intersection(path.relative_to(folder).parts)
        and path.suffix != ".pyc"
        and not any(p.endswith(".egg-info") for p in path.relative_to(folder).parts)
    )
