"""Each scenario's recipe sends the scenario's requests, setup uncounted."""

from __future__ import annotations

from typing import Any

import pytest

from rally_keystone_perf.client.keystone_admin import AppCredential
from rally_keystone_perf.client.keystone_v3 import IssuedToken, PasswordUser
from rally_keystone_perf.deploy.instructions import recipes


class _Client:
    """Records calls; tokens are numbered."""

    def __init__(self, name: str, log: list[tuple[str, ...]]) -> None:
        self.name, self.log, self.issued = name, log, 0

    def _token(self) -> str:
        self.issued += 1
        return f"{self.name}-t{self.issued}"

    def create_token(
        self, user: PasswordUser, unscoped: bool = False, scope: Any = None
    ) -> str:
        said = (str(scope),) if scope else ()
        self.log.append(
            (self.name, "create_token", user.username, str(unscoped), *said)
        )
        return self._token()

    def rescope_token(self, token: str) -> str:
        self.log.append((self.name, "rescope_token", token))
        return self._token()

    def validate_token(self, auth: str, subject: str, **how: Any) -> dict[str, Any]:
        said = tuple(f"{k}={v}" for k, v in how.items() if v)  # only what is on
        self.log.append((self.name, "validate_token", auth, subject, *said))
        return {"user": {"id": f"id-of-{subject}"}}

    def create_application_credential(
        self, token: str, user_id: str, name: str
    ) -> AppCredential:
        self.log.append((self.name, "create_application_credential", token, user_id))
        return AppCredential(f"ac-{user_id}", name, user_id, "s")

    def authenticate_application_credential(self, app: AppCredential) -> Any:
        self.log.append((self.name, "authenticate_application_credential", app.id))
        return IssuedToken(self._token(), None)

    def role_id(self, token: str, name: str) -> str:
        return f"role-{name}"

    def __getattr__(self, method: str) -> Any:
        def call(*args: Any, **kwargs: Any) -> str:
            self.log.append((self.name, method, *map(str, args)))
            return "user-id"

        return call


def _clients(users: int = 2) -> tuple[recipes.Clients, list[tuple[str, ...]]]:
    log: list[tuple[str, ...]] = []
    people = [PasswordUser(f"u{n}", "p", project_name="p") for n in range(users)]
    clients = recipes.Clients(
        _Client("counted", log),  # type: ignore[arg-type]
        _Client("setup", log),  # type: ignore[arg-type]
        PasswordUser("admin", "p", project_name="admin"),
        people,
    )
    return clients, log


def _counted(log: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
    return [entry[1:] for entry in log if entry[0] == "counted"]


def test_create_token_logs_every_user_in_first_then_counts_round_robin() -> None:
    clients, log = _clients()
    step = recipes.recipe("KeystonePerf.create_token")(clients, {}, {})
    assert [e[2] for e in log if e[0] == "setup"] == ["u0", "u1"]
    for number in range(3):
        step(number)
    assert [e[1] for e in _counted(log)] == ["u0", "u1", "u0"]


def test_validate_token_takes_each_users_tokens_in_turn() -> None:
    clients, log = _clients()
    contexts = {"keystone_perf_tokens@openstack": {"tokens_per_user": 2}}
    step = recipes.validate_token(clients, {}, contexts)
    for number in range(4):
        step(number)
    subjects = [entry[2] for entry in _counted(log)]
    # users' tokens: u0 -> t1, t2; u1 -> t3, t4; the admin's is t5
    assert subjects == ["setup-t1", "setup-t3", "setup-t2", "setup-t4"]
    assert {entry[1] for entry in _counted(log)} == {"setup-t5"}


def test_self_validation_sends_the_token_as_its_own_authority() -> None:
    clients, log = _clients(users=1)
    step = recipes.validate_token(clients, {"validator": "self"}, {})
    step(0)
    assert _counted(log) == [("validate_token", "setup-t1", "setup-t1")]


def test_revocation_events_are_made_before_the_count() -> None:
    clients, log = _clients()
    contexts = {"keystone_perf_revocations": {"events": 3}}
    step = recipes.list_revocation_events(clients, {}, contexts)
    assert sum(1 for e in log if e[1] == "revoke_token") == 3
    step(0)
    assert _counted(log) == [("list_revocation_events", "setup-t1")]


def test_two_request_scenarios_count_both() -> None:
    clients, log = _clients()
    recipes.revoke_token(clients, {}, {})(0)
    recipes.create_delete_user(clients, {}, {})(7)
    methods = [entry[0] for entry in _counted(log)]
    assert methods == ["create_token", "revoke_token", "create_user", "delete_user"]
    assert recipes.requests_per_iteration("KeystonePerf.revoke_token") == 2
    assert recipes.requests_per_iteration("KeystonePerf.create_token") == 1


def test_boot_server_has_no_recipe() -> None:
    with pytest.raises(recipes.RecipeError, match="boot_server: no instruction"):
        recipes.recipe("KeystonePerf.boot_server")


def test_role_assignments_of_each_user_in_turn_or_of_all() -> None:
    clients, log = _clients()
    step = recipes.list_role_assignments(clients, {}, {})
    for number in range(3):
        step(number)
    counted = _counted(log)
    assert [entry[0] for entry in counted] == ["list_role_assignments"] * 3
    # the admin's token is t1; u0's t2 and u1's t3, read for their IDs
    assert [entry[2] for entry in counted] == [
        "id-of-setup-t2",
        "id-of-setup-t3",
        "id-of-setup-t2",
    ]
    assert counted[0][3:] == ("True", "True")
    clients, log = _clients()
    recipes.list_role_assignments(clients, {"of": "all", "effective": False}, {})(0)
    assert _counted(log) == [
        ("list_role_assignments", "setup-t1", "None", "False", "True")
    ]


@pytest.mark.parametrize(
    ("scenario", "method"),
    [
        ("KeystonePerf.list_auth_projects", "list_auth_projects"),
        ("KeystonePerf.get_catalog", "get_catalog"),
    ],
)
def test_user_token_reads_take_each_users_token_in_turn(
    scenario: str, method: str
) -> None:
    clients, log = _clients()
    step = recipes.recipe(scenario)(clients, {}, {})
    for number in range(3):
        step(number)
    assert _counted(log) == [
        (method, "setup-t1"),
        (method, "setup-t2"),
        (method, "setup-t1"),
    ]


def test_application_credentials_made_before_then_each_users_in_turn() -> None:
    clients, log = _clients()
    step = recipes.recipe("KeystonePerf.authenticate_application_credential")(
        clients, {}, {}
    )
    made = [e for e in log if e[1] == "create_application_credential"]
    # each user's own token (t1, t2... of setup), validated for its ID
    assert [e[0] for e in made] == ["setup", "setup"]
    for number in range(3):
        step(number)
    assert _counted(log) == [
        ("authenticate_application_credential", "ac-id-of-setup-t1"),
        ("authenticate_application_credential", "ac-id-of-setup-t2"),
        ("authenticate_application_credential", "ac-id-of-setup-t1"),
    ]


def test_application_credential_tokens_are_validated() -> None:
    clients, log = _clients(users=1)
    step = recipes.validate_token(clients, {"token_kind": "application_credential"}, {})
    step(0)
    # setup: u0's t1 (made the credential), its token t2; the admin's t3
    assert _counted(log) == [("validate_token", "setup-t3", "setup-t2")]


def test_service_validation_as_keystonemiddleware_sends_it() -> None:
    clients, log = _clients(users=1)
    args = {"validator": "service", "allow_expired": True}
    step = recipes.validate_token(clients, args, {})
    made = [e[1] for e in log if e[0] == "setup"]
    assert made[-4:] == [
        "create_project",
        "create_user",
        "grant_project_role",
        "create_token",
    ]
    step(0)
    # u0's token t1, the admin's t2, the service user's t3
    assert _counted(log) == [
        (
            "validate_token",
            "setup-t3",
            "setup-t1",
            "access_rules=True",
            "allow_expired=True",
        )
    ]


@pytest.mark.parametrize(
    ("scope", "target", "body"),
    [
        ("domain", "domains/user-id", "{'domain': {'id': 'user-id'}}"),
        ("system", "system", "{'system': {'all': True}}"),
    ],
)
def test_domain_and_system_scopes_are_granted_before_the_count(
    scope: str, target: str, body: str
) -> None:
    clients, log = _clients(users=1)
    contexts = {"keystone_perf_scope_roles@openstack": {"role": "member"}}
    step = recipes.create_token(clients, {"scope": scope}, contexts)
    grants = [e for e in log if e[1] == "grant_role"]
    # the admin's token (u0's warm-up is t1, the admin's t2), role by name
    assert grants == [
        ("setup", "grant_role", "setup-t2", target, "id-of-setup-t3", "role-member")
    ]
    step(0)
    assert _counted(log) == [("create_token", "u0", "False", body)]


def test_a_mix_replays_each_drawn_operations_recipe_in_the_mixs_order() -> None:
    from rally_keystone_perf.client import weighted

    clients, log = _clients(users=1)
    args = {"weights": {"list_projects": 2, "get_catalog": 1}, "seed": 3}
    step = recipes.recipe("KeystonePerf.mix")(clients, args, {})
    assert _counted(log) == []  # each operation's set-up first, uncounted
    for number in range(6):
        step(number)
    drawn = weighted.WeightedSequence(args["weights"], 3)
    assert [e[0] for e in _counted(log)] == [drawn[n] for n in range(6)]
    assert (
        sorted(e[0] for e in _counted(log))
        == ["get_catalog"] * 2 + ["list_projects"] * 4
    )


def test_a_mix_counts_its_operations_weighted_requests() -> None:
    args = {"weights": {"revoke_token": 1, "get_catalog": 3}}
    assert recipes.requests_per_iteration("KeystonePerf.mix", args) == 1.25
