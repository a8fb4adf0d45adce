"""One line when a workload's setup took longer than its load, and why.

Rally's users context creates every project and user through Keystone
before the load (and Keystone hashes each password with bcrypt); on a
short workload that setup dwarfs the load. The report's figures never
include it; this line says so, naming the context that took the most.
"""

from __future__ import annotations

from rally_keystone_perf.report.readers.rally_json import Workload

# what each context's setup does, for the line's "why"
WHY = {
    "users": "creating users, hashing passwords",
    "keystone_perf_users": "reading the user pool, issuing tokens",
    "keystone_perf_tokens": "issuing a token per user",
    "keystone_perf_revocations": "making revocation events",
}


def setup_note(workload: Workload) -> str | None:
    """``setup (25.1 s) outlasted the load (15.0 s), not in the figures: ...``
    or None."""
    setup, load = workload.setup_duration, workload.load_duration
    if not setup or not load or setup <= load:
        return None
    timed = [t for t in workload.context_timings if t.setup is not None]
    slowest = max(timed, key=lambda t: t.setup or 0.0)
    why = WHY.get(slowest.name.split("@")[0])  # users@openstack: Rally's
    return (
        f"setup ({setup:.1f} s) outlasted the load ({load:.1f} s), not in the "
        f"figures: {slowest.name} {slowest.setup or 0.0:.1f} s"
        + (f" {why}" if why else "")
    )
