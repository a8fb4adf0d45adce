"""``python -m rally_keystone_perf.cli``: the ``rally-keystone-perf`` command."""

import sys

from rally_keystone_perf.cli.app import main

sys.exit(main())
