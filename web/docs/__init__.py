"""Documentation support: the Sphinx directive that embeds a live demo (``integrator_lab.sphinx``
is its short name), the plain ``<iframe>`` snippet, and the generated reference."""
