"""Several ``keystone-manage`` commands in one Python process.

Run by :func:`.init.run_manage_batch` with the Keystone build's own
interpreter, as ``python -c <this file's source> <steps as JSON>``: it
imports Keystone and oslo.config, and this suite only for a module step,
so it works in any build's venv. Each step is what ``keystone-manage ARGS``
would run (``keystone.cmd.cli.main``, with the developer config file the
script looks for), oslo.config reset between steps. The steps and their
results are Keystone's own; the batch only imports Keystone once instead of
once a command: about 4 s a command on 2 cores, 9-10 s of every start-up
(db_sync, fernet_setup, credential_setup, bootstrap).

A step is ``{"argv": [...], "cwd": folder or null}``, or a module step
``{"module": NAME, "label": WORDS, "argv": [...]}``: ``NAME.main(argv)``
in this same process, after Keystone's own commands (the user pool,
:mod:`rally_keystone_perf.deploy.user_pool`, on the build's PYTHONPATH:
Keystone imported once a start, not twice, 2.2 s a start here). A step
that fails (its exception or non-zero exit) ends the batch with exit 1 and
names itself last in the output, after Keystone's own traceback or message.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import traceback


def _run_step(argv: list[str], config_args: list[str]) -> int:
    """One ``keystone-manage`` command, as its script runs it; its exit code."""
    from keystone.cmd import cli, manage  # costly: Keystone, in the build's venv
    from oslo_config import cfg  # costly: with Keystone, in the build's venv

    developer = os.path.join(manage.possible_topdir, "etc", "keystone.conf")
    try:
        cli.main(
            argv=["keystone-manage", *config_args, *argv],
            developer_config_file=developer if os.path.exists(developer) else None,
        )
    except SystemExit as stop:  # Keystone's sys.exit(N) or SystemExit(message)
        if stop.code is None or isinstance(stop.code, int):
            return stop.code or 0
        print(stop.code, file=sys.stderr)  # as Python prints it at exit
        return 1
    finally:
        cfg.CONF.reset()  # the next step parses its own arguments
        cfg.CONF.unregister_opt(cli.command_opt)
    return 0


def _run_module(module: str, argv: list[str]) -> int:
    """``module.main(argv)`` in this process; its exit code."""
    try:
        return int(importlib.import_module(module).main(argv) or 0)
    except SystemExit as stop:  # argparse's exit 2, or sys.exit(N)
        return stop.code if isinstance(stop.code, int) else 1


def main(args: list[str]) -> int:
    """Run ``args[1]``'s steps (JSON) with the config arguments ``args[0]``."""
    config_args, steps = json.loads(args[0]), json.loads(args[1])
    for step in steps:
        name = step.get("label") or f"keystone-manage {step['argv'][0]}"
        print(f"$ {name}", flush=True)
        here = os.getcwd()
        try:
            if step.get("cwd"):
                os.chdir(step["cwd"])
            if step.get("module"):
                code = _run_module(step["module"], step["argv"])
            else:
                code = _run_step(step["argv"], config_args)
        except Exception:  # Keystone's own error, shown as keystone-manage would
            traceback.print_exc()
            code = 1
        finally:
            os.chdir(here)
        sys.stdout.flush()
        sys.stderr.flush()
        if code != 0:
            print(f"{name} failed (exit {code})", flush=True)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
