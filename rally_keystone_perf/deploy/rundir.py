"""Layout of one run folder: everything a run needs and leaves lives here."""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PRIVATE_MODE = 0o700
PRIVATE_UMASK = 0o077  # what is written under private/ is its owner's alone


@dataclass(frozen=True)
class RunDir:
    """Paths inside a run folder.

    ``private/`` (mode 0700) holds the generated admin password, the Rally
    environment spec and Rally's database: nothing there is ever printed.
    """

    root: Path

    @property
    def conf(self) -> Path:
        return self.root / "conf"

    @property
    def logs(self) -> Path:
        return self.root / "logs"

    @property
    def keys(self) -> Path:
        return self.root / "keys"

    @property
    def private(self) -> Path:
        return self.root / "private"

    @property
    def results(self) -> Path:
        return self.root / "results"

    @property
    def db(self) -> Path:
        return self.root / "db"

    @property
    def state_file(self) -> Path:
        return self.root / "run.json"

    @property
    def access_log(self) -> Path:
        return self.logs / "access.log"

    @property
    def admin_secret(self) -> Path:
        return self.private / "admin.json"

    @property
    def env_spec(self) -> Path:
        return self.private / "rally-env.json"

    @property
    def user_pool(self) -> Path:
        """Pre-created users and their shared password (deploy/user_pool.py)."""
        return self.private / "user-pool.json"

    def create(self) -> None:
        """Create the folder tree; secrets and keys are private to the owner."""
        for path in (self.conf, self.logs, self.results, self.db):
            path.mkdir(parents=True, exist_ok=True)
        for path in (self.keys, self.private):
            path.mkdir(parents=True, exist_ok=True)
            os.chmod(path, PRIVATE_MODE)

    def read_state(self) -> dict[str, Any]:
        """Return the run's recorded state ({} when none was written)."""
        try:
            return json.loads(self.state_file.read_text())
        except FileNotFoundError:
            return {}

    def write_state(self, **changes: Any) -> dict[str, Any]:
        """Merge ``changes`` into run.json (written atomically) and return it."""
        state = self.read_state()
        state.update(changes)
        state["updated_at"] = time.time()
        tmp = self.state_file.with_suffix(".tmp")
        tmp.write_text(json.dumps(state, indent=2, sort_keys=True) + "\n")
        tmp.replace(self.state_file)
        return state


def write_private_json(path: Path, data: dict[str, Any]) -> None:
    """Write ``data`` to ``path`` readable by the owner only."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)  # also when the file existed with a wider mode
    with os.fdopen(fd, "w") as stream:
        json.dump(data, stream, indent=2)
        stream.write("\n")


def new_run_dir(runs_root: Path, mode: str) -> RunDir:
    """Create ``<runs_root>/<timestamp>-<mode>`` and point ``current`` at it."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    root = runs_root / f"{stamp}-{mode}"
    suffix = 1
    while root.exists():
        suffix += 1
        root = runs_root / f"{stamp}-{mode}-{suffix}"
    run = RunDir(root.resolve())
    run.create()
    link = runs_root / "current"
    if link.is_symlink() or not link.exists():
        tmp = runs_root / ".current.tmp"
        if tmp.is_symlink():
            tmp.unlink()
        tmp.symlink_to(root.name)
        tmp.replace(link)
    return run


@contextlib.contextmanager
def private_umask() -> Iterator[None]:
    """Files this process creates inside the block are 0600 (folders 0700)."""
    before = os.umask(PRIVATE_UMASK)
    try:
        yield
    finally:
        os.umask(before)
