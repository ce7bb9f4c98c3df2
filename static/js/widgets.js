// Integrator Lab page: the dashboard's widgets: set from the state, wired to the state, the
// URL and the worker; typed values are checked before BokehJS takes them.

import { data, SYSTEMS, DECL, INTEGRATORS, PARAM_DEBOUNCE_MS } from "./data.js";
import { t } from "./i18n.js";
import { live, setStatusText } from "./live.js";
import { message } from "./messages.js";
import { model, quietly, onChange } from "./models.js";
import { checkParam, checkRange, DT_DECL, dtAt, dtScaled, refuse, sayClamped, sayComma,
  showDt } from "./params.js";
import { applyView } from "./plots.js";
import { showLegend } from "./legend.js";
import { linkFor, state, saveState } from "./urlstate.js";
import { configureSystem, send } from "./worker.js";
import { drawRest } from "./documents.js";

// -- widgets -----------------------------------------------------------------------------
export function setWidgetsFromState() {
  quietly(() => {
    model("controls:integrators").value = state.integrators.slice();
    const play = model("controls:play");
    play.active = state.playing;
    play.label = t(state.playing ? "control.pause" : "control.play");
    model("controls:speed").value = state.speed;
    model("controls:show_exact").active = state.exact;
    model("controls:log_scale").active = state.log;
    model("controls:show_phase").active = state.phase;
    model("controls:energy_mode").active = data.energyModes.indexOf(state.energy);
    model("controls:systems").active = state.systems.map((s) => SYSTEMS.indexOf(s));
    for (const system of SYSTEMS) {
      showDt(system, state.dt[system], DECL[system].recommended_dt);
      for (const [name, value] of Object.entries(state.params[system])) {
        model(`${system}:param:${name}`).value = value;
      }
    }
  });
}

function setPlaying(playing) {
  state.playing = playing;
  quietly(() => {
    const play = model("controls:play");
    play.active = playing;
    play.label = t(playing ? "control.pause" : "control.play");
  });
  for (const system of state.systems) {
    const entry = live.systems[system];
    setStatusText(system, entry.simTime, entry.realTimeFactor);
  }
}

// A number typed outside a spinner's bounds never reaches its model (BokehJS drops it and
// the field goes on showing it): check what is typed before BokehJS sees it.
// (A panel's fields are drawn after the first paint: documents.js.)
async function guardTyping(widgetName, check, reject) {
  await drawRest();
  const view = Bokeh.index.query_one((v) => v.model && v.model.name === widgetName);
  const root = view && (view.shadow_el || view.el);
  if (!root) return;
  // a character no number has (a letter, a decimal comma): refused as it is typed, and said
  // so (the field would silently drop it: "0,05" became "005")
  root.addEventListener("beforeinput", (event) => {
    const input = event.target;
    if (!(input instanceof HTMLInputElement) || typeof event.data !== "string" ||
        /^[0-9eE+\-.]*$/.test(event.data)) return;
    event.preventDefault();
    event.stopPropagation();
    const at = input.selectionStart ?? input.value.length;
    const end = input.selectionEnd ?? at;
    if (event.data === ",") { // a decimal comma is taken as a point, and said so
      input.setRangeText(".", at, end, "end");
      input.dispatchEvent(new Event("input", { bubbles: true }));
      const fixed = input.value;
      reject(null, fixed);
      return;
    }
    // letters typed one by one are said together ("abc", not "c")
    const again = input.dataset.ilBase === input.value && input.dataset.ilTried;
    const typed = again ? input.dataset.ilTried + event.data
      : input.value.slice(0, at) + event.data + input.value.slice(end);
    input.dataset.ilTried = typed;
    input.dataset.ilBase = input.value;
    reject(typed);
  }, true);
  root.addEventListener("change", (event) => {
    const input = event.target;
    if (!(input instanceof HTMLInputElement) || check(input.value) !== undefined) return;
    event.stopPropagation(); // BokehJS never takes it
    reject(input.value);
    input.value = view.format_value ?? String(view.model.value);
    if ("old_value" in view) view.old_value = input.value;
  }, true);
}

// the actions of the controls' buttons, also the keyboard's shortcuts (keys.js)
const dtScalers = {}; // system -> fn(factor): its dt times factor, as ÷2 / ×2 do
/** Play or pause, as the Play button does. */
export function togglePlay() {
  const play = model("controls:play");
  play.active = !play.active; // its change handler (wireWidgets) does the rest
}
/** One time step of every shown system, paused, as the Step button does. */
export function stepOnce() {
  setPlaying(false);
  saveState();
  send({ type: "step" });
}
/** Every shown system back to t = 0, as the Reset button does. */
export function resetAll() {
  send({ type: "reset" });
}
/** dt times `factor` (0.5 or 2) for every shown system, as each panel's ÷2 / ×2 do. */
export function scaleShownDt(factor) {
  for (const system of state.systems) dtScalers[system]?.(factor);
}

export function wireWidgets() {
  onChange(model("controls:integrators"), "value", (value) => {
    const names = INTEGRATORS.filter((n) => value.includes(n));
    if (!names.length) {
      message(t("msg.choose_integrator"));
      quietly(() => { model("controls:integrators").value = state.integrators.slice(); });
      return;
    }
    state.integrators = names;
    state.hidden = state.hidden.filter((n) => names.includes(n));
    saveState();
    applyView();
    showLegend();
    send({ type: "integrators", names });
  });
  onChange(model("controls:play"), "active", (active) => {
    setPlaying(active);
    saveState();
    send({ type: "play", value: active });
  });
  model("controls:step").on_event("button_click", stepOnce);
  model("controls:reset").on_event("button_click", resetAll);
  onChange(model("controls:speed"), "value", (value) => {
    const x = checkRange(value, data.speedRange);
    if (x === undefined) return;
    state.speed = x;
    saveState();
    send({ type: "speed", value: x });
  });
  const view = (widget, property, apply) => onChange(model(widget), property, (value) => {
    apply(value);
    saveState();
    applyView();
  });
  view("controls:show_exact", "active", (v) => { state.exact = v; });
  view("controls:log_scale", "active", (v) => { state.log = v; });
  view("controls:show_phase", "active", (v) => { state.phase = v; });
  view("controls:energy_mode", "active", (v) => { state.energy = data.energyModes[v]; });
  model("controls:copy_link").on_event("button_click", copyLink);
  onChange(model("controls:systems"), "active", chooseSystems);

  for (const system of SYSTEMS) {
    let timer = null;
    const restart = () => {
      clearTimeout(timer);
      live.systems[system].editing = true;
      timer = setTimeout(() => {
        live.systems[system].editing = false;
        saveState();
        configureSystem(system);
      }, PARAM_DEBOUNCE_MS);
    };
    guardTyping(`${system}:dt`, (raw) => checkRange(raw, data.dtRange),
      (raw, fixed) => (fixed === undefined ? refuse(system, DT_DECL, raw, state.dt[system])
        : sayComma(system, DT_DECL, fixed)));
    const setDt = (x) => {
      if (x === state.dt[system]) return;
      state.dt[system] = x;
      showDt(system, x);
      restart();
    };
    onChange(model(`${system}:dt`), "value", (value) => {
      const x = checkRange(value, data.dtRange);
      if (x === undefined) {
        refuse(system, DT_DECL, value, state.dt[system]);
        showDt(system, state.dt[system]);
        return;
      }
      setDt(x);
    });
    // the slider runs over log10(dt): a drag sets dt when released
    onChange(model(`${system}:dt:slider`), "value_throttled", (position) => {
      setDt(dtAt(position));
    });
    dtScalers[system] = (factor) => {
      const [x, clamped] = dtScaled(state.dt[system], factor);
      if (clamped) sayClamped(system, state.dt[system] * factor, x);
      setDt(x);
    };
    for (const [role, factor] of [["half", 0.5], ["double", 2]]) {
      model(`${system}:dt:${role}`).on_event("button_click", () => dtScalers[system](factor));
    }
    for (const p of DECL[system].params) {
      if (p.kind !== "choice") {
        guardTyping(`${system}:param:${p.name}`, (raw) => checkParam(p, raw),
          (raw, fixed) => (fixed === undefined
            ? refuse(system, p, raw, state.params[system][p.name]) : sayComma(system, p, fixed)));
      }
      onChange(model(`${system}:param:${p.name}`), "value", (value) => {
        const x = checkParam(p, value);
        if (x === undefined) {
          refuse(system, p, value, state.params[system][p.name]);
          quietly(() => { model(`${system}:param:${p.name}`).value = state.params[system][p.name]; });
          return;
        }
        state.params[system][p.name] = x;
        restart();
      });
    }
  }
}

// The system picker: the panels shown keep their order (the URL's); a system ticked again
// comes last, and starts again from its settings.
function chooseSystems(active) {
  const chosen = active.map((i) => SYSTEMS[i]);
  if (!chosen.length) {
    message(t("msg.choose_system"));
    quietly(() => {
      model("controls:systems").active = state.systems.map((s) => SYSTEMS.indexOf(s));
    });
    return;
  }
  const added = chosen.filter((s) => !state.systems.includes(s));
  const removed = state.systems.filter((s) => !chosen.includes(s));
  state.systems = state.systems.filter((s) => chosen.includes(s)).concat(added);
  saveState();
  applyView();
  for (const system of removed) send({ type: "remove", system });
  for (const system of added) {
    configureSystem(system, { integrators: state.integrators });
  }
}

function copyLink() {
  const link = linkFor(state);
  const done = () => message(t("msg.copied"), "note");
  const fallback = () => message(t("msg.link", { link }), "note");
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(link).then(done, fallback);
  } else {
    fallback();
  }
}
