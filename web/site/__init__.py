"""The static site: ``integrator-lab build`` writes a self-contained page (Pyodide in a Web
Worker, BokehJS, the packed core), ``preview`` serves it, ``--single-file`` inlines it."""
