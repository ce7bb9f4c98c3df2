// Runs in the page once its document is ready (the document's `document_ready` event): on a
// touch screen a swipe over a plot scrolls the page, as on the static page (static/js/
// touch.js). An active drag or wheel tool takes every touch on its plot, so none is active
// there; the plots' toolbars still turn them on. The change stays in the page ({sync:
// false}): another browser of the same dashboard may have a mouse.
export default function releaseTouch({plots}) {
  const touch = navigator.maxTouchPoints > 0 || window.matchMedia("(pointer: coarse)").matches;
  if (!touch) return;
  for (const plot of plots) {
    plot.toolbar.setv({active_drag: null, active_scroll: null}, {sync: false});
  }
}
