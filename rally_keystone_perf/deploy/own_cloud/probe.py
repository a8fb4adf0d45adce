"""Checks a cloud's Keystone before any load: one clear line per problem.

Three requests at most, none of them writes: Keystone's v3 version document
(the API version: Keystone does not say its release), a password login
(the credentials, the user's roles) and, when a workload needs it, a
revocation event listing since now (the ``OS-REVOKE`` API). The token the
login issued is kept nowhere and not revoked (revoking it would leave a
revocation event behind); it expires on its own.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rally_keystone_perf.client import keystone_v3
from rally_keystone_perf.deploy.own_cloud.target import CloudTarget, TargetError

TIMEOUT = 15.0  # seconds per probe request
ADMIN_ROLE = "admin"
CA_HINT = "name the CA bundle with cacert: in clouds.yaml or OS_CACERT"


@dataclass(frozen=True)
class Probe:
    """What the probe learned: the v3 endpoint, its API version, the roles."""

    v3_url: str
    api_version: str
    roles: tuple[str, ...]
    user_id: str
    project_id: str

    def public(self) -> dict[str, Any]:
        """run.json's record of it."""
        return {
            "v3_url": self.v3_url,
            "api_version": self.api_version,
            "roles": list(self.roles),
            "user_id": self.user_id,
            "project_id": self.project_id,
        }


def v3_url(auth_url: str) -> str:
    """The v3 endpoint of an auth URL given with or without ``/v3``."""
    url = auth_url.rstrip("/")
    return url if url.endswith("/v3") else f"{url}/v3"


def verify_of(target: CloudTarget) -> bool | str:
    """requests' ``verify``: off, the cloud's CA bundle, or the system's."""
    if not target.verify:
        return False
    return target.cacert or True


def send(method: str, url: str, target: CloudTarget, **kwargs: Any) -> Any:
    import requests  # costly: requests and urllib3

    try:
        return requests.request(
            method, url, verify=verify_of(target), timeout=TIMEOUT, **kwargs
        )
    except requests.exceptions.SSLError as exc:
        problem = f"TLS verification failed for {url}: {_why(exc)}; {CA_HINT}"
        raise TargetError(problem) from None
    except requests.exceptions.Timeout:
        raise TargetError(f"{url} did not answer in {TIMEOUT:g} s") from None
    except (requests.exceptions.RequestException, OSError) as exc:
        raise TargetError(f"cannot reach {url}: {_why(exc)}") from None


def _why(exc: BaseException) -> str:
    """The innermost reason of a requests error, in one line."""
    reason = exc
    while reason.__context__ is not None and reason.__context__ is not reason:
        reason = reason.__context__
    text = str(reason) or type(reason).__name__
    return text.splitlines()[0][:200]


def _version(url: str, target: CloudTarget) -> str:
    answer = send("GET", url, target, headers={"Accept": "application/json"})
    try:
        version = answer.json()["version"]
        ident = str(version["id"])
    except (ValueError, KeyError, TypeError):
        raise TargetError(
            f"{url} answered {answer.status_code} without a Keystone v3 version "
            "document: is auth_url Keystone's?"
        ) from None
    if not ident.startswith("v3"):
        raise TargetError(f"{url} serves identity API {ident}, not v3")
    return ident


def login(url: str, target: CloudTarget) -> dict[str, Any]:
    """A project-scoped password login: the token body and ``token``, its id."""
    user = keystone_v3.credential_user(target.credential())
    body = keystone_v3.password_auth_body(user)
    answer = send("POST", f"{url}/auth/tokens", target, json=body)
    if answer.status_code == 401:
        raise TargetError(
            f"the cloud refused the credentials of user {target.username!r} "
            f"on project {target.project_name!r} (401)"
        )
    if answer.status_code != 201:
        raise TargetError(f"login at {url}/auth/tokens answered {answer.status_code}")
    try:
        token = dict(answer.json()["token"])
    except (ValueError, KeyError, TypeError):
        raise TargetError(
            f"login at {url}/auth/tokens: no token in the answer"
        ) from None
    return {"token": answer.headers.get("X-Subject-Token", ""), **token}


def _revocation_api(url: str, target: CloudTarget, token: str) -> int:
    now = datetime.datetime.now(datetime.timezone.utc)
    since = now.strftime("%Y-%m-%dT%H:%M:%SZ")
    answer = send(
        "GET",
        f"{url}/OS-REVOKE/events",
        target,
        params={"since": since},
        headers={"X-Auth-Token": token},
    )
    return int(answer.status_code)


def _check_revocation(
    url: str, target: CloudTarget, token: str, needed_by: Sequence[str], api: str
) -> None:
    status = _revocation_api(url, target, token)
    if status == 404:
        raise TargetError(
            f"this Keystone ({api}) has no OS-REVOKE API, which "
            f"{', '.join(needed_by)} need{'s' if len(needed_by) == 1 else ''}"
        )
    if status != 200:
        raise TargetError(f"listing revocation events answered {status}")


def probe(
    target: CloudTarget,
    admin_for: Sequence[str] = (),
    revocation_for: Sequence[str] = (),
) -> Probe:
    """Check the cloud for workloads that need the admin role and OS-REVOKE.

    :raises TargetError: unreachable, TLS, not Keystone v3, credentials
        refused, a role or an API a workload needs missing.
    """
    url = v3_url(target.auth_url)
    api_version = _version(url, target)
    token = login(url, target)
    roles = tuple(sorted(str(r.get("name")) for r in token.get("roles", [])))
    if admin_for and ADMIN_ROLE not in roles:
        raise TargetError(
            f"user {target.username!r} has roles {', '.join(roles) or 'none'} on "
            f"project {target.project_name!r}; {', '.join(admin_for)} "
            f"need{'s' if len(admin_for) == 1 else ''} the admin role"
        )
    if revocation_for:
        _check_revocation(url, target, token["token"], revocation_for, api_version)
    return Probe(
        v3_url=url,
        api_version=api_version,
        roles=roles,
        user_id=str(token.get("user", {}).get("id", "")),
        project_id=str(token.get("project", {}).get("id", "")),
    )
