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
// frame. This uses BokehJS modules that its API does not document (`Bokeh.require` of
// "core/dom" and "models/renderers/glyph_renderer"); where they are missing, nothing changes.

/**
 * Makes BokehJS repaint moving glyphs without restyling the page (see above); once per page.
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
  const place = glyphView.update_position;
  /** @this {{ilPlaced?: boolean}} */
  glyphView.update_position = function () {
    if (this.ilPlaced) return;
    this.ilPlaced = true;
    place.call(this);
  };
  return true;
}
