"""A revocation table of a given size before the load (seed 001's sync overhead)."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

from keystoneauth1 import exceptions as ks_exceptions
from rally import exceptions
from rally.common import logging
from rally.task import context

from rally_keystone_perf.plugins.contexts.clients import admin_client

LOG = logging.getLogger(__name__)
CONTEXT_NAME = "keystone_perf_revocations"
CONTEXT_REF = f"{CONTEXT_NAME}@openstack"


@context.configure(name=CONTEXT_NAME, platform="openstack", order=160)
class KeystonePerfRevocations(context.Context):
    """Add ``events`` revocation events to Keystone before the load.

    Every token validation checks the token against Keystone's revocation
    events, and ``GET /v3/OS-REVOKE/events`` lists them all, so both can be
    measured against a table of a given size (seed 001's "overhead of
    syncing the revocation list"; deployments have seen validations slow
    down as revocation events pile up). The admin credential's token mints
    tokens with the token method (no password check) and revokes them,
    ``workers`` at a time, untimed. One revocation adds more than one event
    (Keystone 30 records two: by audit id and by audit chain): the context
    counts what the first one added and revokes as many tokens as ``events``
    needs, rounded up, then records the events added and the tokens revoked
    in ``context["keystone_perf_revocations"]``. The events stay after the
    run until the revoked tokens would have expired, when Keystone prunes
    them; the API cannot delete them.
    """

    CONFIG_SCHEMA = {
        "type": "object",
        "$schema": "http://json-schema.org/draft-07/schema#",
        "properties": {
            "events": {
                "type": "integer",
                "minimum": 0,
                "maximum": 100000,
                "description": "Revocation events to add before the load.",
            },
            "workers": {
                "type": "integer",
                "minimum": 1,
                "maximum": 32,
                "description": "Revocations sent at a time.",
            },
        },
        "required": ["events"],
        "additionalProperties": False,
    }
    DEFAULT_CONFIG = {"workers": 4}

    def setup(self) -> None:
        """Revoke tokens until Keystone holds ``events`` more revocation events."""
        identity, admin_token, _ = admin_client(self.context, CONTEXT_NAME)
        wanted = int(self.config["events"])
        started = time.monotonic()

        def revoke_one(_: int = 0) -> None:
            identity.revoke_token(admin_token, identity.rescope_token(admin_token))

        def count() -> int:
            try:
                return len(identity.list_revocation_events(admin_token))
            except ks_exceptions.HttpError as exc:
                raise exceptions.ContextSetupFailure(
                    ctx_name=CONTEXT_NAME,
                    msg=f"GET /v3/OS-REVOKE/events answered {exc.http_status}, "
                    "so the events cannot be counted (with memcached, Keystone "
                    "caches the whole list as one item: over memcached's 1 MB "
                    "item limit, past about 8000 events, listing fails)",
                ) from None

        before = count() if wanted else 0
        revoked = 0
        if wanted:
            revoke_one()  # how many events one revocation adds (2 on Keystone 30)
            revoked = 1
            per_token = max(count() - before, 1)
            more = -(-(wanted - per_token) // per_token)  # ceiling
            with ThreadPoolExecutor(max_workers=self.config["workers"]) as pool:
                list(pool.map(revoke_one, range(max(more, 0))))
            revoked += max(more, 0)
        added = count() - before if wanted else 0
        seconds = round(time.monotonic() - started, 3)
        LOG.info(f"{revoked} tokens revoked in {seconds} s: {added} events added")
        self.context[CONTEXT_NAME] = {
            "events": added,
            "tokens": revoked,
            "seconds": seconds,
        }

    def cleanup(self) -> None:
        """Nothing to undo: Keystone prunes the events once the tokens expire."""
        self.context.pop(CONTEXT_NAME, None)
