"""Turn a ``--keystone-build`` spec into its installed venv, before any start."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from rally_keystone_perf.deploy.builds import resolve, spec, venvs
from rally_keystone_perf.deploy.options import Deployment, LaunchError, Progress


def prepare(deployment: Deployment, progress: Progress) -> Deployment:
    """``deployment`` with its build installed (``keystone_venv`` set).

    Resolves and installs the build once (cached); a deployment without a
    build, or whose build is installed already, comes back as it is.
    LaunchError, with pip's tail, when the spec names no Keystone.
    """
    options = deployment.options
    if options.keystone_build is None or options.keystone_venv is not None:
        return deployment
    if deployment.mode.stack is not None:
        raise LaunchError(
            f"--keystone-build: mode {deployment.mode.name} also runs services "
            "from the suite's own venv (Nova, Placement, Glance, Neutron), which "
            "need the suite's Keystone; builds run Keystone-only modes"
        )
    build_spec = spec.parse(options.keystone_build)
    progress(f"resolving Keystone build {build_spec.text}")
    resolution = resolve.resolve(build_spec, options.build_deps)
    cache = Path(options.build_cache) if options.build_cache else None
    built = venvs.ensure(resolution, cache or venvs.default_cache(), progress)
    return dataclasses.replace(
        deployment,
        options=dataclasses.replace(options, keystone_venv=str(built.path)),
    )
