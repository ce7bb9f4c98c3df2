"""``extensions = ["integrator_lab.sphinx"]``: the Sphinx extension, under a short name."""

from integrator_lab.docs.sphinx import setup  # noqa: F401
