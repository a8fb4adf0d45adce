"""``boot_server`` on someone else's Nova: what the task names, found first.

Before any load, the image, flavor and network that a ``boot_server``
workload names (by name or id: the task's arguments, or ``--image``,
``--flavor`` and ``--network``) are looked up on the cloud with its own
user's token, at the catalog's image, compute and network endpoints. A
name the cloud does not have or has twice, a compute API too old for the
scenario, or (when the run creates its users, in projects of their own)
an image, flavor or network those users could not use refuses the run
with one line, before anything is created.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rally_keystone_perf.deploy.own_cloud.probe import login, send, v3_url
from rally_keystone_perf.deploy.own_cloud.target import CloudTarget, TargetError

SCENARIO = "KeystonePerf.boot_server"
MICROVERSION = (2, 37)  # the scenario's: "networks": "none" needs it
# what users in projects of their own can boot from
PUBLIC_IMAGES = ("public", "community")


@dataclass(frozen=True)
class BootSpec:
    """What one boot_server workload names: Rally's resource specs."""

    workload: str
    image: Mapping[str, str]
    flavor: Mapping[str, str]
    networks: Sequence[Mapping[str, str]] = ()


def _spec(value: Any, what: str, workload: str) -> dict[str, str]:
    if isinstance(value, str):
        return {"name": value}
    if isinstance(value, Mapping) and ({"name", "id", "regex"} & set(value)):
        return {k: str(v) for k, v in value.items()}
    raise TargetError(f"{workload}: {SCENARIO} needs its {what} (name or id)")


def boot_spec(workload: str, args: Mapping[str, Any]) -> BootSpec:
    """The specs of a boot_server workload's arguments.

    :raises TargetError: the image or the flavor is not named.
    """
    networks = [{"id": str(n)} for n in args.get("networks") or []]
    if args.get("network"):
        networks.append(_spec(args["network"], "network", workload))
    return BootSpec(
        workload,
        _spec(args.get("image"), "image (--image)", workload),
        _spec(args.get("flavor"), "flavor (--flavor)", workload),
        networks,
    )


def endpoint(
    catalog: Sequence[Mapping[str, Any]], kind: str, target: CloudTarget
) -> str:
    """The catalog's URL of service ``kind`` at the cloud's interface and region.

    :raises TargetError: the catalog has none.
    """
    for service in catalog:
        if service.get("type") != kind:
            continue
        for point in service.get("endpoints", []):
            region = point.get("region_id") or point.get("region")
            if point.get("interface") == target.interface and (
                not target.region or region == target.region
            ):
                return str(point["url"]).rstrip("/")
    where = f" in region {target.region}" if target.region else ""
    raise TargetError(
        f"the cloud's catalog has no {target.interface} {kind} endpoint{where}, "
        f"which {SCENARIO} needs"
    )


class _Lookup:
    """GETs with the cloud user's token; one answer's JSON or a refusal."""

    def __init__(self, target: CloudTarget, token: str) -> None:
        self.target, self.token = target, token

    def get(self, url: str, params: Mapping[str, str] | None = None) -> Any:
        answer = send("GET", url, self.target, params=params, headers=self.headers())
        if answer.status_code == 404:
            return None
        if answer.status_code != 200:
            raise TargetError(f"GET {url} answered {answer.status_code}")
        return answer.json()

    def headers(self) -> dict[str, str]:
        return {"X-Auth-Token": self.token, "Accept": "application/json"}


def _one(found: list[dict[str, Any]], what: str, spec: Mapping[str, str]) -> Any:
    named = spec.get("name") or spec.get("id")
    if not found:
        raise TargetError(f"{what} {named!r} is not on the cloud")
    if len(found) > 1:
        ids = ", ".join(str(f.get("id")) for f in found)
        raise TargetError(f"{what} {named!r} is ambiguous on the cloud: ids {ids}")
    return found[0]


def _image(look: _Lookup, base: str, spec: Mapping[str, str]) -> dict[str, Any]:
    url = base if base.endswith("/v2") else f"{base}/v2"
    if "id" in spec:
        image = look.get(f"{url}/images/{spec['id']}")
        return _one([image] if image else [], "image", spec)
    answer = look.get(f"{url}/images", {"name": spec["name"]}) or {}
    return _one(list(answer.get("images", [])), "image", spec)


def _flavor(look: _Lookup, base: str, spec: Mapping[str, str]) -> dict[str, Any]:
    # is_public=None: every flavor (an admin's view); others see theirs
    answer = look.get(f"{base}/flavors/detail", {"is_public": "None"}) or {}
    key = "id" if "id" in spec else "name"
    found = [f for f in answer.get("flavors", []) if str(f.get(key)) == spec[key]]
    return _one(found, "flavor", spec)


def _network(look: _Lookup, base: str, spec: Mapping[str, str]) -> dict[str, Any]:
    url = base if base.endswith("/v2.0") else f"{base}/v2.0"
    answer = look.get(f"{url}/networks", dict(spec)) or {}
    return _one(list(answer.get("networks", [])), "network", spec)


def _check_microversion(look: _Lookup, base: str) -> None:
    document = look.get(base) or {}
    text = str((document.get("version") or {}).get("version") or "")
    if not text:
        return  # a deployment without the version document: Nova says at boot
    major, _, minor = text.partition(".")
    if (int(major), int(minor or 0)) < MICROVERSION:
        wanted = ".".join(map(str, MICROVERSION))
        raise TargetError(
            f"the cloud's compute API goes up to {text}; {SCENARIO} needs {wanted}"
        )


def _unusable(
    image: Mapping[str, Any],
    flavor: Mapping[str, Any],
    networks: Sequence[Mapping[str, Any]],
) -> list[str]:
    """Why users in projects of their own could not boot with these."""
    problems = []
    if image.get("visibility", "public") not in PUBLIC_IMAGES:
        problems.append(f"image {image.get('name')!r} is {image['visibility']}")
    if not flavor.get("os-flavor-access:is_public", True):
        problems.append(f"flavor {flavor.get('name')!r} is not public")
    problems += [
        f"network {n.get('name')!r} is not shared"
        for n in networks
        if not n.get("shared", False)
    ]
    return problems


def _boot_line(
    spec: BootSpec,
    image: Mapping[str, Any],
    flavor: Mapping[str, Any],
    networks: Sequence[Mapping[str, Any]],
) -> str:
    nets = ", ".join(f"{n.get('name')} ({n.get('id')})" for n in networks)
    return (
        f"{spec.workload}: image {image.get('name')} ({image.get('id')}), "
        f"flavor {flavor.get('name')} ({flavor.get('vcpus')} vCPU, "
        f"{flavor.get('ram')} MB), networks: {nets or 'none (compute API 2.37)'}"
    )


def check_boots(
    target: CloudTarget, specs: Sequence[BootSpec], users_created: bool
) -> list[str]:
    """Find every workload's image, flavor and networks on the cloud; a line
    each saying what it will boot. ``users_created``: the run's users are
    made in projects of their own, so only what is public or shared will do.

    :raises TargetError: a name missing or ambiguous, an endpoint missing,
        an old compute API, something the run's users could not use.
    """
    if not specs:
        return []
    token = login(v3_url(target.auth_url), target)
    catalog = token.get("catalog", [])
    look = _Lookup(target, str(token["token"]))
    compute = endpoint(catalog, "compute", target)
    images = endpoint(catalog, "image", target)
    _check_microversion(look, compute)
    lines = []
    for spec in specs:
        if "regex" in spec.image or "regex" in spec.flavor:
            lines.append(f"{spec.workload}: a regex image or flavor: Rally finds it")
            continue
        image = _image(look, images, spec.image)
        flavor = _flavor(look, compute, spec.flavor)
        networks = [
            _network(look, endpoint(catalog, "network", target), n)
            for n in spec.networks
        ]
        problems = _unusable(image, flavor, networks) if users_created else []
        if problems:
            raise TargetError(
                f"{spec.workload}: {'; '.join(problems)}: the users the run "
                "creates (in projects of their own) cannot boot with it; "
                "name public ones, or give --existing-users of its project"
            )
        lines.append(_boot_line(spec, image, flavor, networks))
    return lines
