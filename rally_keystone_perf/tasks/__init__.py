"""Rally task files as data: loaded and parsed once, checked, generated.

:mod:`.model` (:class:`~.model.TaskFile`: read, render, parse), :mod:`.check`
(the plugins' schemas, before any server starts), :mod:`.generate` (the
bundled task files under ``tasks/<mode>/``, from the plans
(:mod:`.seed_plans`) of each seed; seed 001's are in :mod:`.seed001_tasks`).
"""
