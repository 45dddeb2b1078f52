"""The ``quinze`` command line (Typer + rich). One module per command."""
