"""The dashboard under Panel's own server: ``panel serve web/server/panel_app.py`` (what
``integrator-lab serve`` runs, without its ``/status``, its session limits and its options;
Panel's server has no route to the page's files, so the page comes from a loopback server of
this process, as in a notebook: :func:`~integrator_lab.server.hosted.local_page_url`)."""

from __future__ import annotations

from integrator_lab.server.hosted import TITLE, local_page_url
from integrator_lab.server.server import create_app

if __name__.startswith("bokeh_app"):  # `panel serve` on this file
    dashboard = create_app()
    dashboard.lab.src = local_page_url()
    dashboard.servable(title=TITLE)
