/* global Bokeh */
// Runs in the Panel dashboard's page once its document is ready (`document_ready`): sizes each
// shown panel's scene and energy plot to the room the window leaves below the page's top
// rows, by the static page's rule (views.layout.FIRST_SCREEN, handed over as `rule`;
// static/js/layout.js applies it there): the energy figure takes its share of that room, the
// scene what is left, keeping its aspect (narrower, centred, never taller). Then again as
// the window, the rows above or the systems shown change. The sizes stay in this page
// ({sync: false}): another browser of the same dashboard has another window.
// window.integratorLab.layout() says where each shown scene and energy plotting area is:
// {system: {scene: [x, y, w, h], energy: [x, y, w, h]}}, CSS px of the page (= of the
// viewport, the page scrolled to the top), as the static page's status().layout.

export default function firstScreen({rule, panels, extra}) {
  const quiet = {sync: false};
  const clamp = (x, lo, hi) => Math.min(hi, Math.max(lo, x));
  const viewOf = (model) => Bokeh.index.query_one((v) => v.model === model);
  const shown = () => Object.entries(panels).filter(([, p]) => {
    const view = viewOf(p.scene);
    return view && view.el.isConnected && view.el.getClientRects().length > 0;
  });

  // each scene's width / height as built (it keeps it)
  const aspects = new Map(Object.values(panels).map((p) => [p.scene,
    p.scene.width > 0 && p.scene.height > 0 ? p.scene.width / p.scene.height : 4 / 3]));

  // BokehJS lays out a model's whole root again at each size it is given (LayoutDOMView's
  // invalidate_layout, once per property: width, height, sizing mode, alignment), and this
  // page's root holds every panel: the first fit gave fifteen, 3.3 s of the page's thread
  // (a CDP profile of a fresh session). So the sizes are set with that held, and each root
  // is laid out once after. (`Bokeh.require` of "models/layouts/layout_dom": BokehJS 3.9,
  // not its documented API; without it, laid out as before.)
  const layoutView = (() => {
    try {
      return Bokeh.require("models/layouts/layout_dom").LayoutDOMView;
    } catch {
      return null;
    }
  })();
  function layOutOnce(change) {
    const proto = layoutView?.prototype;
    if (typeof proto?.invalidate_layout !== "function") {
      change();
      return;
    }
    const own = proto.invalidate_layout;
    const roots = new Set();
    proto.invalidate_layout = function () {
      let view = this;
      while (view.parent instanceof layoutView) view = view.parent;
      roots.add(view);
    };
    try {
      change();
    } finally {
      proto.invalidate_layout = own;
      for (const root of roots) root.invalidate_layout();
    }
  }

  function fit() {
    layOutOnce(fitNow);
  }

  function fitNow() {
    const panelsShown = shown();
    // on a phone the panels stand one under the other, each read scrolled to its top: each
    // gets the room the first one has (as on the static page); measured from its own top, a
    // panel below the fold had none and shrank to the smallest scene
    const phone = window.innerWidth <= rule.phone_width;
    const first = panelsShown.length ? viewOf(panelsShown[0][1].scene) : null;
    for (const [, p] of panelsShown) {
      const scene = viewOf(p.scene);
      const width = viewOf(p.box).el.getBoundingClientRect().width;
      const top = (phone ? first : scene).el.getBoundingClientRect().top + window.scrollY;
      const room = window.innerHeight - top - rule.bottom;
      const aspect = aspects.get(p.scene);
      const energy = Math.floor(clamp(room * rule.energy_share, rule.energy_min, rule.energy_max));
      const sceneHeight = Math.max(rule.scene_min, room - energy - rule.gap);
      const sceneWidth = Math.floor(Math.min(width, sceneHeight * aspect));
      // the scene at that size, centred (it scaled to the panel's width before)
      if (p.scene.sizing_mode !== "fixed" || p.scene.width !== sceneWidth) {
        p.scene.setv({sizing_mode: "fixed", width: sceneWidth,
                      height: Math.round(sceneWidth / aspect), align: "center"}, quiet);
      }
      // the breakdown's legend of line styles is below the plot, inside its height
      const height = energy + (p.legend.items.some((item) => item.visible) ? extra : 0);
      if (p.energy.height !== height) p.energy.setv({height}, quiet);
    }
  }

  function box(rect, inner) {
    const [x, y, w, h] = inner
      ? [rect.left + inner.left, rect.top + inner.top, inner.width, inner.height]
      : [rect.left, rect.top, rect.width, rect.height];
    return [x + window.scrollX, y + window.scrollY, w, h].map((v) => Math.round(v * 10) / 10);
  }
  function layout() {
    const out = {};
    for (const [system, p] of shown()) {
      const scene = viewOf(p.scene);
      const energy = viewOf(p.energy);
      if (!scene || !energy) continue;
      out[system] = {
        scene: box(scene.el.getBoundingClientRect()),
        // the plotting area: BokehJS's frame (inner_x, inner_y, inner_width, inner_height)
        energy: box(energy.el.getBoundingClientRect(), energy.frame.bbox),
      };
    }
    return out;
  }

  // on a phone the lessons and the controls fold behind one button (page.py's
  // _controls_toggle), as the static page folds them into one bar
  if (window.innerWidth <= rule.phone_width) {
    layOutOnce(() => {
      for (const doc of Bokeh.documents) {
        for (const model of doc.all_models) {
          const classes = model.css_classes ?? [];
          if (classes.includes("il-controls")) model.setv({visible: false}, quiet);
          if (classes.includes("il-controls-toggle")) model.setv({visible: true}, quiet);
        }
      }
    });
  }

  window.integratorLab = Object.assign(window.integratorLab || {}, {layout});
  let timer = null;
  const later = () => {
    clearTimeout(timer);
    timer = setTimeout(fit, 80);
  };
  window.addEventListener("resize", later);
  // the rows above the panels (a lesson's note, a message, a panel shown or hidden) move
  // the scenes: Panel's template scrolls inside its own elements, so their positions are
  // watched (a few rectangles twice a second) rather than the page's size
  let seen = "";
  setInterval(() => {
    const now = JSON.stringify(shown().map(([system, p]) => {
      const r = viewOf(p.box).el.getBoundingClientRect();
      return [system, Math.round(r.top + window.scrollY), Math.round(r.width)];
    }));
    if (now !== seen) {
      seen = now;
      later();
    }
  }, 500);
  later();
}
