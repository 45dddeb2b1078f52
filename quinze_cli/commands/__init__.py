"""One module per ``quinze`` command, each with ``register(app)``."""
