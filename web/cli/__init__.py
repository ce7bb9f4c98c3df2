"""The ``integrator-lab`` command line: ``run``, ``list``, ``bench`` here; ``build``, ``preview``
and ``serve`` register themselves from the site and server packages."""
