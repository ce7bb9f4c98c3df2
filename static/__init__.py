"""Hand-written front-end files of the static page (HTML template, worker and bridge JavaScript,
CSS), shipped as package data; locate them with ``importlib.resources.files(__name__)``."""
