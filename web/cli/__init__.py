"""The ``integrator-lab`` command line: ``run``, ``list``, ``bench`` in :mod:`.main`, ``study`` in
:mod:`.study`; ``build``, ``preview`` and ``serve`` register themselves from the site and server
packages."""
