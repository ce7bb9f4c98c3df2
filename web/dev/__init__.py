"""Developer tools: benchmarks (core, page, server) and a harness that runs Python inside Pyodide
under Node for the tests."""
