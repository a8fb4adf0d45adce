"""Resolution: pip's report read into a version, an exact source and a key."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from rally_keystone_perf.deploy.builds import resolve, spec
from rally_keystone_perf.deploy.options import LaunchError


def _item(name: str = "keystone", **download: Any) -> dict[str, Any]:
    return {"metadata": {"name": name, "version": "29.1.0"}, "download_info": download}


def test_wheel_source_and_key() -> None:
    wanted = spec.parse("keystone==29.1.0")
    item = _item(url="https://x/k.whl", archive_info={"hashes": {"sha256": "ab" * 32}})
    first = resolve._resolution(wanted, item)
    assert first.source == {"url": "https://x/k.whl", "sha256": "ab" * 32}
    assert first.key.startswith("keystone-29.1.0-")
    assert first.describe() == "keystone 29.1.0 (pip abababababab)"
    other = _item(url="https://x/k.whl", archive_info={"hashes": {"sha256": "cd" * 32}})
    assert resolve._resolution(wanted, other).key != first.key


def test_git_source_is_the_commit() -> None:
    wanted = spec.parse("git+file:///src/keystone@master")
    item = _item(url="file:///src/keystone", vcs_info={"commit_id": "f" * 40})
    assert resolve._resolution(wanted, item).source["commit"] == "f" * 40


def test_not_keystone_refused() -> None:
    wanted = spec.parse("keystone==29.1.0")
    with pytest.raises(LaunchError, match="resolves to nova 29.1.0, not keystone"):
        resolve._resolution(wanted, _item("nova"))


def test_checkout_content_counts_uncommitted_changes(tmp_path: Path) -> None:
    (tmp_path / "keystone").mkdir()
    (tmp_path / "keystone" / "__init__.py").write_text("")
    (tmp_path / "setup.cfg").write_text("")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("ignored.txt\n")
    before = resolve.content_digest(tmp_path)
    (tmp_path / "ignored.txt").write_text("not part of the build")
    assert resolve.content_digest(tmp_path) == before
    (tmp_path / "keystone" / "new.py").write_text("x = 1\n")  # untracked, counted
    changed = resolve.content_digest(tmp_path)
    assert changed != before
    wanted = spec.parse(str(tmp_path))
    item = _item(url=f"file://{tmp_path}", dir_info={})
    assert resolve._resolution(wanted, item).source["content"] == changed


def test_folder_without_git_skips_leftovers(tmp_path: Path) -> None:
    (tmp_path / "keystone").mkdir()
    (tmp_path / "keystone" / "a.py").write_text("a = 1\n")
    before = resolve.content_digest(tmp_path)
    (tmp_path / "keystone" / "__pycache__").mkdir()
    (tmp_path / "keystone" / "__pycache__" / "a.pyc").write_bytes(b"\0")
    (tmp_path / "keystone.egg-info").mkdir()
    (tmp_path / "keystone.egg-info" / "PKG-INFO").write_text("")
    assert resolve.content_digest(tmp_path) == before


def test_resolve_failure_shows_pip_tail(monkeypatch: pytest.MonkeyPatch) -> None:
    def fake_run(argv: list[str], stdout: Any, **_: Any) -> Any:
        stdout.write(b"WARNING: Location 'file:///x' is ignored\nERROR: no such ref\n")
        return subprocess.CompletedProcess(argv, 1)

    monkeypatch.setattr(resolve.subprocess, "run", fake_run)
    with pytest.raises(LaunchError) as err:
        resolve.resolve(spec.parse("keystone==99"))
    assert "does not resolve (pip exit 1)" in str(err.value)
    assert "ERROR: no such ref" in str(err.value)
    assert "is ignored" not in str(err.value)


def test_libraries_as_of_a_date_are_another_build(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    wanted = spec.parse("keystone==29.1.0")
    item = _item(url="https://x/k.whl", archive_info={"hashes": {"sha256": "ab" * 32}})
    pinned = resolve._resolution(wanted, item)
    assert pinned.libraries_as_of is None
    assert pinned.libraries() == "the other libraries at the suite's versions"
    dated_build = resolve._resolution(wanted, item, "2026-09-03")
    assert dated_build.libraries_as_of == "2026-09-03"
    assert (
        dated_build.libraries() == "the other libraries as PyPI had them on 2026-09-03"
    )
    assert dated_build.key != pinned.key
    assert resolve._resolution(wanted, item, "2026-09-04").key != dated_build.key
