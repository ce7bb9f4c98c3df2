"""``python -m integrator_lab``: the command-line interface."""

from integrator_lab.cli.main import main

raise SystemExit(main())
