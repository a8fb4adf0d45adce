"""Keystone builds: a side of an A/B (or a run) on a Keystone of its own.

A build spec (:mod:`.spec`) names a Keystone: a pip requirement, a git URL
with a ref, or a local checkout. :mod:`.resolve` asks pip what it resolves
to (a version and an exact source: a wheel's hash, a commit, a checkout's
content), :mod:`.venvs` installs it once into a venv of its own under a
cache folder keyed by that resolution, with every other library pinned to
the suite's own versions, and :mod:`.runtime` tells the launcher which
Python, venv and path Keystone's processes then run with.
"""
