"""The history read back: reports, coverage, replay, suggestions and exports."""
