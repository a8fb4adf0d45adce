"""Report step: Rally JSON task reports -> typed records -> statistics tables.

``load`` parses the file written by ``rally task report UUID --json``
(format_version "1.2"), ``stats`` reproduces Rally's ``MainStatsTable``
figures and ``render`` prints them as text tables; ``formats`` writes them as
text, markdown, CSV, JSON or a self-contained HTML page (``html``). ``config``
labels runs by their configuration, ``compare`` compares runs with a baseline
and ``compare_formats`` writes that.
"""

FORMATS = ("table", "markdown", "csv", "json", "html")
GATE_FORMATS = ("table", "markdown", "json")
