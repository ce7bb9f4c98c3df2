// Integrator Lab page: the Lessons menu and the note of the lesson on view.
//
// The lessons are defined once, in integrator_lab.views.scenarios (embedded as data.lessons):
// each is a view of the lab (a link query) and two sentences of what to look for. A lesson
// is a plain link (`?lesson=ID&...`): choosing one loads that view as any shared link does,
// so it also works from a bookmark or a new tab; the page then shows the lesson's note until
// it is closed. Text goes in as textContent, never as HTML.

import { data } from "./data.js";
import { state, saveState } from "./urlstate.js";

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
  summary.textContent = "Lessons";
  summary.title = "One-click views that each show one thing an integrator does";
  details.appendChild(summary);
  const list = document.createElement("ol");
  for (const lesson of data.lessons) {
    const item = document.createElement("li");
    const link = document.createElement("a");
    link.href = lessonHref(lesson);
    link.textContent = lesson.title;
    link.dataset.lesson = lesson.id;
    if (lesson.id === state.lesson) link.setAttribute("aria-current", "page");
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

function note(lesson) {
  const box = document.createElement("aside");
  box.className = "il-lesson";
  box.id = "il-lesson";
  box.setAttribute("aria-label", "What to look for");
  const title = document.createElement("strong");
  title.textContent = `Lesson: ${lesson.title}. `;
  box.appendChild(title);
  const text = document.createElement("span");
  appendText(text, lesson.text);
  box.appendChild(text);
  const close = document.createElement("button");
  close.type = "button";
  close.className = "il-lesson-close";
  close.textContent = "×";
  close.title = "Close this note";
  close.setAttribute("aria-label", "Close the lesson's note");
  close.addEventListener("click", () => {
    box.remove();
    state.lesson = null;
    saveState();
    document.querySelector("#il-lessons a[aria-current]")?.removeAttribute("aria-current");
  });
  box.appendChild(close);
  return box;
}

// Called once, before the dashboard is drawn: the menu sits just above the controls, the
// note of the lesson on view (if any) just below it.
export function showLessons() {
  const controls = document.getElementById("il-controls");
  if (!controls || !Array.isArray(data.lessons)) return;
  controls.before(menu());
  const lesson = data.lessons.find((l) => l.id === state.lesson);
  if (lesson) controls.before(note(lesson));
}
