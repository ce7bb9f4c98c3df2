"""The dashboard under Panel's own server: ``panel serve web/server/panel_app.py`` (what
``integrator-lab serve`` runs, without its ``/status``, its session limits and its options)."""

from __future__ import annotations

from integrator_lab.server.app import TITLE
from integrator_lab.server.server import create_app

if __name__.startswith("bokeh_app"):  # `panel serve` on this file
    create_app().servable(title=TITLE)
