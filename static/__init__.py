"""Hand-written front-end files of the static page (HTML template, start.js, the page's ES
modules in js/, the worker, CSS), shipped as package data; locate them with
``importlib.resources.files(__name__)``."""
