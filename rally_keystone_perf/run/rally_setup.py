"""A run's Rally database and environment, made in one Python process.

What ``rally db create`` then ``rally env create --name NAME --spec SPEC
--no-use`` do, through the same calls (``rally.common.db.schema`` and
``rally.env.env_mgr.EnvManager.create``), with Rally and its plugins
imported once instead of twice: about 3 s of every run's start on 2 cores.
Run by :meth:`.rally_runner.RallyRunner.prepare` as ``python -m
rally_keystone_perf.run.rally_setup CONFIG SPEC NAME``; the output goes to
the run's rally.log, exit 1 when either step fails.
"""

from __future__ import annotations

import json
import sys
import traceback
from pathlib import Path

from rally import api
from rally.common import db
from rally.env import env_mgr


def main(argv: list[str]) -> int:
    """Create the database ``CONFIG`` names and the env ``NAME`` of ``SPEC``."""
    config, spec, name = argv
    print(f"$ rally db create\n$ rally env create --name {name} --no-use")
    try:
        api.API(config_file=config, skip_db_check=True)
        db.schema.schema_create()
        print("Database created successfully")
        env = env_mgr.EnvManager.create(name, json.loads(Path(spec).read_text()))
    except Exception:
        traceback.print_exc()
        print("creating Rally's database or environment failed")
        return 1
    data = env.data
    print(f"env {data['name']} ({data['uuid']}): {data['status']}")
    for platform in data["platforms"].values():  # name and status, not data
        print(f"  platform {platform['plugin_name']}: {platform['status']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
