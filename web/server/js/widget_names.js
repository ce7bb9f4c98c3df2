// Appended to the static page's static/js/widgetnames.js (web/server/page.py joins the two), so
// that the Panel dashboard's page names its widgets as the page does: once its document is
// ready (`document_ready`), then again after every redraw and every few seconds.
/* global fixWidgets, FIX_INTERVAL_MS */

export default function nameWidgets({increase, decrease}) {
  fixWidgets({increase, decrease});
  setInterval(() => fixWidgets(), FIX_INTERVAL_MS);
}
