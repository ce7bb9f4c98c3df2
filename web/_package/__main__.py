"""``python -m integrator_lab``: the command-line interface."""

from integrator_lab.web.cli import main

raise SystemExit(main())
