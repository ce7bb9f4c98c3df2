"""Sphinx extension: live Integrator Lab demos in any page, and a reference built from the core.

``extensions = ["integrator_lab.sphinx"]`` adds two directives:

``.. integrator-lab::`` embeds a compact, lazily loaded demo (chosen systems, integrators, time
step, parameters and language, all validated at build time); the static site is built into the
output's ``_integrator_lab/`` folder once per build, however many demos the documentation holds.

``.. integrator-lab-reference::`` writes the systems, their parameters (units, defaults,
accepted ranges) and the integrators (order, properties) from the core's own declarations.
"""

from __future__ import annotations

import html
import inspect
import math
import posixpath
import re
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.errors import SphinxError
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles
from sphinx.util.osutil import relative_uri

from integrator_lab import __version__
from integrator_lab.core import DEFAULT_INTEGRATORS, INTEGRATORS, SYSTEMS, catalog, get_system
from integrator_lab.site.pack import core_files

# the languages the page's texts are written in (its ``lang`` query item)
from integrator_lab.views.i18n import LANGUAGES

# the static page shows these systems and accepts these time steps
from integrator_lab.views.shared import DT_RANGE, PANEL_SYSTEMS, SPEED_RANGE

logger = logging.getLogger(__name__)

#: folder of the documentation's output that receives the static site (one copy per build)
SITE_DIR = "_integrator_lab"
#: the page of the static site that an embedded demo loads
SITE_PAGE = "index.html"
#: iframe height (CSS px) when a directive gives none, and the accepted range: in a text
#: column, a system shows its animation beside its energy plot in about 300 px, and several
#: systems stack (:func:`default_height`)
DEFAULT_HEIGHT = 420
MIN_HEIGHT, MAX_HEIGHT = 150, 2000


def default_height(systems: int) -> int:
    """The iframe height that shows ``systems`` panels without scrolling in a text column."""
    return DEFAULT_HEIGHT if systems <= 1 else 110 + 300 * systems


#: the options of ``.. integrator-lab::``, in the order the documentation lists them
OPTIONS = ("systems", "integrators", "dt", "params", "speed", "height", "title", "lang")
#: the query item that asks the static page for its compact, embedded view
EMBED_QUERY = ("embed", "1")


class IntegratorLabError(SphinxError):
    """The configuration asks for something the extension cannot do: stops the build."""

    category = "integrator-lab error"


# -- the demo description, shared by the directive and the plain <iframe> snippet ---------------
@dataclass(frozen=True)
class Demo:
    """One embedded view: what the URL query of the static page will ask for."""

    systems: tuple[str, ...]
    integrators: tuple[str, ...] = DEFAULT_INTEGRATORS
    dt: float | None = None
    #: ``{system: {parameter: value}}``, values already validated and converted
    params: dict = field(default_factory=dict)
    height: int = DEFAULT_HEIGHT
    title: str = ""
    speed: float | None = None
    #: the language of the page's texts; ``None``: the reader's browser chooses
    lang: str | None = None

    def query(self) -> str:
        """The URL query (without ``?``) that configures the static page as this demo, in the
        page's own format: ``systems``, ``integrators``, ``speed``, ``lang``, and per system
        ``SYSTEM.dt`` and ``SYSTEM.PARAMETER``; ``embed=1`` asks for the compact view."""
        parts = [
            EMBED_QUERY,
            ("systems", ",".join(self.systems)),
            ("integrators", ",".join(self.integrators)),
        ]
        if self.speed is not None:
            parts.append(("speed", _number(self.speed)))
        if self.lang is not None:
            parts.append(("lang", self.lang))
        for system in self.systems:
            if self.dt is not None:
                parts.append((f"{system}.dt", _number(self.dt)))
            for name, value in self.params.get(system, {}).items():
                parts.append((f"{system}.{name}", _number(value)))
        return "&".join(f"{quote(k, safe='.-_')}={quote(v, safe=',.-_+')}" for k, v in parts)

    def label(self) -> str:
        """Accessible name of the iframe."""
        return self.title or (
            f"Integrator Lab: {', '.join(self.systems)} under {', '.join(self.integrators)}"
        )

    def iframe(self, site_url: str) -> str:
        """The ``<iframe>`` element embedding this demo from the site at ``site_url``
        (a folder URL, relative or absolute, that holds the built static site)."""
        return iframe_html(site_url, self.query(), self.label(), self.height)


def iframe_html(site_url: str, query: str, label: str, height: int) -> str:
    base = site_url if not site_url or site_url.endswith("/") else site_url + "/"
    src = f"{base}{SITE_PAGE}?{query}"
    return (
        f'<iframe class="integrator-lab-demo" src="{html.escape(src)}" '
        f'title="{html.escape(label)}" loading="lazy" width="100%" height="{height}" '
        f'style="width:100%;height:{height}px;border:0;display:block" '
        f'allow="fullscreen"></iframe>'
    )


def _number(value) -> str:
    if isinstance(value, float):
        return repr(value) if value != int(value) or abs(value) >= 1e16 else str(int(value))
    return str(value)


#: a plain decimal number, ASCII only: Python's float() and str.isdigit() also take other
#: scripts' digits and superscripts ("150\u00b2", full-width digits), which a reader would not
#: see as the number the build uses
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _float(text: str) -> float | None:
    text = text.strip()
    if not _DECIMAL.fullmatch(text):
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _names(option: str, text: str, registry: dict) -> tuple[str, ...]:
    names = tuple(n.strip() for n in text.replace("\n", ",").split(",") if n.strip())
    valid = ", ".join(registry)
    if not names:
        raise ValueError(
            f"option ':{option}:' is empty; expected a comma-separated list of: {valid}"
        )
    for name in names:
        if name not in registry:
            raise ValueError(f"option ':{option}:': unknown name {name!r}; valid: {valid}")
    if len(set(names)) != len(names):
        raise ValueError(f"option ':{option}:': {text.strip()!r} names one twice")
    return names


def _params(text: str, systems: tuple[str, ...]) -> dict:
    """Parse ``name=value, system.name=value, ...`` and validate each against the systems.

    An unqualified name applies to every chosen system that declares it.
    """
    given: dict[str, dict] = {s: {} for s in systems}
    for item in (i.strip() for i in text.replace("\n", ",").split(",")):
        if not item:
            continue
        key, sep, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key or not value:
            raise ValueError(
                f"option ':params:': got {item!r}, expected NAME=VALUE or SYSTEM.NAME=VALUE"
            )
        system, dot, name = key.rpartition(".")
        targets = (
            [system]
            if dot
            else [s for s in systems if any(p.name == name for p in SYSTEMS[s].PARAMS)]
        )
        if dot and system not in systems:
            raise ValueError(
                f"option ':params:': {key!r} names system {system!r}, which is "
                f"not among ':systems:' ({', '.join(systems)})"
            )
        if not targets:
            valid = "; ".join(
                f"{s}: {', '.join(p.name for p in SYSTEMS[s].PARAMS)}" for s in systems
            )
            raise ValueError(
                f"option ':params:': no chosen system has a parameter {name!r} "
                f"(valid parameters: {valid})"
            )
        for target in targets:
            if name in given[target]:
                raise ValueError(f"option ':params:': parameter {target}.{name} given twice")
            given[target][name] = value
    params = {}
    for system, values in given.items():
        try:
            instance = get_system(system, **values)
        except ValueError as exc:
            raise ValueError(f"option ':params:': {exc}") from None
        if values:
            params[system] = {name: instance.params[name] for name in values}
    return params


def parse_demo(options: dict) -> Demo:
    """Validate the directive's options (name -> raw text); ``ValueError`` names the option."""
    unknown = [name for name in options if name not in OPTIONS]
    if unknown:
        raise ValueError(
            f"unknown option ':{unknown[0]}:'; valid options: "
            + ", ".join(f":{o}:" for o in OPTIONS)
        )
    if not (options.get("systems") or "").strip():
        raise ValueError(
            "option ':systems:' is required; one or more of: " + ", ".join(PANEL_SYSTEMS)
        )
    systems = _names("systems", options["systems"], {n: SYSTEMS[n] for n in PANEL_SYSTEMS})
    integrators = DEFAULT_INTEGRATORS
    if options.get("integrators") is not None:
        integrators = _names("integrators", options["integrators"], INTEGRATORS)
    dt = None
    if options.get("dt") is not None:
        dt = _float(options["dt"])
        if dt is None or not DT_RANGE[0] <= dt <= DT_RANGE[1]:
            raise ValueError(
                f"option ':dt:': got {options['dt']!r}, expected a time step in "
                f"seconds from {DT_RANGE[0]:g} to {DT_RANGE[1]:g}"
            )
    params = _params(options["params"], systems) if options.get("params") else {}
    height = default_height(len(systems))
    if options.get("height") is not None:
        text = options["height"].strip().removesuffix("px")
        if not re.fullmatch(r"[0-9]+", text) or not MIN_HEIGHT <= int(text) <= MAX_HEIGHT:
            raise ValueError(
                f"option ':height:': got {options['height']!r}, expected an integer "
                f"number of pixels in [{MIN_HEIGHT}, {MAX_HEIGHT}]"
            )
        height = int(text)
    speed = None
    if options.get("speed") is not None:
        speed = _float(options["speed"])
        if speed is None or not SPEED_RANGE[0] <= speed <= SPEED_RANGE[1]:
            raise ValueError(
                f"option ':speed:': got {options['speed']!r}, expected a factor of "
                f"real time from {SPEED_RANGE[0]:g} to {SPEED_RANGE[1]:g}"
            )
    lang = None
    if options.get("lang") is not None:
        lang = options["lang"].strip()
        if lang not in LANGUAGES:
            raise ValueError(
                f"option ':lang:': got {options['lang']!r}, expected one of: "
                + ", ".join(LANGUAGES)
            )
    title = " ".join((options.get("title") or "").split())
    return Demo(systems, integrators, dt, params, height, title, speed, lang)


def iframe_snippet(site_url: str = "integrator-lab/", **options) -> str:
    """A plain ``<iframe>`` for documentation tools other than Sphinx (MkDocs, static blogs):
    the same options as the directive, the same validation. ``site_url`` is the folder the
    built static site was published at, relative to the page or absolute."""
    raw = {
        name: value
        if isinstance(value, str)
        else ", ".join(value)
        if isinstance(value, (list, tuple))
        else str(value)
        for name, value in options.items()
    }
    return parse_demo(raw).iframe(site_url)


# -- the demo directive ---------------------------------------------------------------------
class demo_node(nodes.General, nodes.Element):
    """Placeholder for one demo; the HTML writer turns it into an iframe whose path to the
    site depends on the page that holds it (html, dirhtml and singlehtml differ)."""


class _AnyOption(dict):
    """Option spec accepting every name, so an unknown option reaches ``run`` and stops the
    build with the list of valid options (docutils would only warn)."""

    def __missing__(self, name):
        return _keep


def _keep(value):
    return "" if value is None else value


class IntegratorLabDirective(SphinxDirective):
    """``.. integrator-lab::`` with options ``systems`` (required), ``integrators``, ``dt``,
    ``params``, ``speed``, ``height``, ``title`` and ``lang``."""

    # content is accepted by the parser so that run() can reject it as an error that fails the
    # build (docutils' own "no content permitted" is logged, but the build would succeed)
    has_content = True
    option_spec = _AnyOption({name: _keep for name in OPTIONS})

    def run(self):
        env = self.env
        try:
            if self.content:
                raise ValueError(
                    f"the directive takes options only, got content {self.content[0].strip()!r}"
                    " (is an option missing its leading ':' or indented wrongly?); options: "
                    + ", ".join(f":{o}:" for o in OPTIONS)
                )
            demo = parse_demo(self.options)
        except ValueError as exc:
            # logged with file and line; the build then ends with a failure status (see
            # _finish), without Sphinx's traceback report that an exception would print
            logger.error(
                "integrator-lab: %s",
                exc,
                location=(env.docname, self.lineno),
                type="integrator-lab",
                subtype="option",
            )
            _state(env, "errors").setdefault(env.docname, []).append(str(exc))
            return []
        _state(env, "docs")[env.docname] = _state(env, "docs").get(env.docname, 0) + 1
        node = demo_node()
        node["query"], node["label"], node["height"] = demo.query(), demo.label(), demo.height
        self.set_source_info(node)
        return [node]


def _state(env, kind: str) -> dict:
    """Per-document records kept in the environment: ``docs`` (demos per document) and
    ``errors`` (messages of rejected demos per document)."""
    name = f"integrator_lab_{kind}"
    if not isinstance(getattr(env, name, None), dict):
        setattr(env, name, {})
    return getattr(env, name)


def visit_demo_html(self, node):
    builder = self.builder
    if _is_ebook(builder):
        raise nodes.SkipNode
    here = builder.get_target_uri(builder.current_docname)
    site = posixpath.dirname(relative_uri(here, f"{SITE_DIR}/{SITE_PAGE}"))
    frame = iframe_html(site, node["query"], node["label"], node["height"])
    self.body.append(f'<div class="integrator-lab">{frame}</div>\n')
    raise nodes.SkipNode


def visit_demo_other(self, node):
    # text, LaTeX, man pages...: a live demo needs a browser; leave nothing behind
    raise nodes.SkipNode


def _purge_doc(app, env, docname):
    for kind in ("docs", "errors"):
        _state(env, kind).pop(docname, None)


def _merge_info(app, env, docnames, other):
    for kind in ("docs", "errors"):
        ours, theirs = _state(env, kind), _state(other, kind)
        ours.update((name, theirs[name]) for name in docnames if name in theirs)


def _reread_failed(app, env, added, changed, removed):
    """Documents with rejected demos are read again, so the build fails until they are fixed."""
    return sorted(set(_state(env, "errors")) - set(removed))


def _finish(app, exception):
    """Fail the build if any demo was rejected; else copy the site once if a page has demos."""
    if exception is not None:
        return
    errors = _state(app.env, "errors")
    if errors:
        count = sum(len(messages) for messages in errors.values())
        logger.error(
            "integrator-lab: %d demo(s) rejected in %s; the build failed",
            count,
            ", ".join(sorted(errors)),
            type="integrator-lab",
            subtype="option",
        )
        app.statuscode = 1
        return
    if app.builder.format == "html" and not _is_ebook(app.builder) and _state(app.env, "docs"):
        _copy_site(app)


def _is_ebook(builder) -> bool:
    # e-book builders write HTML too, but an e-book reader runs no demo
    return builder.name.startswith("epub")


def _copy_site(app):
    """Build (or copy) the static site into the output's SITE_DIR."""
    dest = Path(app.outdir) / SITE_DIR
    started = time.perf_counter()
    prebuilt = app.config.integrator_lab_site
    if dest.exists():
        shutil.rmtree(dest)
    if prebuilt:
        source = Path(app.confdir, prebuilt)
        if not (source / SITE_PAGE).is_file():
            raise IntegratorLabError(
                f"integrator_lab_site = {prebuilt!r}: no {SITE_PAGE} in "
                f"{source} (build it with `integrator-lab build --out`)"
            )
        shutil.copytree(source, dest)
    else:
        from integrator_lab.site.build import build_site

        build_site(dest)
    docs = _state(app.env, "docs")
    logger.info(
        "integrator-lab: %d demo(s) on %d page(s); static site written to %s in %.1f s",
        sum(docs.values()),
        len(docs),
        dest,
        time.perf_counter() - started,
    )


# -- the reference directive ----------------------------------------------------------------
def _escape(text) -> str:
    """Plain text safe inside reStructuredText inline markup."""
    out = str(text)
    for char in "\\`*|_":
        out = out.replace(char, "\\" + char)
    return out


def _range(p: dict) -> str:
    if p["kind"] == "choice":
        return "one of " + ", ".join(f"``{c}``" for c in p["choices"])
    lo = "−∞" if p["min"] is None else f"{p['min']:g}"
    hi = "∞" if p["max"] is None else f"{p['max']:g}"
    left = "(" if p["min_open"] or p["min"] is None else "["
    right = ")" if p["max_open"] or p["max"] is None else "]"
    return ("integer " if p["kind"] == "int" else "") + f"{left}{lo}, {hi}{right}"


def _table(header: list[str], rows: list[list[str]], widths: str = "auto") -> list[str]:
    lines = [".. list-table::", "   :header-rows: 1", f"   :widths: {widths}", ""]
    for row in [header, *rows]:
        for i, cell in enumerate(row):
            lines.append(("   * - " if i == 0 else "     - ") + (cell or "\\ "))
    return lines + [""]


def reference_rst() -> list[str]:
    """The reference page body, generated from :func:`integrator_lab.core.catalog`."""
    data = catalog()
    lines = ["Systems", "=======", ""]
    for system in data["systems"]:
        title = f"{_escape(system['title'])} (``{system['name']}``)"
        lines += [title, "-" * len(title), "", _escape(system["description"]), ""]
        lines += [
            f"Recommended time step: {system['recommended_dt']:g} s. Exact solution: "
            f"{'yes' if system['has_exact_solution'] else 'no'}. Coordinates: "
            + ", ".join(
                f"``{c}`` ({u})" for c, u in zip(system["coordinates"], system["coordinate_units"])
            ),
            "",
        ]
        # cross-references of the docstring may point nowhere in the host's documentation
        doc = re.sub(
            r":(?:\w+:)?\w+:`~?([^`<]+?)(?:\s*<[^>]*>)?`",
            r"``\1``",
            inspect.cleandoc(SYSTEMS[system["name"]].__doc__ or ""),
        )
        if doc:
            lines += [".. rubric:: Model", ""] + doc.splitlines() + [""]
        rows = [
            [
                f"``{p['name']}``",
                _escape(" ".join(filter(None, (p["label"], p["symbol"])))),
                f"``{p['default']}``",
                _escape(p["unit"]),
                _range(p),
                _escape(p["doc"]),
            ]
            for p in system["params"]
        ]
        lines += [".. rubric:: Parameters", ""]
        lines += _table(["name", "label", "default", "unit", "accepted", "meaning"], rows)
    lines += ["Integrators", "===========", ""]
    rows = [
        [
            f"``{i['name']}``",
            _escape(i["title"]),
            str(i["order"])
            + (f" ({i['order_velocity_dependent']} with damping)" if i["order_note"] else ""),
            "yes" if i["symplectic"] else "no",
            "implicit" if i["implicit"] else "explicit",
            _escape(i["evaluations_text"]),
        ]
        for i in data["integrators"]
    ]
    lines += _table(
        ["name", "method", "order", "symplectic", "kind", "force evaluations / step"], rows
    )
    for i in data["integrators"]:
        lines += [f"``{i['name']}``", f"   {_escape(i['description'])}."]
        if i["reference"]:
            lines += ["", f"   Reference: {_escape(i['reference'])}"]
        lines += [""]
    return lines + [""]


class IntegratorLabReferenceDirective(SphinxDirective):
    """``.. integrator-lab-reference::`` - sections for systems and integrators."""

    has_content = False

    def run(self):
        for _, path in core_files():  # a change to the core rewrites the reference
            self.env.note_dependency(str(path))
        container = nodes.container(classes=["integrator-lab-reference"])
        source = self.get_source_info()[0]
        text = StringList()
        for i, line in enumerate(reference_rst()):
            text.append(line, f"{source} (integrator-lab-reference)", i)
        nested_parse_with_titles(self.state, text, container)
        return container.children


def setup(app):
    app.add_config_value("integrator_lab_site", None, "env", types=frozenset({str, type(None)}))
    app.add_node(
        demo_node,
        html=(visit_demo_html, None),
        latex=(visit_demo_other, None),
        text=(visit_demo_other, None),
        man=(visit_demo_other, None),
        texinfo=(visit_demo_other, None),
    )
    app.add_directive("integrator-lab", IntegratorLabDirective)
    app.add_directive("integrator-lab-reference", IntegratorLabReferenceDirective)
    app.connect("env-purge-doc", _purge_doc)
    app.connect("env-merge-info", _merge_info)
    app.connect("env-get-outdated", _reread_failed)
    app.connect("build-finished", _finish)
    return {
        "version": __version__,
        "parallel_read_safe": True,
        "parallel_write_safe": True,
        "env_version": 2,
    }
