"""`python -m agentstyle` runs the `style` command line."""

from agentstyle.cli.app import main

main()
