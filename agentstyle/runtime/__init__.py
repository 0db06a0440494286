"""The hook at run time: one call's input, deadline, engine client and failure policy."""
