// Integrator Lab: the page's own globals, for `tsc -p static/tsconfig.json` (types only).

import type { BakedMessage, SimulationWorker, WorkerMessage } from "./protocol";

declare global {
  /** static/start.js: the worker it created before BokehJS loaded (the one in charge since,
   * once static/js/worker.js replaced it), and what it said meanwhile.
   * `watchPorts` and `spawn` are there whenever a worker is (not from file://). */
  interface IntegratorLabEarly {
    worker: SimulationWorker | null;
    messages: MessageEvent<WorkerMessage>[];
    errors: ErrorEvent[];
    /** why the worker could not be created */
    failure: Error | null;
    /** the page was opened from file://: no worker */
    fileUrl: boolean;
    scriptFailed?: string;
    /** the worker's script (the boot config's `worker`) */
    workerUrl?: string;
    /** each worker's watchdog port (the page's end) */
    watchPorts: WeakMap<SimulationWorker, MessagePort>;
    /** a new worker, told where its files are (and to download the baked frames) */
    spawn: (bake?: boolean) => SimulationWorker;
    /** the baked frames' bytes, if the page may play them */
    baked?: Promise<ArrayBuffer> | null;
    bakedArrived?: (msg: BakedMessage) => void;
    /** the page is a frame of a server's page, which runs its engine (web/server/hosted.py) */
    host?: Window;
    /** the host's origin for postMessage ("*": a notebook's page) */
    hostOrigin?: string;
    /** what the hosting server does with a visitor's Python method (BootConfig.code) */
    code?: "refused" | "sandbox" | "unconfined";
    /** a view the host set before the dashboard was drawn (a link query, applied then) */
    applyWhenDrawn?: string;
  }

  /** BokehJS (its own script, loaded before the page's): untyped here */
  // eslint-disable-next-line no-var
  var Bokeh: any;

  interface Window {
    /** set by static/start.js, which runs first (startWorker says so if it did not) */
    integratorLabEarly: IntegratorLabEarly;
    /** the page's public API (static/js/status.js publishApi) */
    integratorLab: any;
  }
}

export {};
