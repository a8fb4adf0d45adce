"""Tests for rally_keystone_perf.deploy.nova.config (rendering, no service)."""

from __future__ import annotations

import sys

import pytest

from rally_keystone_perf.deploy.nova import config as nova_config
from rally_keystone_perf.layout.rundir import RunDir
from tests.unit.deploy.nova.test_stack import PASSWORDS, _plan


@pytest.fixture
def rendered(run: RunDir, monkeypatch: pytest.MonkeyPatch) -> RunDir:
    """The stack's files rendered (paste configs copied from a fake venv)."""
    venv = run.root / "venv"
    for names in nova_config.PASTE.values():
        for name in names:
            (venv / "etc" / name).parent.mkdir(parents=True, exist_ok=True)
            (venv / "etc" / name).write_text("[pipeline:main]\n")
    monkeypatch.setattr(sys, "prefix", str(venv))
    plan = _plan()
    values = nova_config.template_values(run, plan, "http://127.0.0.1:5000/v3", 3306)
    nova_config.stack_dir(run).mkdir(mode=0o700)
    nova_config.render(run, plan, values)
    return run


def test_render_writes_every_config_under_private(rendered: RunDir) -> None:
    top = nova_config.stack_dir(rendered)
    assert top.is_relative_to(rendered.private)
    for folder, files in nova_config.CONFIGS.items():
        for name in files.values():
            assert (top / folder / name).is_file(), name
    for api in nova_config.APIS:
        ini = (top / f"uwsgi-{api.name}.ini").read_text()
        assert f"module = {api.module}" in ini
        assert f"http = 127.0.0.1:{_plan()['ports'][api.name]}" in ini
        assert f"{top / api.config}" in ini
    nova = (top / "nova" / "nova.conf").read_text()
    assert "compute_driver = fake.FakeDriverWithoutFakeNodes" in nova
    assert "transport_url = rabbit://nova:RABBIT-PW@127.0.0.1:21000/" in nova
    assert "connection = mysql+pymysql://openstack:DB-PW@127.0.0.1:3306/nova?" in nova
    assert "username = placement" in nova and "password = SERVICE-PW" in nova
    assert "host = controller" in nova
    for index in (1, 2):
        compute = (top / "nova" / f"compute-{index}.conf").read_text()
        assert f"host = fakehost{index}\n" in compute
        assert f"nova-compute-{index}.log" in compute
    assert not (top / "nova" / "compute-3.conf").exists()
    rabbit = (top / "rabbitmq" / "rabbitmq.conf").read_text()
    assert "default_pass = RABBIT-PW" in rabbit
    assert (top / "nova" / "api-paste.ini").is_file()
    assert (rendered.root / "stack" / "nova" / "instances").is_dir()


def test_rendered_files_hold_no_template_left(rendered: RunDir) -> None:
    for path in nova_config.stack_dir(rendered).rglob("*"):
        if path.is_file():
            assert "${" not in path.read_text(), path


def test_no_password_outside_private(rendered: RunDir) -> None:
    for path in rendered.root.rglob("*"):
        if path.is_file() and not path.is_relative_to(rendered.private):
            text = path.read_text(errors="replace")
            assert not [p for p in PASSWORDS if p in text], path


def test_missing_paste_config_names_the_extra(
    run: RunDir, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "prefix", str(run.root / "empty-venv"))
    plan = _plan()
    values = nova_config.template_values(run, plan, "http://127.0.0.1:5000/v3", 3306)
    with pytest.raises(nova_config.StackError, match=r"rally-keystone-perf\[nova\]"):
        nova_config.render(run, plan, values)


def test_endpoints() -> None:
    by_name = {api.name: api for api in nova_config.APIS}
    plan = _plan()
    assert nova_config.endpoint(plan, by_name["nova-api"]).endswith("/v2.1")
    assert nova_config.endpoint(plan, by_name["glance"]) == "http://127.0.0.1:20001"
    types = {api.service_type for api in nova_config.APIS}
    assert types == {"compute", "placement", "image", "network"}


def test_compute_hosts() -> None:
    assert nova_config.compute_hosts(_plan()) == ["fakehost1", "fakehost2"]


def _uncommented_settings(text: str) -> list[str]:
    """Setting lines whose paragraph has no comment line above them."""
    found: list[str] = []
    commented = False
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped:
            commented = False
        elif stripped.startswith(("#", ";")):
            commented = True
        elif not stripped.startswith("[") and not commented:
            found.append(stripped.split("=")[0].strip())
    return found


def test_every_rendered_setting_says_why(rendered: RunDir) -> None:
    top = nova_config.stack_dir(rendered)
    paste = {
        name.split("/")[-1] for names in nova_config.PASTE.values() for name in names
    }
    checked = []
    for path in sorted(top.rglob("*")):
        if path.suffix in (".conf", ".ini") and path.name not in paste:
            assert _uncommented_settings(path.read_text()) == [], path
            checked.append(path.name)
    assert len(checked) == 13  # nova 2 + 2 computes, 4 uwsgi, 3 APIs, rabbitmq 2
    assert "glance-api.conf" in checked and "uwsgi-nova-api.ini" in checked
