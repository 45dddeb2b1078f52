"""The Trio server: TCP serving, lobby, tables, seats, clocks and logs. Imports ``quinze_protocol`` only.

Installed as ``quinze_server`` (the repository folder is ``server/``; pyproject.toml maps it), so it
cannot clash with another project's ``server`` package. Importing the folder under its own name
raises ImportError.
"""

if __name__ != "quinze_server":
    raise ImportError(f"import quinze_server, not {__name__!r}: the folder server/ is installed as quinze_server "
                      "(pip install -e . in the repository)")
