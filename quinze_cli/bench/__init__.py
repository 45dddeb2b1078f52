"""Measurements behind ``quinze bench``: ``engine`` (game engines), and others by concern."""
