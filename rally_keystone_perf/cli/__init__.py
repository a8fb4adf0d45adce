"""``rally-keystone-perf``: start a local Keystone, run Rally tasks, print reports.

:mod:`.parser` defines the arguments, with the options several commands
share in :mod:`.arguments`, :mod:`.launch_arguments` and
:mod:`.engine_options`; the commands (:mod:`.deploy_commands`,
:mod:`.run_commands`, :mod:`.report_commands` and the other
``*_commands``) only turn them into calls of the package; :mod:`.app` maps
known failures to exit codes.

Exit codes: 0 ok, 1 error (bad arguments included), 2 an SLA or the
regression gate failed (as ``rally task start``), 3 from ``status`` when no
server runs, 130 interrupted by Ctrl-C.
"""

from rally_keystone_perf.cli.app import main
from rally_keystone_perf.cli.parser import build_parser

__all__ = ["build_parser", "main"]
