"""Tests for deploy.cluster.haproxy: its config and its log."""

from __future__ import annotations

from pathlib import Path

import pytest

from rally_keystone_perf.deploy.cluster import haproxy


def test_render_puts_every_node_behind_the_front(tmp_path: Path) -> None:
    members = ["198.18.4.11:5000", "198.18.4.12:5000"]
    socket = tmp_path / "haproxy.sock"
    front = ("127.0.0.1", 5999)
    target = haproxy.render(
        tmp_path, tmp_path / "haproxy.cfg", front, members, socket, "leastconn"
    )
    text = target.read_text()
    assert "bind 127.0.0.1:5999" in text
    assert "    balance leastconn" in text and "    balance roundrobin" in text
    assert "option httpchk GET /v3" in text and "option httplog" in text
    assert "server node1 198.18.4.11:5000 check inter 1s fall 2 rise 2" in text
    assert "server node2 198.18.4.12:5000 check inter 1s fall 2 rise 2" in text
    assert f"stats socket {tmp_path / 'haproxy.sock'}" in text
    with pytest.raises(ValueError, match="unknown balance 'random'"):
        haproxy.render(tmp_path, target, ("h", 1), members, target, "random")


def test_render_database_keeps_one_galera_member_active(tmp_path: Path) -> None:
    members = [("galera1", "198.18.4.31:3306"), ("galera2", "198.18.4.32:3306")]
    target = haproxy.render_database(
        tmp_path, tmp_path / "db.cfg", ("198.18.4.1", 41000), members, tmp_path / "s"
    )
    text = target.read_text()
    assert "bind 198.18.4.1:41000" in text and "mode tcp" in text
    assert "server galera1 198.18.4.31:3306 check inter 2000 rise 2 fall 5\n" in text
    assert "server galera2 198.18.4.32:3306 check inter 2000 rise 2 fall 5 backup" in (
        text
    )
    assert "$" not in text  # every placeholder filled


@pytest.mark.parametrize("template", [haproxy.TEMPLATE, haproxy.DATABASE_TEMPLATE])
def test_every_haproxy_setting_says_why(template: str) -> None:
    from rally_keystone_perf import paths

    text = (paths.deployments_dir() / template).read_text()
    for block in text.split("\n\n"):
        lines = [line.strip() for line in block.splitlines() if line.strip()]
        for index, line in enumerate(lines):
            if line.startswith("#") or line.startswith("$") or index == 0:
                continue
            assert any(prior.startswith("#") for prior in lines[:index]), line
