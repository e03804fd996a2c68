"""``python -m wacky_cli`` runs the ``wacky`` command."""

import sys

from wacky_cli.main import main

sys.exit(main())
