// Integrator Lab: the messages between the static page and its simulation worker
// (static/worker.mjs), and the boot config both read from the page (index.html's
// `il-boot-config`, written by web/site/build.py boot_data). Types only: nothing here is
// bundled or shipped. The JavaScript that sends or receives these messages is checked against
// them (`// @ts-check`, `tsc -p static/tsconfig.json` and `-p static/tsconfig.worker.json`,
// run by `make lint`): a misspelt message type or a missing field is a type error.
//
// The one description of the protocol: what each message means (its doc comment) and exactly
// what it carries, as the code builds it (the worker's answers are mostly what Python returns:
// web/views/live.py, study.py, geometry.py). static/worker.mjs's header says how the boot, the
// baked start, the flow of frames and the watchdog use them.

// -- the page data read at boot ----------------------------------------------------------

/** The build's Pyodide memory snapshot (web/site/snapshot.py make_snapshot). */
export interface SnapshotInfo {
  url: string;
  /** the Pyodide version that made it */
  pyodide: string;
  bytes: number;
  global: string;
}

/** The default view's baked first seconds (web/site/bake.py write_baked). */
export interface BakedInfo {
  url: string;
  ticks: number;
  wall: number;
  bytes: number;
}

/** index.html's `il-boot-config` (web/site/build.py boot_data): what the worker needs first. */
export interface BootConfig {
  /** the worker's script ("static/worker.mjs", or a hashed copy: static/worker.HASH.mjs) */
  worker: string;
  /** the code a plain boot runs */
  code: string;
  /** the global that then holds the live loop */
  global: string;
  snapshot: SnapshotInfo | null;
  /** Pyodide's folder ("pyodide/" or a hashed one) */
  pyodide: string;
  /** the core's archive */
  archive: string;
  baked: BakedInfo | null;
  /** per file: [bytes, bytes a host that compresses sends] */
  sizes: Record<string, [number, number]>;
  /** files downloaded gzipped in their place: {name: gzipped name}, in Pyodide's folder */
  gzipped?: Record<string, string>;
  /** the same files as .lzma, downloaded in their place on a slow link: {name: .lzma name} */
  lzma?: Record<string, string>;
  /** Pyodide's package list (pyodide-lock.json), when the build gives it: no download */
  lock?: string | null;
  /** the service worker's script, in a build with hashed names */
  serviceWorker?: string;
  /** every file comes from memory (the one-file page): no link to measure */
  inMemory?: boolean;
  /** "server": a server runs the engine, and hosts this page in a frame (then nothing else
   * is given: web/site/build.py build_served_page) */
  host?: "server";
  /** with a host: what it does with a visitor's Python method (the editor says it) */
  visitorCode?: "refused" | "sandbox" | "unconfined";
  /** with a host: its origin ("*": any, the notebook's page; default this page's own) */
  hostOrigin?: string;
}

// -- shared parts --------------------------------------------------------------------------

/** A system's parameters, by name (core values: numbers, or what a link gave). */
export type Params = Record<string, unknown>;

/** A system's settings (static/js/urlstate.js systemSettings). */
export interface SystemSettings {
  params: Params;
  dt: number;
}

/** A user's method as the editor or a link defines it (core.custom; checked by Python). */
export interface MethodDefinition {
  kind?: string;
  name?: string;
  code?: unknown;
  [field: string]: unknown;
}

// -- page -> worker ------------------------------------------------------------------------

/** First, at once (static/start.js), with the watchdog's port. */
export interface BootMessage {
  type: "boot";
  boot: BootConfig;
  /** download the baked frames for the page */
  bake: boolean;
  /** a service worker controls the page (and so this worker's downloads) */
  controlled?: boolean;
  /** the worker's end of the watchdog's channel */
  watch: MessagePort;
}

/** The systems shown and the run's settings, after "boot"; `baked`: the page plays the
 * build's baked frames (web/site/bake.py) and hands over with "handoff". */
export interface InitMessage {
  type: "init";
  systems: Record<string, SystemSettings>;
  integrators: string[];
  speed: number;
  playing: boolean;
  /** the integrators' names in the page's language (Live.set_shown_names) */
  names?: Record<string, string>;
  /** the page plays that many baked frames and hands over with "handoff" */
  baked?: number;
}

/** The page showed baked frame `frame` last: go on from exactly there, after the message
 * `then` (the change that ended the bake). */
export interface HandoffMessage {
  type: "handoff";
  /** the baked frame the page showed last */
  frame: number;
  /** the change that ended the bake, handled first */
  then: PageMessage | null;
}

/** One system changed (it restarts) or is shown. */
export interface ConfigureMessage {
  type: "configure";
  system: string;
  params: Params;
  dt: number;
  /** given: a system the page shows again (else it keeps its own) */
  integrators?: string[];
  /** the page's number for this request, echoed in the "layout" answer */
  request?: number;
}

/** A system is no longer shown. */
export interface RemoveMessage {
  type: "remove";
  system: string;
}

/** The integrators run: every system restarts. */
export interface IntegratorsMessage {
  type: "integrators";
  names: string[];
}

/** The integrators' names in the page's language (a display change only). */
export interface NamesMessage {
  type: "names";
  names: Record<string, string>;
}

export interface SpeedMessage {
  type: "speed";
  value: number;
}

export interface PlayMessage {
  type: "play";
  value: boolean;
}

export interface StepMessage {
  type: "step";
}

/** A body of that system is held (dragged): it alone waits. */
export interface HoldMessage {
  type: "hold";
  system: string;
  value: boolean;
}

/** Every system back to t = 0. */
export interface ResetMessage {
  type: "reset";
}

/** The page drew the last frame. */
export interface AckMessage {
  type: "ack";
}

/** (Re)start a system's study. */
export interface StudyMessage {
  type: "study";
  system: string;
  params: Params;
  integrators: string[];
  settings: Record<string, unknown>;
}

export interface StudyStopMessage {
  type: "study-stop";
  system: string;
}

/** Race the user's method (null: none) beside the built-ins. */
export interface MethodMessage {
  type: "method";
  id: number;
  definition: MethodDefinition | null;
}

/** Open or close a system's geometry view (views.geometry). */
export interface GeometryMessage {
  type: "geometry";
  system: string;
  open: boolean;
  lang: string;
}

/** What the page posts on the worker's own channel. */
export type PageMessage =
  | BootMessage
  | InitMessage
  | HandoffMessage
  | ConfigureMessage
  | RemoveMessage
  | IntegratorsMessage
  | NamesMessage
  | SpeedMessage
  | PlayMessage
  | StepMessage
  | HoldMessage
  | ResetMessage
  | AckMessage
  | StudyMessage
  | StudyStopMessage
  | MethodMessage
  | GeometryMessage;

/** What the page posts on the watchdog's port (the boot message's `watch`): it checks that
 * the worker still answers (a user's code may never return). */
export interface PingMessage {
  type: "ping";
  id: number;
}

// -- worker -> page ------------------------------------------------------------------------

export type ProgressMessage = {
  type: "progress";
  text: string;
  /** the catalog's key of the text */
  key: string;
  /** what the boot is loading now */
  step: string;
} & (
  /** bytes of Python's files arrived, of `total`, as a host that compresses sends them */
  | { loaded: number; total: number }
  | { loaded?: undefined; total?: undefined }
);

/** The baked frames' file, as downloaded (inflated), or why not. */
export type BakedMessage =
  | { type: "baked"; bytes: ArrayBuffer; error?: undefined }
  | { type: "baked"; error: string; bytes?: undefined };

/** Python is up: how it booted (`snapshot` or `plain`) and, if the snapshot failed, why. */
export interface ReadyMessage {
  type: "ready";
  /** ms since the worker started, per stage */
  timings: Record<string, number>;
  /** how Python booted (null only if "ready" came before the boot ended: never) */
  boot: "snapshot" | "plain" | null;
  /** why the snapshot was not used */
  fallback: string | null;
  /** how the wasm and the standard library came: as .lzma (a slow link), gzipped, or
   * inflated already (from the cache, where a visit that inflated .lzma files left them) */
  packing: "lzma" | "gzip" | "inflated" | null;
}

/** Python could not start. */
export interface BootErrorMessage {
  type: "boot-error";
  file: string;
  detail: string;
  step: string;
}

/** After "ready": the files this worker fetched (offline.js). */
export interface FetchedMessage {
  type: "fetched";
  urls: string[];
}

/** A system's scene as built (views.system_run.SystemRun.layout). */
export interface Layout {
  system: string;
  params: Params;
  dt: number;
  recommended_dt: number;
  integrators: string[];
  method: Record<string, unknown> | null;
  colors: Record<string, string>;
  labels: Record<string, string>;
  shape: string;
  x_range: number[];
  y_range: number[];
  bodies: Record<string, unknown[]>;
  links: Record<string, unknown[]>;
  ghost_bodies: Record<string, unknown[]>;
  n_ghost_links: number;
  counts: Record<string, number>;
  fixtures: Record<string, unknown[]>;
  origins: number[][];
  pivots: number[][];
  exact_curve: unknown;
  columns: string[];
}

/** A parameter value the core refused (views.live.refusal). */
export interface Refusal {
  system: string;
  param: string;
  value: number | string;
  min: number | null;
  max: number | null;
  min_open: boolean;
  max_open: boolean;
  then: "kept" | "defaults";
}

/** A system was (re)built or reset (views.live.Live.configure, reset). */
export interface BuiltLayoutMessage {
  type: "layout";
  layout: Layout;
  errors: string[];
  refused?: Refusal | null;
  /** the page's request this answers (configure), if any */
  request?: number;
}

/** Settings the core refused: the run in force goes on (`kept`). */
export interface KeptLayoutMessage {
  type: "layout";
  system: string;
  layout: null;
  errors: string[];
  refused: Refusal | null;
  kept: SystemSettings;
  request?: number;
}

export type LayoutMessage = BuiltLayoutMessage | KeptLayoutMessage;

/** One system's frame (views.system_run.SystemRun.frame, failed_frame). */
export interface Frame {
  time: number;
  rtf: number | null;
  /** per lane: [integrator, samples] */
  lanes: [string, number][];
  diverged: Record<string, number>;
  reasons: Record<string, string>;
  /** the scene and the samples in one flat buffer (views.shared.FRAME_SCENE) */
  data: Float64Array;
  alerts: string[];
  failed: boolean;
  energy?: Record<string, unknown>;
}

export interface FrameMessage {
  type: "frame";
  systems: Record<string, Frame>;
}

/** A study's update (views.study.StudySession.update; Studies.step): all of it, or its
 * progress alone (a slice within a long point), or why it failed. */
export interface StudyUpdateMessage {
  type: "study";
  system: string;
  error?: string;
  progress?: number;
  done?: boolean;
  points?: number;
  total?: number;
  measure?: string;
  settings?: Record<string, unknown>;
  reference?: unknown;
  columns?: { excluded: { reason: string[] }; [role: string]: unknown };
  slopes?: Record<string, number | null>;
  csv?: string;
  seconds?: number | null;
}

export interface ErrorMessage {
  type: "error";
  text: string;
}

/** The user's method runs (its describe()), or why not. */
export interface MethodReplyMessage {
  type: "method";
  id: number;
  method: Record<string, unknown> | null;
  problems: string[];
}

/** A method's verdict at the view's dt (views.geometry.GeometrySession.verdict_lines). */
export interface GeometryVerdictLine {
  name: string;
  /** true: every point inside the region; false: one outside; null: no fixed-step verdict */
  ok: boolean | null;
  text: string;
}

/** One method's ring of states in units of the start ring's radii
 * (views.geometry.GeometrySession.ring_cards). */
export interface GeometryRingCard {
  name: string;
  color: string;
  xs: number[];
  ys: number[];
  centre: number[];
  /** the latest area ratio (the last before it diverged, if it did) */
  ratio: number;
  diverged_at: number | null;
}

/** An open geometry view's update (views.geometry.Geometries.step). */
export interface GeometryUpdateMessage {
  type: "geometry";
  system: string;
  error?: string;
  regions?: Record<string, number[][][]>;
  colors?: Record<string, string>;
  window?: number[];
  texts?: Record<string, string>;
  /** the system's points dt·λ, [x, y] each */
  points?: number[][];
  verdicts?: Record<string, boolean | null>;
  verdict_lines?: GeometryVerdictLine[];
  point_text?: string;
  dt?: number;
  cards?: GeometryRingCard[];
  areas?: Record<string, number | null>;
}

/** What the worker posts on its own channel. */
export type WorkerMessage =
  | ProgressMessage
  | BakedMessage
  | ReadyMessage
  | BootErrorMessage
  | FetchedMessage
  | LayoutMessage
  | FrameMessage
  | StudyUpdateMessage
  | ErrorMessage
  | MethodReplyMessage
  | GeometryUpdateMessage;

/** What the worker answers on the watchdog's port. */
export interface PongMessage {
  type: "pong";
  id: number;
  /** the longest call into Python of the last SLOWEST_WINDOW_MS (ms) */
  slowest: number;
}

// -- the two ends ---------------------------------------------------------------------------

/** The worker as the page holds it: what the page posts it must be a PageMessage, what it
 * receives is a WorkerMessage. */
export interface SimulationWorker extends Omit<Worker, "postMessage" | "onmessage" | "onerror"> {
  postMessage(message: PageMessage, transfer?: Transferable[]): void;
  onmessage: ((event: MessageEvent<WorkerMessage>) => void) | null;
  onerror: ((event: ErrorEvent) => void) | null;
}

/** A worker message of type T. */
export type WorkerMessageOf<T extends WorkerMessage["type"]> = Extract<WorkerMessage, { type: T }>;

/** static/js/worker.js `handlers`: the page's modules' handlers of further message types. */
export interface WorkerHandlers {
  set<T extends WorkerMessage["type"]>(
    type: T,
    handler: (msg: WorkerMessageOf<T>) => void,
  ): WorkerHandlers;
  get(type: WorkerMessage["type"]): ((msg: WorkerMessage) => void) | undefined;
}
