"""Integrator Lab: see, side by side, what numerical time integrators do to physical systems.

This module is also shipped to the browser with the core, so it must import nothing.
"""

__version__ = "0.1.0"
