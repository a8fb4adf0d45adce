"""The seeds' studies as data: what each seed compared, its table, its ratios.

``rally-keystone-perf study SEED`` runs a study's matrix
(:mod:`rally_keystone_perf.run.study_matrix`) and sets the seed's table, typed in
here with its source, beside ours (:mod:`rally_keystone_perf.report.figures.study`).
"""
