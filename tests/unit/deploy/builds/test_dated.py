"""A build's libraries as of a date: the release's upload time, uv's argv."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rally_keystone_perf.deploy.builds import dated
from rally_keystone_perf.deploy.options import LaunchError

PAGE = {
    "files": [
        {
            "filename": "keystone-27.0.0.0rc1-py3-none-any.whl",
            "upload-time": "2025-03-13T13:44:46Z",
        },
        {
            "filename": "keystone-27.0.0-py3-none-any.whl",
            "upload-time": "2025-04-02T10:50:23Z",
        },
        {"filename": "keystone-27.0.0.tar.gz", "upload-time": "2025-04-02T10:50:25Z"},
        {
            "filename": "keystone-27.0.1-py3-none-any.whl",
            "upload-time": "2026-04-16T09:24:20Z",
        },
        {"filename": "keystone-28.0.0-py3-none-any.whl"},
    ]
}


def _page(url: str) -> dict[str, Any]:
    assert url == dated.SIMPLE_URL
    return PAGE


def test_the_release_date_is_its_last_files_upload_not_a_candidates() -> None:
    assert dated.release_date("27.0.0", _page) == "2025-04-02T10:50:25Z"
    assert dated.release_date("27.0.1", _page) == "2026-04-16T09:24:20Z"


def test_a_release_without_an_upload_time_is_refused_with_the_way_out() -> None:
    with pytest.raises(LaunchError, match="--build-deps YYYY-MM-DD"):
        dated.release_date("28.0.0", _page)
    with pytest.raises(LaunchError, match="no upload time for keystone 99.0.0"):
        dated.release_date("99.0.0", _page)


def test_pypi_not_answering_is_a_clear_error() -> None:
    def down(url: str) -> dict[str, Any]:
        raise OSError("Network is unreachable")

    with pytest.raises(LaunchError, match="did not answer .Network is unreachable"):
        dated.release_date("27.0.0", down)


def test_the_cutoff_of_each_choice() -> None:
    assert dated.cutoff("suite", "27.0.0", _page) is None
    assert dated.cutoff("release", "27.0.0", _page) == "2025-04-02T10:50:25Z"
    assert dated.cutoff("2025-05-01", "27.0.0", _page) == "2025-05-01"


@pytest.mark.parametrize("text", ["suite", "release", "2025-04-02"])
def test_choices_accepted(text: str) -> None:
    assert dated.choice(text) == text


@pytest.mark.parametrize("text", ["", "latest", "2025-13-01", "2025-4-2"])
def test_other_choices_refused(text: str) -> None:
    with pytest.raises(ValueError, match="not suite, release or a date"):
        dated.choice(text)


def test_uv_installs_as_of_the_cutoff_with_the_known_fixes(tmp_path: Path) -> None:
    argv = dated.install_argv(
        tmp_path / "bin/python",
        ["keystone==27.0.0"],
        tmp_path / "c.txt",
        "2025-04-02T10:50:25Z",
    )
    assert Path(argv[0]).name == "uv" and Path(argv[0]).is_file()
    assert argv[1:] == [
        *("pip", "install", "--quiet", "--python", str(tmp_path / "bin/python")),
        "--compile-bytecode",
        *(
            "--exclude-newer",
            "2025-04-02T10:50:25Z",
            "--constraint",
            str(tmp_path / "c.txt"),
        ),
        "keystone==27.0.0",
    ]
