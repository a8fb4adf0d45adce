"""The client-request library: built once, refused with a reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from rally_keystone_perf.deploy.instructions import markers


def test_no_compiler_is_refused_with_the_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(markers.shutil, "which", lambda name: None)
    with pytest.raises(markers.MarkersError, match="build-essential"):
        markers.build(tmp_path)


def test_no_valgrind_headers_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(markers, "HEADER", tmp_path / "missing.h")
    with pytest.raises(markers.MarkersError, match="apt-get install valgrind"):
        markers.build(tmp_path)


@pytest.mark.skipif(not markers.HEADER.exists(), reason="valgrind's headers")
def test_built_once_and_harmless_outside_valgrind(tmp_path: Path) -> None:
    path = markers.build(tmp_path / "cache")
    assert path == markers.library_path(tmp_path / "cache")
    assert markers.build(tmp_path / "cache") == path  # cached
    loaded = markers.Markers(path)
    assert loaded.on_valgrind() is False
    loaded.start()
    loaded.toggle()
    loaded.toggle()
    loaded.zero()
    loaded.dump("segment-1")  # all no-ops natively
