"""Sphinx configuration of the Integrator Lab documentation (built by ``make docs``)."""

import sys
from pathlib import Path

from integrator_lab import __version__

sys.path.insert(0, str(Path(__file__).parent / "_ext"))

project = "Integrator Lab"
author = "the Integrator Lab authors"
copyright = "the Integrator Lab authors"
version = release = __version__

extensions = [
    "integrator_lab.sphinx",  # the live demos and the generated reference
    "sphinx.ext.autodoc",
    "mathml",  # _ext/mathml.py: equations as MathML, no MathJax from a CDN
    "cli_help",  # _ext/cli_help.py: the CLI's real --help text
    "drag_table",  # _ext/drag_table.py: terminal velocities simulated at build time
    "study_table",  # _ext/study_table.py: convergence and cost tables computed at build time
    "lessons_list",  # _ext/lessons_list.py: the lab's lessons (integrator_lab.views.scenarios)
    "geometry_figures",  # _ext/geometry_figures.py: stability regions and areas, drawn at build
    "page_language",  # _ext/page_language.py: <html lang="ja"> on the Japanese pages
]

root_doc = "index"
# the key pages in Japanese (ja/): their <html lang>; the rest of the documentation is English
page_language_folders = {"ja": "ja"}
exclude_patterns = ["_build"]
html_math_renderer = "mathml"
html_theme = "alabaster"
html_static_path = ["_static"]
html_css_files = ["docs.css"]
# the static page's icon (tests/docs/test_project_docs.py checks it is the same picture)
html_favicon = "_static/favicon.png"
html_theme_options = {"fixed_sidebar": True, "show_powered_by": False}
html_title = "Integrator Lab"

autodoc_member_order = "bysource"
autodoc_typehints = "description"
nitpicky = False
