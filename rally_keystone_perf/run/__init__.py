"""Running tasks: a Keystone session, the Rally engine, the matrix of modes.

:mod:`.session` (a deployment up, the resource sampler, a Rally runner,
everything stopped on the way out), :mod:`.rally_runner` (``rally task
start`` and its report export in a private Rally database), :mod:`.matrix`
(task files x modes, resumable).
"""
