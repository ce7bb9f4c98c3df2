// @ts-check
// Integrator Lab page: the build-time page data (embedded as JSON by integrator-lab build)
// and the page's constants. Everything the page knows about systems, parameters, integrators
// and the frame buffer's layout comes from here, never restated.

/** @type {any} */
export const data = JSON.parse(
  /** @type {HTMLElement} */ (document.getElementById("il-data")).textContent ?? "");
/** @type {string[]} */
export const SYSTEMS = data.systems;
export const DECL = data.declarations; // system name -> describe()
/** @type {string[]} */
export const INTEGRATORS = data.integrators.map((/** @type {{name: string}} */ i) => i.name);
export const DEFAULTS = data.defaults;
export const ROLLOVER = data.rollover;
export const COLUMNS = data.frameLayout.samples;
// the frame buffer's scene part: [role, its moving columns] in buffer order (views.shared)
export const SCENE_LAYOUT = data.frameLayout.scene;
export const TEXTS = data.texts; // status and divergence texts (views.shared)
export const STATUS_INTERVAL_MS = 250; // how often the "t = ... · real time" lines refresh
export const PARAM_DEBOUNCE_MS = 150; // spinner clicks in a row restart the system once
export const MAX_MESSAGES = 20; // older messages make room for new ones
// how often a system's energy and phase plots take samples (views.shared, as the Panel page)
export const STREAM_INTERVAL_MS = data.streamIntervalMs;
export const BOOT_SLOW_MS = 30000; // a boot still running after this long is said to be slow

export const BREAKDOWN = data.energyAxis.breakdownKinds; // total, kinetic, ... (figures.py)
