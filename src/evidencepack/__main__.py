"""`python -m evidencepack`: the same command line as `evidencepack`."""

import sys

from .cli import main

sys.exit(main())
