"""Views of the core: the Panel app, the static-site builder, the Sphinx extension and the CLI."""
