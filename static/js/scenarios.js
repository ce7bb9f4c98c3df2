// Integrator Lab page: the Lessons menu and the note of the lesson on view.
//
// The lessons are defined once, in integrator_lab.views.scenarios (embedded as data.lessons):
// each is a view of the lab (a link query) and two sentences of what to look for. A lesson
// is a plain link (`?lesson=ID&...`), so it also works from a bookmark or a new tab; chosen
// in the menu it applies in place, without a reload (the worker and its Python stay): the
// page state, the widgets and every shown system, restarted at t = 0 as a loaded link
// starts; the URL gets a new history entry, and Back returns to the view before, in place
// too. The page shows the lesson's note until it is closed. Text goes in as textContent,
// never as HTML; in the page's language (the catalog's lesson.ID.title and lesson.ID.text),
// again when the language changes.

import { data } from "./data.js";
import { frameHooks } from "./frames.js";
import { t } from "./i18n.js";
import { showLegend } from "./legend.js";
import { live } from "./live.js";
import { onLanguage } from "./localize.js";
import { applyView, sizePlots } from "./plots.js";
import { defaultStudyState } from "./studystate.js";
import { queryFromState, state, stateFromQuery, saveState, systemSettings }
  from "./urlstate.js";
import { setWidgetsFromState } from "./widgets.js";
import { send } from "./worker.js";

// what a new view leaves as it is: the language, the study view (study.js owns it), and
// whether the page is an embed (it is one from its boot: start.js; a lesson's Replay in an
// embed is no link to the full lab)
const KEPT = new Set(["lang", "embed", ...Object.keys(defaultStudyState())]);

function lessonHref(lesson) {
  return `?lesson=${encodeURIComponent(lesson.id)}&${lesson.query}`;
}

// `code` in a lesson's text (a command to try) becomes a <code> element
function appendText(parent, text) {
  text.split("`").forEach((part, i) => {
    if (!part) return;
    if (i % 2) {
      const code = document.createElement("code");
      code.textContent = part;
      parent.appendChild(code);
    } else {
      parent.appendChild(document.createTextNode(part));
    }
  });
}

function menu() {
  const details = document.createElement("details");
  details.className = "il-lessons";
  details.id = "il-lessons";
  const summary = document.createElement("summary");
  details.appendChild(summary);
  const list = document.createElement("ol");
  for (const lesson of data.lessons) {
    const item = document.createElement("li");
    const link = document.createElement("a");
    link.href = lessonHref(lesson);
    link.dataset.lesson = lesson.id;
    if (lesson.id === state.lesson) link.setAttribute("aria-current", "page");
    link.addEventListener("click", (event) => {
      // a new tab or window (a modifier, another button) loads the link as any link;
      // before the dashboard is drawn there is nothing to apply the view to yet
      if (event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey ||
          event.altKey || document.documentElement.dataset.drawn !== "1") return;
      event.preventDefault();
      details.open = false;
      applyQuery(lessonHref(lesson), true);
      // the link just chosen is hidden with the menu: focus goes to the lesson's note, what
      // the user reads next (a screen reader says it), not back to the top of the page; Space
      // there plays and pauses (keys.js), where on the menu's summary it opened the menu again
      const box = document.getElementById("il-lesson");
      if (box) box.focus();
      else summary.focus();
    });
    item.appendChild(link);
    list.appendChild(item);
  }
  details.appendChild(list);
  // a click outside, or Escape, closes the open menu
  document.addEventListener("click", (event) => {
    if (details.open && !details.contains(event.target)) details.open = false;
  });
  details.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && details.open) {
      details.open = false;
      summary.focus();
    }
  });
  return details;
}

function note() {
  const box = document.createElement("aside");
  box.className = "il-lesson";
  box.id = "il-lesson";
  box.tabIndex = -1; // focused when its lesson is chosen from the menu (not a Tab stop)
  const title = document.createElement("strong");
  const text = document.createElement("span");
  if (state.embed) {
    // an embed's few hundred pixels go to the scene and its energy plot: the note is its
    // title, opened on demand
    const fold = document.createElement("details");
    fold.className = "il-lesson-fold";
    const summary = document.createElement("summary");
    summary.appendChild(title);
    fold.append(summary, " ", text);
    box.appendChild(fold);
  } else {
    box.append(title, text);
  }
  // Replay: the lesson's view again, every system from t = 0 (its claims hold early on)
  const replay = document.createElement("button");
  replay.type = "button";
  replay.className = "il-lesson-replay";
  replay.addEventListener("click", () => {
    const lesson = data.lessons.find((l) => l.id === state.lesson);
    if (lesson && document.documentElement.dataset.drawn === "1") {
      applyQuery(lessonHref(lesson), false);
    }
  });
  box.appendChild(replay);
  const close = document.createElement("button");
  close.type = "button";
  close.className = "il-lesson-close";
  close.textContent = "×";
  close.addEventListener("click", () => {
    box.remove();
    state.lesson = null;
    saveState();
    document.querySelector("#il-lessons a[aria-current]")?.removeAttribute("aria-current");
  });
  box.appendChild(close);
  return box;
}

// the note of the lesson on view (none: no note), and the menu's mark
function showNote() {
  const lesson = data.lessons.find((l) => l.id === state.lesson);
  document.getElementById("il-lesson")?.remove();
  if (lesson) document.getElementById("il-controls")?.before(note());
  localizeLessons();
  for (const link of document.querySelectorAll("#il-lessons a")) {
    if (link.dataset.lesson === state.lesson) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
}

// The view of the link query `search`, in place: the page state (but KEPT), its widgets
// and plots, and the simulation: systems no longer shown stop, every shown one restarts at
// t = 0 with the view's integrators and settings. `push`: a new history entry.
function applyQuery(search, push) {
  const before = state.systems.slice();
  const next = stateFromQuery(search);
  for (const [key, value] of Object.entries(next)) if (!KEPT.has(key)) state[key] = value;
  saveState(push);
  setWidgetsFromState();
  // the rows above the panels first: an embed's plots are sized to the room below them
  showLegend();
  showNote();
  applyView();
  for (const system of before) {
    if (!state.systems.includes(system)) send({ type: "remove", system });
  }
  send({ type: "speed", value: state.speed });
  send({ type: "play", value: state.playing });
  for (const system of state.systems) {
    send(Object.assign({ type: "configure", system, integrators: state.integrators },
                       systemSettings(system)));
  }
}

/** The view of the link query `search` in place, as a lesson chosen from the menu or Back
 * applies it (the language, the study view and an embed stay): window.integratorLab.apply,
 * for the tests, the benchmarks and anyone scripting the page. Resolves once every shown
 * system has drawn a frame of its new run (a paused page draws one too: the worker sends
 * every system after a change).
 * @param {string} search
 * @returns {Promise<void>} */
export function applyInPlace(search) {
  if (document.documentElement.dataset.drawn !== "1") {
    return Promise.reject(new Error("integratorLab.apply: the dashboard is not drawn yet"));
  }
  return new Promise((resolve) => {
    const before = new Map(Object.entries(live.systems).map(
      ([s, entry]) => [s, { layout: entry.layout, refusals: entry.refusals }]));
    applyQuery(search, false);
    const waiting = new Set(state.systems);
    /** @param {string} system */
    const drawn = (system) => {
      // a layout comes before the frames of its run, and the page drops an older run's frame
      // when it comes (worker.js): a frame drawn under a new layout is of the new run; settings
      // the worker refused keep the run in force (frames.js keepSettings, with a message): a
      // frame drawn after that is the view's too
      const entry = live.systems[system];
      const was = before.get(system);
      if (!was || entry.layout !== was.layout || entry.refusals !== was.refusals) {
        waiting.delete(system);
      }
      if (waiting.size) return;
      frameHooks.splice(frameHooks.indexOf(drawn), 1);
      // a panel the view shows anew is laid out by now (applyView measured it hidden): an
      // embed's plots are fitted to it, as the boot fits them once drawn
      if (state.embed) sizePlots();
      resolve();
    };
    frameHooks.push(drawn);
  });
}

// Back (or Forward) to an entry of a lesson chosen in place: that entry's view, in place.
// A change of the fragment alone (the user's method) is no new view.
function followHistory() {
  if (document.documentElement.dataset.drawn !== "1") return;
  if (new URLSearchParams(location.search).toString() === queryFromState(state)) return;
  applyQuery(location.search, false);
}

// Called once, before the dashboard is drawn: the menu sits just above the controls, the
// note of the lesson on view (if any) just below it.
export function showLessons() {
  const controls = document.getElementById("il-controls");
  if (!controls || !Array.isArray(data.lessons)) return;
  controls.before(menu());
  showNote();
  window.addEventListener("popstate", followHistory);
  onLanguage(localizeLessons);
}

const lessonTitle = (lesson) => t(`lesson.${lesson.id}.title`);
// the menu's and the note's texts in the current language
function localizeLessons() {
  const details = document.getElementById("il-lessons");
  if (!details) return;
  const summary = details.querySelector("summary");
  summary.textContent = t("lesson.menu");
  summary.title = t("lesson.menu.tip");
  for (const link of details.querySelectorAll("a[data-lesson]")) {
    link.textContent = lessonTitle({ id: link.dataset.lesson });
  }
  const box = document.getElementById("il-lesson");
  const lesson = box && data.lessons.find((l) => l.id === state.lesson);
  if (!lesson) return;
  box.setAttribute("aria-label", t("lesson.look_for"));
  box.querySelector("strong").textContent = t("lesson.note", { title: lessonTitle(lesson) });
  const text = box.querySelector("span");
  text.replaceChildren();
  appendText(text, t(`lesson.${lesson.id}.text`));
  const replay = box.querySelector(".il-lesson-replay");
  replay.textContent = `↻ ${t("lesson.replay")}`;
  replay.title = t("lesson.replay.tip");
  const close = box.querySelector(".il-lesson-close");
  close.title = t("lesson.close");
  close.setAttribute("aria-label", t("lesson.close.label"));
}
