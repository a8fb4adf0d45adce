"""Report step: Rally JSON task reports -> typed records -> statistics tables.

``load`` parses the file written by ``rally task report UUID --json``
(format_version "1.2"), ``stats`` reproduces Rally's ``MainStatsTable``
figures and ``render`` prints them as text tables.
"""
