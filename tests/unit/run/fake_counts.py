"""A fake ``count.count_side`` for the bisect's tests: no Keystone, no
valgrind; each workload's instructions from the step's options."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rally_keystone_perf.deploy.instructions import count

PROVIDER = "keystone/token/provider.py:Manager.validate_token"


def count_side(
    cost: Callable[[Any], float], counted: list[str]
) -> Callable[..., count.SideCount]:
    """``count_side`` counting each workload at ``cost(options)`` per
    request, 64 reads each; its profile (one function, 4 calls, lines as
    many as the cost's millions, per 4 iterations) written where a count's
    is; the step (its build's ref or its day) appended to ``counted``."""

    def fake(
        folder: Path,
        options: Any,
        specs: list[dict[str, Any]],
        plan: Any,
        echo: Any,
        profile: bool = False,
    ) -> count.SideCount:
        counted.append(
            Path(options.keystone_build).name
            if "/" in str(options.keystone_build)
            else options.build_deps
        )
        each = cost(options)
        found = [
            count.WorkloadCount(
                n, s["scenario"], 1.0, each, [[1, 1]], 4, {"read": 64.0}
            )
            for n, s in enumerate(specs)
        ]
        profiles = {}
        if profile:
            folder.mkdir(parents=True, exist_ok=True)
            for n in range(len(specs)):
                out = folder / f"profile-{n}.json"
                functions = {PROVIDER: [4, round(each / 1e6)]}
                out.write_text(json.dumps({"iterations": 4, "functions": functions}))
                profiles[n] = out
        return count.SideCount(found, {}, profiles)

    return fake
