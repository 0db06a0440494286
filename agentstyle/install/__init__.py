"""Putting a policy into a project: compile, write the handlers, lock, protect, undo."""
