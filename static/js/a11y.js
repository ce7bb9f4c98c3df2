// Integrator Lab page: what makes the dashboard usable without a mouse or without sight
// (issue 29): names and labels the Bokeh widgets draw without and visible focus inside their
// shadow roots (widgetnames.js, shared with the Panel dashboard), and a polite live region
// that says in words what the energy plots show.

import { language, t } from "./i18n.js";
import { live } from "./live.js";
import { onLanguage } from "./localize.js";
import { status } from "./status.js";
import { state } from "./urlstate.js";
import { FIX_INTERVAL_MS, fixWidgets } from "./widgetnames.js";

export const DESCRIBE_INTERVAL_MS = 5000; // the live region's calm rate (wall time)
// an energy error this small (a relative error) is "kept"
const KEPT_WITHIN = 1e-3;

// -- the live description ----------------------------------------------------------------
const percent = (x) => {
  const size = Math.abs(100 * x);
  return size >= 1e4 ? size.toExponential(1) : size >= 100 ? size.toFixed(0)
    : Number(size.toPrecision(2)).toString();
};
const seconds = (x) => Number(x.toPrecision(2)).toString();

function integratorTitle(name) {
  const key = `integrator.${name}`;
  const text = t(key);
  return text === key ? name : text;
}

// One sentence per shown system from status() (the numbers the energy plots draw): each
// integrator gains, loses or keeps energy, and by how much; which diverged and when.
export function describe(systems = status().systems) {
  const sentences = [];
  for (const system of state.systems) {
    const entry = systems[system];
    if (!entry) continue;
    const parts = [];
    for (const [name, info] of Object.entries(entry.integrators)) {
      if (state.hidden.includes(name) || !info.samples) continue;
      const who = integratorTitle(name);
      const e = info.energyError;
      let part;
      if (e === null || !Number.isFinite(e)) part = null;
      else if (Math.abs(e) <= KEPT_WITHIN) {
        part = t("a11y.keeps", { name: who, pct: percent(KEPT_WITHIN) });
      } else {
        part = t(e > 0 ? "a11y.gains" : "a11y.loses", { name: who, pct: percent(e) });
      }
      if (info.divergedAt !== null) {
        const at = seconds(info.divergedAt);
        part = part ? t("a11y.and_diverged", { text: part, at })
          : t("a11y.diverged", { name: who, at });
      }
      if (part) parts.push(part);
    }
    if (!parts.length) continue;
    sentences.push(t("a11y.system", {
      system: t(`system.${system}`), time: entry.simTime.toFixed(1),
      parts: parts.join(t("a11y.separator")),
    }));
  }
  return sentences.join(" ");
}

let lastDiverged = "";
let lastSaid = 0;
function sayDescription(force) {
  const region = document.getElementById("il-describe");
  if (!region || !live.ready) return;
  let systems;
  try { systems = status().systems; } catch { return; }
  const diverged = JSON.stringify(Object.values(systems).map((s) =>
    Object.values(s.integrators).map((i) => i.divergedAt)));
  const now = performance.now();
  if (!force && diverged === lastDiverged && now - lastSaid < DESCRIBE_INTERVAL_MS) return;
  lastDiverged = diverged;
  lastSaid = now;
  const text = describe(systems);
  if (text && region.textContent !== text) region.textContent = text;
}

/** The live region and the widget pass, once the dashboard is drawn. */
const widgetTexts = () => ({ increase: t("a11y.increase"), decrease: t("a11y.decrease") });

export function initA11y() {
  fixWidgets(widgetTexts());
  setInterval(() => fixWidgets(), FIX_INTERVAL_MS);
  onLanguage(() => { fixWidgets(widgetTexts()); sayDescription(true); });
  // checked every second: said every DESCRIBE_INTERVAL_MS, or at once when one diverges
  setInterval(() => sayDescription(false), 1000);
  window.integratorLabA11y = { describe: () => describe(), fixWidgets: () => fixWidgets(),
    language };
}
