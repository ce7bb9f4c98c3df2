"""What both dashboards show, shared by the static page and the Panel server: the scene drawn
from a system's state, the live loop, and the Bokeh figures. ``scene`` and ``live`` are pure
Python (core + standard library) and run in the browser's worker too."""
