"""The dashboard under Panel's own server: ``panel serve web/server/panel_app.py`` (what
``integrator-lab serve`` runs, without its ``/status``, its session limits and its options;
the page's files are served at ``/lab/`` by ``integrator-lab serve`` only)."""

from __future__ import annotations

from integrator_lab.server.hosted import TITLE
from integrator_lab.server.server import create_app

if __name__.startswith("bokeh_app"):  # `panel serve` on this file
    create_app().servable(title=TITLE)
