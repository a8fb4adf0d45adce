"""Keystone v3 management calls: projects, users, roles, application credentials.

:class:`AdminCalls` is a part of
:class:`~rally_keystone_perf.client.keystone_v3.IdentityClient` (its base),
kept in a module of its own: the calls an administrator (or a user managing
its own application credentials) sends, as opposed to the token calls every
client sends. Each method sends one request, over the client's session and
through its timer; those without an atomic name are the contexts' set-up and
clean-up, never timed.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from rally_keystone_perf.client import atomics


@dataclass(frozen=True)
class AppCredential:
    """An application credential: its id, name, owner and secret.

    The secret is shown once by Keystone, at creation; it is kept in memory
    only and never shown (``repr`` leaves it out).
    """

    id: str
    name: str
    user_id: str
    secret: str

    def __repr__(self) -> str:  # never show the secret
        return f"AppCredential({self.name!r}, user={self.user_id!r})"


def app_credential_auth_body(credential: AppCredential) -> dict[str, Any]:
    """The JSON body of an ``application_credential`` ``POST /v3/auth/tokens``:
    by id and secret, the cheapest lookup (no user or name to resolve)."""
    return {
        "auth": {
            "identity": {
                "methods": ["application_credential"],
                "application_credential": {
                    "id": credential.id,
                    "secret": credential.secret,
                },
            }
        }
    }


SCOPES = ("domain", "system")  # what a token may be scoped to, beyond projects
# keystone-manage bootstrap makes reader, member (implying reader), manager,
# admin and service (keystone/cmd/bootstrap.py, Keystone 30.0.0): reader is
# the least a domain- or system-scoped token needs
DEFAULT_SCOPE_ROLE = "reader"


def grant_target(scope: str, domain_id: str | None) -> str:
    """The path of a role grant's target: ``domains/{id}`` or ``system``."""
    return "system" if scope == "system" else f"domains/{domain_id}"


def scope_body(scope: str, domain_id: str | None) -> dict[str, Any]:
    """A token request's ``scope``: the domain by ID, or the whole system."""
    if scope == "system":
        return {"system": {"all": True}}
    return {"domain": {"id": domain_id}}


class AdminCalls:
    """Projects, users, role assignments and application credentials."""

    # IdentityClient's: the atomic timer, and one request to its endpoint
    _timer: Callable[[str], AbstractContextManager[None]]
    _request: Callable[..., Any]

    def list_projects(self, token: str) -> list[dict[str, Any]]:
        """``GET /v3/projects``."""
        with self._timer(atomics.LIST_PROJECTS):
            resp = self._request("GET", "/projects", token)
        return list(resp.json()["projects"])

    def list_role_assignments(
        self,
        token: str,
        user_id: str | None = None,
        effective: bool = True,
        include_names: bool = True,
    ) -> list[dict[str, Any]]:
        """``GET /v3/role_assignments``, of ``user_id`` when given, with
        ``effective`` (group and inherited roles resolved) and
        ``include_names``, as Horizon asks for a user's roles."""
        query = [f"user.id={user_id}"] if user_id else []
        query += ["effective"] if effective else []
        query += ["include_names"] if include_names else []
        path = "/role_assignments" + ("?" + "&".join(query) if query else "")
        with self._timer(atomics.LIST_ROLE_ASSIGNMENTS):
            resp = self._request("GET", path, token)
        return list(resp.json()["role_assignments"])

    def create_user(
        self,
        token: str,
        name: str,
        password: str,
        domain_id: str = "default",
        default_project_id: str | None = None,
    ) -> str:
        """``POST /v3/users``; return the new user's id."""
        user: dict[str, Any] = {
            "name": name,
            "password": password,
            "domain_id": domain_id,
            "enabled": True,
        }
        if default_project_id:
            user["default_project_id"] = default_project_id
        with self._timer(atomics.CREATE_USER):
            resp = self._request("POST", "/users", token, json={"user": user})
        return str(resp.json()["user"]["id"])

    def delete_user(self, token: str, user_id: str) -> None:
        """``DELETE /v3/users/{user_id}``."""
        with self._timer(atomics.DELETE_USER):
            self._request("DELETE", f"/users/{user_id}", token)

    def create_project(self, token: str, name: str, domain_id: str = "default") -> str:
        """``POST /v3/projects`` (untimed: a context's set-up); the new id."""
        project = {"name": name, "domain_id": domain_id, "enabled": True}
        resp = self._request("POST", "/projects", token, json={"project": project})
        return str(resp.json()["project"]["id"])

    def delete_project(self, token: str, project_id: str) -> None:
        """``DELETE /v3/projects/{project_id}`` (untimed: a context's clean-up)."""
        self._request("DELETE", f"/projects/{project_id}", token)

    def role_id(self, token: str, name: str) -> str | None:
        """``GET /v3/roles?name=`` (untimed): the id of the role ``name``, or
        None when the cloud has none of that name."""
        resp = self._request("GET", f"/roles?name={quote(name)}", token)
        roles = [r for r in resp.json()["roles"] if r.get("name") == name]
        return str(roles[0]["id"]) if roles else None

    def grant_project_role(
        self, token: str, project_id: str, user_id: str, role_id: str
    ) -> None:
        """``PUT /v3/projects/{p}/users/{u}/roles/{r}`` (untimed)."""
        path = f"/projects/{project_id}/users/{user_id}/roles/{role_id}"
        self._request("PUT", path, token)

    def user_domain_id(self, token: str, user_id: str) -> str:
        """``GET /v3/users/{user_id}`` (untimed): the user's domain ID."""
        resp = self._request("GET", f"/users/{user_id}", token)
        return str(resp.json()["user"]["domain_id"])

    def grant_role(
        self, token: str, target: str, user_id: str, role_id: str, revoke: bool = False
    ) -> None:
        """Grant (``PUT``) or revoke (``DELETE``) a role on ``target``
        (untimed: a context's set-up and clean-up): ``domains/{id}`` for a
        domain, ``system`` for the system
        (``/v3/system/users/{u}/roles/{r}``; the admin role on a project is
        enough, Keystone 30.0.0's ``identity:create_system_grant_for_user``
        being ``rule:admin_required`` with scope types system and project)."""
        path = f"/{target}/users/{user_id}/roles/{role_id}"
        self._request("DELETE" if revoke else "PUT", path, token)

    def has_role(self, token: str, target: str, user_id: str, role_id: str) -> bool:
        """``HEAD`` of a direct grant (untimed): whether the user already
        holds the role on ``target`` (``domains/{id}`` or ``system``)."""
        path = f"/{target}/users/{user_id}/roles/{role_id}"
        resp = self._request("HEAD", path, token, raise_exc=False)
        return bool(resp.status_code < 300)

    def create_application_credential(
        self, token: str, user_id: str, name: str
    ) -> AppCredential:
        """``POST /v3/users/{user_id}/application_credentials`` as the user
        itself (``token``: the user's project-scoped token; its roles on that
        project are the credential's). Untimed: a context's set-up."""
        body = {
            "application_credential": {
                "name": name,
                "description": "rally-keystone-perf; deleted at the workload's end",
            }
        }
        path = f"/users/{user_id}/application_credentials"
        resp = self._request("POST", path, token, json=body)
        made = resp.json()["application_credential"]
        return AppCredential(str(made["id"]), name, user_id, str(made["secret"]))

    def list_application_credentials(
        self, token: str, user_id: str, name: str | None = None
    ) -> list[dict[str, Any]]:
        """``GET /v3/users/{user_id}/application_credentials`` (untimed; the
        user's own token, or an admin's), of ``name`` only when given."""
        path = f"/users/{user_id}/application_credentials"
        path += f"?name={quote(name)}" if name else ""
        resp = self._request("GET", path, token)
        return list(resp.json()["application_credentials"])

    def delete_application_credential(
        self, token: str, user_id: str, credential_id: str
    ) -> None:
        """``DELETE /v3/users/{user_id}/application_credentials/{id}``
        (untimed: a context's clean-up; the user's own token, or an admin's)."""
        path = f"/users/{user_id}/application_credentials/{credential_id}"
        self._request("DELETE", path, token)
