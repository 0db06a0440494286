"""The command line: each `style` command in its own module, `app.py` joining them."""
