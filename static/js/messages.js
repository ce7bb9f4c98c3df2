// @ts-check
// Integrator Lab page: what the page says to the reader: the message list at the top, the
// boot alert and the loading notes in the panels. Always as textContent, never as HTML.

import { MAX_MESSAGES } from "./data.js";
import { t } from "./i18n.js";

// A "×" that closes what it is in (its mark is CSS's, so the text read is the message's)
/** @param {() => void} onDismiss */
export function dismissButton(onDismiss) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "il-dismiss";
  button.setAttribute("aria-label", t("msg.dismiss"));
  button.title = t("msg.dismiss");
  button.addEventListener("click", onDismiss);
  return button;
}

// -- messages (always textContent) ------------------------------------------------------
// Said once: a message already on the list is not added again (it moves to the end).
const messageList = /** @type {HTMLElement} */ (document.getElementById("il-messages"));
/** @param {string} text  @param {"note"} [kind]  a note leaves after 4 s */
export function message(text, kind) {
  for (const old of messageList.children) {
    if (old.firstChild && old.firstChild.nodeValue === text) old.remove();
  }
  const item = document.createElement("li");
  item.appendChild(document.createTextNode(text));
  item.appendChild(dismissButton(() => item.remove()));
  if (kind === "note") item.className = "il-note";
  messageList.appendChild(item);
  while (messageList.children.length > MAX_MESSAGES) {
    messageList.removeChild(/** @type {ChildNode} */ (messageList.firstChild));
  }
  if (kind === "note") setTimeout(() => item.remove(), 4000);
}
// A note that stays at the top until dismissed (or `item.remove()`), with one action button:
// what a visitor must know before anything else (a link that brings code to read).
/** @param {string} text  @param {string} actionText  @param {() => void} onAction */
export function banner(text, actionText, onAction) {
  const item = document.createElement("li");
  item.className = "il-note il-banner";
  item.appendChild(document.createTextNode(text));
  const action = document.createElement("button");
  action.type = "button";
  action.className = "il-banner-action";
  action.textContent = actionText;
  action.addEventListener("click", onAction);
  item.append(" ", action, dismissButton(() => item.remove()));
  messageList.prepend(item);
  return item;
}
/** @param {unknown} value */
export function quote(value) {
  const text = String(value);
  return JSON.stringify(text.length > 60 ? text.slice(0, 57) + "..." : text);
}

/** @param {string} text  @param {boolean} [failed] */
export function setLoading(text, failed) {
  /** @type {NodeListOf<HTMLElement>} */
  const notes = document.querySelectorAll(".il-loading");
  notes.forEach((el) => {
    const span = /** @type {HTMLElement} */ (el.querySelector("span"));
    span.removeAttribute("data-i18n"); // what the boot says now, not the build's fixed text
    span.textContent = text;
    el.classList.toggle("il-failed", Boolean(failed));
    if (failed) el.hidden = false; // over the baked frames too (baked.js hid the notes)
  });
}

/** @param {string} text */
export function bootAlert(text) {
  const el = /** @type {HTMLElement} */ (document.getElementById("il-boot"));
  el.textContent = text;
  el.hidden = !text;
}
