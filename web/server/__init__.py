"""The Panel server: the dashboard with the core in CPython, one simulation per browser session
(``integrator-lab serve``, or ``panel serve`` on :mod:`integrator_lab.server.app`)."""
