// Appended to the static page's static/js/bokehpaint.js (web/server/page.py joins the two), so
// that the Panel dashboard's page repaints its moving plots as cheaply as the static page:
// from its document's `document_ready` on (its first paint came before).
/* global lightenRepaint, Bokeh */

export default function lightRepaint() {
  lightenRepaint(Bokeh);
}
