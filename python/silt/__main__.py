"""``python -m silt``: the command line (see silt.cli)."""
import sys

from silt.cli import main

sys.exit(main())
