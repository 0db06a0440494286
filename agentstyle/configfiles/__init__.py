"""Byte-preserving edits of the config files STYLE shares with their owners."""
