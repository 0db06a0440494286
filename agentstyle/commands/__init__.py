"""What each simple command does, read by its program's grammar: the command model."""
