"""The dashboard's page beyond its widgets: the scripts that run in it and what they drive.

The page scripts are this package's ``js/*.js`` (package data), each an ES module that a Bokeh
:class:`~bokeh.models.CustomJS` runs in the browser (:func:`page_script`), some joined to the
static page's modules whose code they share (:data:`SHARED_MODULES`).
:class:`PageMixin`, a part of :class:`~integrator_lab.server.app.Dashboard`, owns what the
served page does by itself: the banner it shows when it loses the server (:attr:`banner`),
the button that folds the lessons and controls away on a phone, the link that follows the
view (the page's address, Copy link, the language switch: the static page's query keys,
:mod:`~integrator_lab.server.links`), and :meth:`~PageMixin.attach`, which hands a served
session's document these scripts.

It uses the dashboard's declared parameters (those a link carries) and ``lang``,
``systems``, ``settings``, ``panels`` and ``geometries``, and its ``_text`` and
``session_destroyed``; it sets ``session_id`` and ``_doc`` in :meth:`~PageMixin.attach`.
"""

from __future__ import annotations

import functools
import html
from importlib import resources

import panel as pn
from bokeh.models import Button, Column, CustomJS, Div, RadioButtonGroup, Toggle

from integrator_lab.server import links
from integrator_lab.views import figures, i18n
from integrator_lab.views.layout import FIRST_SCREEN

DISCONNECTED_TEXT = "Connection to the server lost \u2014 reload the page to start again."


@functools.cache
def script_source(name: str) -> str:
    """The text of ``js/<name>.js``, package data of this package (read once)."""
    return resources.files("integrator_lab.server").joinpath("js", f"{name}.js").read_text("utf-8")


#: the static page's modules (``static/js/<module>.js``, package data of
#: ``integrator_lab.static``) a page script runs with, by the script's name: one home for
#: code both pages run. A CustomJS module imports nothing, so each is put before the script
#: in one module (they import nothing either, and the script names what they declare as
#: globals for ESLint)
SHARED_MODULES = {
    "apply_frames": ("energyview",),  # the energy view on the energy plot's models
    "widget_names": ("widgetnames",),  # the names and labels of the widgets, focus rings
    "light_repaint": ("bokehpaint",),  # BokehJS repaints moving glyphs without restyling
}


@functools.cache
def module_source(name: str) -> str:
    """The code of page script ``name``: its :data:`SHARED_MODULES`, then ``js/<name>.js``
    (read once)."""
    static = resources.files("integrator_lab.static").joinpath("js")
    shared = [static.joinpath(f"{m}.js").read_text("utf-8") for m in SHARED_MODULES.get(name, ())]
    return "\n".join([*shared, script_source(name)])


def widget_names_source() -> str:
    """The static page's widget names (``static/js/widgetnames.js``), run on this page too:
    that module, then ``js/widget_names.js`` (its default export)."""
    return module_source("widget_names")


def page_script(name: str, **args) -> CustomJS:
    """A callback that runs in the page: the ES module ``js/<name>.js`` of this package,
    after the static page's modules it shares (:func:`module_source`); its default export
    gets ``args``."""
    return CustomJS(code=module_source(name), args=args, module=True)


class PageMixin:
    """The served page's own doings (see the module's docstring): its scripts, the
    disconnected banner, the phone's fold and the link that follows the view."""

    def attach(self, doc) -> None:
        """Serve this dashboard in ``doc``, a Bokeh server session's document: its page
        shows a banner when it loses the server, and the session's end stops it."""
        self.session_id = doc.session_context.id
        self._doc = doc
        # BokehJS announces a lost websocket only in the console; the page says it
        doc.js_on_event("connection_lost", page_script("connection_lost", banner=self.banner))
        # every frame moves glyphs: BokehJS repaints them without restyling the page (the
        # static page's own patch, static/js/bokehpaint.js)
        doc.js_on_event("document_ready", page_script("light_repaint"))
        # on a touch screen a swipe over a plot scrolls the page (as on the static page)
        plots = [
            fig for models in self.panels.values() for fig in (models.energy_fig, models.phase_fig)
        ]
        doc.js_on_event("document_ready", page_script("touch", plots=plots))
        # each panel's scene and energy plot on the first screen (the static page's rule)
        panels = {
            name: {
                "box": m.scene_box,
                "scene": m.scene_fig,
                "energy": m.energy_fig,
                "legend": m.legend,
            }
            for name, m in self.panels.items()
        }
        doc.js_on_event(
            "document_ready",
            page_script(
                "first_screen",
                rule=FIRST_SCREEN,
                panels=panels,
                extra=figures.BREAKDOWN_EXTRA_HEIGHT,
            ),
        )
        # names and labels its widgets draw without, and focus rings (the page's own code)
        doc.js_on_event(
            "document_ready",
            CustomJS(
                code=widget_names_source(),
                args={
                    "increase": self._text("a11y.increase"),
                    "decrease": self._text("a11y.decrease"),
                },
                module=True,
            ),
        )
        # the page's address follows the view (the static page's query keys)
        follow = page_script("link", query=self._link)
        doc.js_on_event("document_ready", follow)
        self._link.js_on_change("text", follow)
        self.param.watch(self._update_link, list(links.DASHBOARD_KEYS))
        for settings in self.settings.values():
            settings.param.watch(self._update_link, [k for k in settings.param if k != "name"])
        self._update_link()
        pn.state.on_session_destroyed(self.session_destroyed)

    @functools.cached_property
    def banner(self) -> Column:
        """Shown by the page itself when it loses its server (``connection_lost``): the
        page can no longer change anything, a reload starts a new session."""
        reload = Button(label="Reload", button_type="primary", width=90, name="disconnected:reload")
        reload.js_on_event("button_click", page_script("reload"))
        text = Div(
            text=html.escape(DISCONNECTED_TEXT),
            name="disconnected:text",
            styles={"font-weight": "bold", "font-size": "15px", "white-space": "normal"},
        )
        return Column(
            text,
            reload,
            name="disconnected",
            visible=False,
            sizing_mode="stretch_width",
            css_classes=["il-disconnected"],
            styles={
                "background": "#f8d7da",
                "color": "#721c24",
                "border": "1px solid #f5c6cb",
                "border-radius": "4px",
                "padding": "10px",
                "box-sizing": "border-box",
                # within the window even where the dashboard is wider
                "max-width": "100vw",
            },
        )

    # -- on a phone: the lessons and controls folded behind one button ----------------------
    @staticmethod
    def _phone_folds(row):
        """``row`` (the lessons' menu, the controls) folds behind :attr:`_controls_toggle` on
        a phone: the page script (``js/first_screen.js``) hides what has the class
        ``il-controls`` below the phone width, so that the first screen shows a scene and its
        energy plot (the static page folds them into one bar)."""
        row.css_classes = [*row.css_classes, "il-controls"]
        return row

    @functools.cached_property
    def _controls_toggle(self):
        """The button that shows or hides the lessons and controls on a phone (hidden
        elsewhere; the page script shows it)."""
        toggle = Toggle(
            label=f"{self._text('layout.controls')} ▾",
            active=False,
            visible=False,
            css_classes=["il-controls-toggle"],
            sizing_mode="stretch_width",
            margin=(4, 10, 4, 10),
        )
        toggle.js_on_change(
            "active",
            CustomJS(
                code="""
for (const doc of Bokeh.documents) {
  for (const model of doc.all_models) {
    if (model.css_classes?.includes("il-controls")) {
      model.setv({visible: cb_obj.active}, {sync: false});
    }
  }
}"""
            ),
        )
        return toggle

    # -- the link: the static page's query keys (links) -----------------------------------
    @functools.cached_property
    def _link(self) -> Div:
        """The query of this dashboard's view (hidden; the page's address follows it:
        js/link.js)."""
        return Div(text="", visible=False, name="link:query")

    @functools.cached_property
    def _link_note(self) -> Div:
        """What Copy link says (copied, or the link to copy by hand)."""
        return Div(
            text="",
            visible=False,
            name="link:note",
            css_classes=["il-link-note"],
            styles={
                "background": "#eef5fc",
                "border-left": "4px solid #3c78b4",
                "padding": "4px 10px",
                "font-size": "0.9rem",
            },
        )

    def _language_switch(self) -> RadioButtonGroup:
        """EN | 日本語, as on the static page: the page opens again in that language, its
        address (the view, links.py) kept, so the view is the same."""
        switch = RadioButtonGroup(
            labels=[i18n.LANGUAGE_NAMES[lang] for lang in i18n.LANGUAGES],
            active=i18n.LANGUAGES.index(self.lang),
            name="controls:lang",
            css_classes=["il-lang"],
            margin=(10, 10, 0, 0),
        )
        switch.js_on_change(
            "active", page_script("language", languages=list(i18n.LANGUAGES), query=self._link)
        )
        return switch

    def _copy_link_button(self):
        """Copy link, as on the static page: this view's address to the clipboard (or shown,
        to copy by hand, where the browser refuses)."""
        button = Button(
            label=self._text("control.copy"),
            width=100,
            name="controls:copy_link",
            css_classes=["il-copy_link"],
        )
        button.js_on_event(
            "button_click",
            page_script(
                "copy_link",
                query=self._link,
                note=self._link_note,
                copied=self._text("msg.copied"),
                shown=self._text("msg.link"),
            ),
        )
        return pn.pane.Bokeh(button)

    def link_query(self) -> str:
        """This dashboard's view as the static page's query (what Copy link gives)."""
        state = {key: getattr(self, key) for key in links.DASHBOARD_KEYS}
        state["geometry"] = [n for n in self.systems if self.geometries[n].card is not None]
        defaults = {key: self.param[key].default for key in links.DASHBOARD_KEYS}
        settings, setting_defaults = {}, {}
        for name in self.systems:
            declared = self.settings[name].param
            keys = [key for key in declared if key != "name"]
            settings[name] = {key: getattr(self.settings[name], key) for key in keys}
            setting_defaults[name] = {key: declared[key].default for key in keys}
        return links.link_query(state, self.systems, defaults, settings, setting_defaults)

    def _update_link(self, *_events) -> None:
        query = self.link_query()
        if self._link.text != query:
            self._link.text = query
