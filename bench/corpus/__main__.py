"""`python -m bench.corpus`: the corpus run (`make corpus`)."""

from __future__ import annotations

import sys

from bench.corpus.measure import main

raise SystemExit(main(sys.argv[1:]))
