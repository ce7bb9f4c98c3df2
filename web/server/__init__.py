"""The Panel server: the page's own front end for every browser session, its engine (the
core) in CPython (``integrator-lab serve``, or ``panel serve`` on
:mod:`integrator_lab.server.panel_app`).

One module per job: :mod:`~.hosted` (the dashboard: the page in a frame of a Panel component,
its engine in the session), :mod:`~.server` (the Bokeh server, ``/status``, private sessions,
caps), :mod:`~.sessions` (caps, CPU shares), :mod:`~.sandbox` and :mod:`~.confinement` (a
visitor's Python, kept out of the server's process), :mod:`~.transport` (every use of
private Bokeh/Panel API)."""
