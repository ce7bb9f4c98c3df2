// @ts-check
// Integrator Lab: a cheaper repaint of the moving plots, for the static page (main.js) and the
// Panel dashboard's page (web/server/page.py joins this file to web/server/js/light_repaint.js
// into one module): one home for both. No imports: the Panel page has none of the static
// page's modules.
//
// BokehJS (3.9) keeps a DOM element for every renderer of a plot, and at every paint of a
// renderer rewrites that element's stylesheet with the renderer's bounding box. A glyph's box
// is the box of its data: a moving body moves it, so every frame rewrote a dozen
// stylesheets, and each rewrite made the browser recompute the page's style before the next
// text drawn on a canvas (a canvas resolves its font against the styles) and the next
// `getComputedStyle` (an axis reading its CSS variables): measured with a Chromium trace of
// the live page, 6.2 style recalculations and as many layouts per frame. Of a glyph
// renderer's element nothing is drawn (the glyph is drawn on the canvas) and nothing reads
// where it is, so this places it once; and a stylesheet given the text it already has is
// left alone (setting the same text invalidates the styles all the same). After: 0.6 per
// frame.
//
// And a glyph renderer keeps, beside its glyph, four more views of it (BokehJS 3.9: the
// decimated glyph drawn while a plot with more points than its `lod_threshold` is panned, the
// selection's and the non-selection's, the muted one; a hover glyph if it has one), and gave
// every new data to all five: each computed its coordinates, its colours and widths, and
// mapped them to the screen at every paint, though the page never selects, mutes or hovers
// with a glyph. That was more than half of a live frame's script. Here a renderer that cannot
// draw with them now (not muted, nothing selected, no hover glyph, no more points than its
// plot's `lod_threshold`) gives its data to its glyph alone, and its other views catch up
// when it can (the next new data, or the next paint). `integrator-lab bench-page --compare`:
// 53 ms of main-thread CPU per frame before, 28 to 30 after.
//
// This uses BokehJS modules that its API does not document (`Bokeh.require` of "core/dom" and
// "models/renderers/glyph_renderer"); where they are missing, nothing changes.

/**
 * Makes BokehJS repaint moving glyphs without restyling the page, and feed a renderer's new
 * data to its glyph alone while it draws with no other view of it (see above); once per page.
 *
 * @param {any} bokeh  the page's `Bokeh`
 * @returns {boolean} whether BokehJS was patched (false: another BokehJS, left as it is)
 */
export function lightenRepaint(bokeh) {
  let sheet;
  let glyphView;
  try {
    sheet = bokeh.require("core/dom").InlineStyleSheet?.prototype;
    glyphView = bokeh.require("models/renderers/glyph_renderer").GlyphRendererView?.prototype;
  } catch {
    return false;
  }
  if (typeof sheet?._update !== "function" || typeof glyphView?.update_position !== "function") {
    return false;
  }
  if (sheet._update.ilLight) return true; // patched already (a second script on the page)
  const setText = sheet._update;
  /** @this {{el: HTMLStyleElement}} @param {string} css */
  const update = function (css) {
    if (this.el.textContent !== css) setText.call(this, css);
  };
  update.ilLight = true;
  sheet._update = update;
  feedGlyphsAlone(glyphView);
  const place = glyphView.update_position;
  /** @this {{ilPlaced?: boolean}} */
  glyphView.update_position = function () {
    if (this.ilPlaced) return;
    this.ilPlaced = true;
    place.call(this);
  };
  return true;
}

/**
 * A glyph renderer's new data goes to its glyph alone while the renderer cannot draw with its
 * other glyph views (see above); they catch up when it can.
 *
 * @param {any} view  BokehJS's `GlyphRendererView.prototype`
 */
function feedGlyphsAlone(view) {
  const { set_data: feedAll, set_visuals: styleAll, map_data: mapAll, _paint: paint } = view;
  if (![feedAll, styleAll, mapAll, paint].every((f) => typeof f === "function")) return;
  /** whether the next paint may draw with a view other than the glyph (BokehJS's `_paint`)
   * @param {any} renderer @returns {boolean} */
  const others = (renderer) => {
    const { lod_threshold: lod } = renderer.plot_model;
    return renderer.model.muted || (renderer.hover_glyph ?? null) !== null ||
      !renderer.model.data_source.selected.is_empty() ||
      ((lod ?? null) !== null && renderer.model.view.indices.count > lod);
  };
  /** the renderer's other views take its data (BokehJS's own `set_data`), and it is not drawn
   * until they have: a paint meanwhile would map a view that has no data yet (a TypeError, seen
   * when the page draws seldom: a paint came between a line muted and its copy fed)
   * @param {any} renderer @param {number[] | undefined} [indices] */
  const catchUp = async (renderer, indices) => {
    renderer.ilStale = false;
    renderer.ilCatchingUp = (renderer.ilCatchingUp ?? 0) + 1;
    try {
      await feedAll.call(renderer, indices);
    } finally {
      renderer.ilCatchingUp -= 1;
      renderer.request_paint();
    }
  };
  /** what BokehJS's `set_data` does for the glyph (the decimated indices serve the decimated
   * glyph only) @this {any} @param {number[] | undefined} indices */
  view.set_data = async function (indices) {
    if (others(this)) {
      return catchUp(this, indices);
    }
    this.ilStale = true;
    this.all_indices = this.model.view.indices;
    await this.glyph.set_data(this.model.data_source, this.all_indices, indices);
    await this.set_visuals();
    this._update_masked_indices();
    this.plot_view.invalidate_dataranges = true;
  };
  /** a renderer restyled while a Text glyph's labels are still those of its old rows waits for
   * them: BokehJS makes a Text glyph's labels in an asynchronous step of `set_data`, and the
   * change of the renderer's view that comes with new rows (`masked`) restyles at once,
   * pairing the new rows' visuals with the old labels (a RangeError in `after_visuals` when
   * the rows are fewer: seen when the page draws seldom, at 10 frames a second). `set_data`
   * restyles once the labels are made.
   * @this {any} */
  view.set_visuals = async function () {
    const labels = this.glyph.labels;
    if (labels && typeof labels.length === "number" && labels.length !== this.all_indices.count) {
      return;
    }
    if (!this.ilStale) return styleAll.call(this);
    this.glyph.set_visuals(this.model.data_source, this.all_indices);
    this.glyph.after_visuals();
    await this.glyph.after_lazy_visuals();
  };
  /** @this {any} */
  view.map_data = function () {
    if (!this.ilStale) return mapAll.call(this);
    this.glyph.map_data();
  };
  /** a renderer that can now draw with its other views (muted, selected) has them catch up
   * first: it is drawn once they have, a frame later
   * @this {any} @param {CanvasRenderingContext2D} ctx */
  view._paint = function (ctx) {
    if (this.ilCatchingUp) return;
    if (this.ilStale && others(this)) {
      catchUp(this);
      return;
    }
    return paint.call(this, ctx);
  };
}
