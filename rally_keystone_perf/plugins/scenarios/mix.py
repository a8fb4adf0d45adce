"""KeystonePerf.mix: each iteration one operation of a weighted mix."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rally.common import validation as rally_validation
from rally.task import validation
from rally_openstack.task import scenario

from rally_keystone_perf.client import weighted
from rally_keystone_perf.plugins.contexts.app_credentials import (
    CONTEXT_NAME as APP_CREDENTIALS,
)
from rally_keystone_perf.plugins.contexts.tokens import CONTEXT_REF as TOKEN_POOL
from rally_keystone_perf.plugins.scenarios.operations import (
    ACTIONS,
    KeystonePerfOperations,
)
from rally_keystone_perf.plugins.workload_checks import WorkloadValidator

OPERATIONS = tuple(ACTIONS)
VALIDATOR = "keystone_perf_mix_weights"
# operation -> the context a mix task must carry for it (beyond a users
# context and the mix's own: keystone_perf_tokens, and admin_cleanup, which
# Rally hides from task files, for a user left by create_delete_user's
# failed delete, found by its Rally name)
NEEDS = {"authenticate_application_credential": APP_CREDENTIALS}


def mix_problem(args: Mapping[str, Any], contexts: Mapping[str, Any]) -> str | None:
    """Why a mix's arguments cannot run with these contexts (None: they can)."""
    weights = args.get("weights")
    if not isinstance(weights, Mapping):
        return f"weights: {weights!r} is not an object of operation: weight"
    try:
        weighted.check_weights(weights, OPERATIONS)
    except weighted.WeightError as exc:
        return str(exc)
    seed = args.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool):
        return f"seed: {seed!r} is not an integer"
    present = {name.split("@")[0] for name in contexts}
    for operation in weights:
        needed = NEEDS.get(operation)
        if needed and needed not in present:
            return (
                f"weights: {operation} needs the {needed} context: add it to "
                "the workload's contexts"
            )
    return None


@rally_validation.configure(name=VALIDATOR)
class MixWeightsValidator(WorkloadValidator):
    """Checks a KeystonePerf.mix workload's ``weights`` and ``seed``.

    Refuses, before any server starts: weights that are not an object of
    operation names to numbers, an operation the mix does not know, a
    weight not above 0, a seed that is not an integer, and an operation
    whose context the workload lacks (see
    ``rally_keystone_perf.plugins.scenarios.mix.NEEDS``).
    """

    def problem(
        self, args: Mapping[str, Any], contexts: Mapping[str, Any]
    ) -> str | None:
        """See :func:`mix_problem`."""
        return mix_problem(args, contexts)


@validation.add(VALIDATOR)
@validation.add("required_platform", platform="openstack", admin=True, users=True)
@scenario.configure(
    name="KeystonePerf.mix",
    platform="openstack",
    context={TOKEN_POOL: {}, "admin_cleanup@openstack": ["keystone"]},
)
class Mix(KeystonePerfOperations):
    """Each iteration, one operation drawn from a seeded weighted sequence."""

    def run(self, weights: dict[str, float], seed: int = 0) -> None:
        """Send one operation of the mix, timed under its own atomic name.

        Iteration N draws the N-th term of a deterministic weighted sequence
        (``rally_keystone_perf.client.weighted``, Tijdeman's chairman
        assignment): whatever the runner (``constant``, the open-model
        ``keystone_perf_arrival_rate``, capacity steps, Locust's workers),
        each iteration draws the same operation in every process, and after
        any N iterations each operation has run within one of its share of
        N. The operation is the scenario's own (same requests, same atomic
        actions, with the scenario's default arguments): ``create_token``
        (project scope), ``authenticate_application_credential``,
        ``validate_token`` (the admin validating a password token),
        ``list_projects``, ``list_role_assignments`` (the user's, with
        names), ``list_auth_projects``, ``get_catalog``,
        ``list_revocation_events``, and two-request ones: ``revoke_token``
        (``keystone.create_token`` then ``keystone.revoke_token``; each adds
        revocation events every later validation checks) and
        ``create_delete_user``.

        Contexts: a users context; in the scenario's defaults,
        ``keystone_perf_tokens`` (the admin's and the users' tokens) and
        ``admin_cleanup`` (a user a failed delete left, found by its Rally
        name, after the load); ``keystone_perf_app_credentials`` when
        ``authenticate_application_credential`` has a weight. Weights and
        contexts are checked before any server starts.

        :param weights: operation -> weight (a number above 0); shares are
            of iterations: weight over the sum of weights
        :param seed: orders the operations (which of equally due ones goes
            first); the shares do not depend on it
        """
        drawn = weighted.sequence(weights, seed)[self.context["iteration"] - 1]
        getattr(self, f"op_{drawn}")()
