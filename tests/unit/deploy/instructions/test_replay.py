"""The replay's users: the pool's, project by project."""

from __future__ import annotations

from rally_keystone_perf.deploy.instructions import replay

POOL = {
    "password": "pw",
    "domain": "Default",
    "tenants": [
        {"name": "p0", "users": [{"name": "a"}, {"name": "b"}]},
        {"name": "p1", "users": [{"name": "c"}]},
    ],
}


def test_the_first_users_each_scoped_to_its_project() -> None:
    users = replay.pool_users(POOL, 3)
    assert [(u.username, u.project_name) for u in users] == [
        ("a", "p0"),
        ("b", "p0"),
        ("c", "p1"),
    ]
    assert replay.pool_users(POOL, 0)[0].username == "a"  # at least one
    assert "pw" not in repr(users)
