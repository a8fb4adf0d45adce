"""The files a run leaves, as data: names, columns, versions, record types.

The code that writes a run folder (``deploy/``, ``run/``) and the report
that reads it back (``report/``) both import these definitions from here,
so the report reads a folder without importing the code that made it.
Nothing here imports from the rest of the package.
"""
