// Integrator Lab: the main thread of the static page (entry module).
//
// Draws the dashboard that was built in Python at build time (Bokeh documents), takes over the
// simulation worker (static/worker.mjs) that static/start.js started, forwards widget changes
// to it and streams what it computes into the Bokeh data sources, once per animation frame.
// The page state lives in the URL query, validated against the core's declarations (embedded
// in the page); nothing from the URL is ever inserted as HTML. This thread never runs Python.
// BokehJS (classic scripts) has loaded before this module runs: modules are deferred.

import { data, SYSTEMS } from "./data.js";
import { t } from "./i18n.js";
import { localize, onLanguage, wireLanguageSwitch } from "./localize.js";
import { message } from "./messages.js";
import { model, quietly } from "./models.js";
import { relabelSystem } from "./frames.js";
import { onSave, saveState } from "./urlstate.js";
import { applyView, sizeDocuments, sizePlots } from "./plots.js";
import { showLegend } from "./legend.js";
import { helpOnTap, releaseTouch } from "./touch.js";
import { startWorker, dashboardDrawn, handlers, sendShownNames } from "./worker.js";
import { setWidgetsFromState, wireWidgets } from "./widgets.js";
import { state } from "./urlstate.js";
import { publishApi } from "./status.js";
import { clearStaleScenes } from "./frames.js";
import { pauseOffscreen, showOpenLink } from "./embed.js";
import { initStudy } from "./study.js";
import { initGeometry } from "./geometry.js";
import { showLessons } from "./scenarios.js";
import { initEditor } from "./editor.js";
import { enableDrag } from "./drag.js";
import { drawDocument, drawRest } from "./documents.js";
import { initLayout } from "./layout.js";
import { keepOffline } from "./offline.js";
import { initA11y } from "./a11y.js";
import { fixWidgets } from "./widgetnames.js";
import { wireKeys } from "./keys.js";
import { lightenRepaint } from "./bokehpaint.js";

publishApi();
lightenRepaint(Bokeh); // before anything is drawn: every paint restyles the page less
showLessons();
localize(); // the page's own texts at once (the dashboard's when it is drawn)
wireLanguageSwitch();

// A page a server hosts in a frame (static/start.js) tells its host the view as its URL
// changes: the host's address bar, and its Python, follow.
function tellHost() {
  window.integratorLabEarly?.host?.postMessage({ integratorLab: "page",
    msg: { type: "location", search: location.search, hash: location.hash } },
  window.integratorLabEarly.hostOrigin ?? location.origin);
}

// -- start -------------------------------------------------------------------------------
// The dashboard is drawn first and Python boots after: both want the CPU, and a drawn
// page (with its loading note) is worth more than a worker booting a little earlier.
// Each document's roots are drawn into elements of their own, laid out by the page's CSS:
// the controls wrap on narrow screens; a panel's parts (scene, plots, params) stack, or
// sit side by side where the panel is wide.
const controls = document.getElementById("il-controls");
for (const part of Object.keys(data.items.controls.roots)) {
  const box = document.createElement("div");
  box.className = `il-control il-control-${part}`;
  box.id = `il-control-${part}`;
  controls.appendChild(box);
}
sizeDocuments([data.items.controls, ...SYSTEMS.map((system) => data.items.panels[system])]);
const embeds = [drawDocument("il-controls", data.items.controls, (part) => `il-control-${part}`)];
// Less in the first paint (documents.js): a panel's fields, below its plots, just after it
// (but an embed's time-step row sits beside its animation); the phase plot once shown.
for (const system of SYSTEMS) {
  embeds.push(drawDocument(`il-${system}`, data.items.panels[system],
    (part) => `il-panel-${system}-${part}`, {
      later: state.embed ? [] : ["params"],
      whenShown: state.phase ? [] : [`${system}:phase`],
    }));
}
// Python starts now, beside BokehJS drawing the dashboard: its snapshot's download is I/O,
// and the worker has its own thread
startWorker();
keepOffline(handlers); // once Python is up: the service worker keeps this visit's files
Promise.all(embeds).then(() => {
  setWidgetsFromState();
  // what depends on the state follows the language too (the fixed texts: localize.js)
  onLanguage(() => {
    quietly(() => {
      model("controls:play").label = t(state.playing ? "control.pause" : "control.play");
    });
    applyView();
    showLegend();
    for (const system of SYSTEMS) relabelSystem(system);
    sendShownNames();
  });
  localize();
  applyView();
  clearStaleScenes();
  showLegend();
  showOpenLink();
  sizePlots();
  initLayout(); // the first screen: scenes and energy plots sized to the window
  releaseTouch();
  helpOnTap();
  wireWidgets();
  wireKeys();
  onSave(showOpenLink);
  onSave(tellHost);
  enableDrag();
  saveState();
  pauseOffscreen();
  // the URL's view is applied: show it (BokehJS repaints in the next animation frame,
  // before the browser does)
  document.documentElement.classList.remove("il-pending");
  document.documentElement.dataset.drawn = "1";
  performance.mark("il:drawn");
  dashboardDrawn(); // the worker buffers messages until Python is up
  const early = window.integratorLabEarly;
  if (early?.applyWhenDrawn) window.integratorLab.apply(early.applyWhenDrawn); // (start.js)
  drawRest().then(() => fixWidgets()); // the parts out of sight
  initA11y(); // names Bokeh's widgets lack, focus rings, the live description
  initStudy(); // after: a study opened by the link starts at once (the worker buffers it)
  initGeometry(); // the geometry views' buttons, beside Live and Study
  initEditor(); // after "init": a method from the link follows it to the worker
}, (error) => {
  document.documentElement.classList.remove("il-pending");
  message(t("msg.draw_failed", { error: error.message }));
});
