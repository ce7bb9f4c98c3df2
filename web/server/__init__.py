"""The Panel server: the dashboard with the core in CPython, one simulation per browser session
(``integrator-lab serve``, or ``panel serve`` on :mod:`integrator_lab.server.panel_app`).

One module per job: :mod:`~.app` (the dashboard), :mod:`~.controls` (its declared state and
checked widgets), :mod:`~.sessions` (live sessions, CPU shares), :mod:`~.server` (the Bokeh
server, ``/status``, private sessions), :mod:`~.transport` (every use of private Bokeh/Panel
API), :mod:`~.serve` (the command); ``js/`` holds the scripts the page runs."""
