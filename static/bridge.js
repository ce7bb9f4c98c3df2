// Integrator Lab: the main thread of the static page.
//
// Draws the dashboard that was built in Python at build time (Bokeh documents), starts the
// simulation worker (static/worker.mjs), forwards widget changes to it and streams what it
// computes into the Bokeh data sources, once per animation frame. The page state lives in
// the URL query, validated against the core's declarations (embedded in the page); nothing
// from the URL is ever inserted as HTML. This thread never runs Python.
(function () {
  "use strict";

  const data = JSON.parse(document.getElementById("il-data").textContent);
  const SYSTEMS = data.systems;
  const DECL = data.declarations; // system name -> describe()
  const INTEGRATORS = data.integrators.map((i) => i.name);
  const DEFAULTS = data.defaults;
  const ROLLOVER = data.rollover;
  const COLUMNS = data.frameLayout.samples;
  // the frame buffer's scene part: [role, its moving columns] in buffer order (views.shared)
  const SCENE_LAYOUT = data.frameLayout.scene;
  const TEXTS = data.texts; // status and divergence texts (views.shared)
  const STATUS_INTERVAL_MS = 250; // how often the "t = ... · real time" lines refresh
  const PARAM_DEBOUNCE_MS = 150; // spinner clicks in a row restart the system once
  const MAX_MESSAGES = 20; // older messages make room for new ones
  const STREAM_INTERVAL_MS = 150; // how often a system's energy and phase plots take samples
  const BOOT_SLOW_MS = 30000; // a boot still running after this long is said to be slow

  // -- messages (always textContent) ------------------------------------------------------
  const messageList = document.getElementById("il-messages");
  function message(text, kind) {
    const item = document.createElement("li");
    item.textContent = text;
    if (kind === "note") item.className = "il-note";
    messageList.appendChild(item);
    while (messageList.children.length > MAX_MESSAGES) messageList.removeChild(messageList.firstChild);
    if (kind === "note") setTimeout(() => item.remove(), 4000);
  }
  function quote(value) {
    const text = String(value);
    return JSON.stringify(text.length > 60 ? text.slice(0, 57) + "..." : text);
  }

  // -- validation against the core's declarations (mirrors Param.validate) ----------------
  const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
  function parseNumber(raw) {
    const text = String(raw).trim();
    return NUMBER.test(text) ? Number(text) : NaN;
  }
  function checkParam(p, raw) {
    if (p.kind === "choice") return p.choices.includes(raw) ? raw : undefined;
    const x = typeof raw === "number" ? raw : parseNumber(raw);
    if (!Number.isFinite(x)) return undefined;
    if (p.kind === "int" && !Number.isInteger(x)) return undefined;
    if (p.min !== null && (x < p.min || (p.min_open && x === p.min))) return undefined;
    if (p.max !== null && (x > p.max || (p.max_open && x === p.max))) return undefined;
    return x;
  }
  function checkRange(raw, [lo, hi]) {
    const x = typeof raw === "number" ? raw : parseNumber(raw);
    return Number.isFinite(x) && x >= lo && x <= hi ? x : undefined;
  }
  function paramDecl(system, name) {
    return DECL[system].params.find((p) => p.name === name);
  }
  // the time step as a declaration of its own (its range is the worker's, data.dtRange)
  const DT_DECL = {
    name: "time step dt", kind: "float", unit: "s", min: data.dtRange[0], max: data.dtRange[1],
    min_open: false, max_open: false,
  };

  // -- what a rejected value says: the parameter, what was typed, the range, what is kept --
  function shortNumber(x) {
    return String(Number(x.toPrecision(6)));
  }
  function withUnit(text, p) {
    return p.unit ? `${text} ${p.unit}` : text;
  }
  function expected(p) {
    if (p.kind === "choice") return `one of ${p.choices.join(", ")}`;
    const what = p.kind === "int" ? "a whole number" : "a number";
    const lo = p.min === null ? null : shortNumber(p.min);
    const hi = p.max === null ? null : shortNumber(p.max);
    const low = lo === null ? "" : p.min_open ? `above ${lo}` : `from ${lo}`;
    const upTo = lo === null ? "up to" : "to";
    const high = hi === null ? "" : p.max_open ? `below ${hi}` : `${upTo} ${hi}`;
    const span = [low, high].filter(Boolean).join(p.min_open && hi !== null ? " and up " : " ");
    return withUnit(span ? `${what} ${span}` : what, p);
  }
  function span(p) {
    const lo = p.min === null ? "−∞" : shortNumber(p.min);
    const hi = p.max === null ? "∞" : shortNumber(p.max);
    const excluded = [p.min_open && p.min !== null ? lo : null,
                      p.max_open && p.max !== null ? hi : null].filter(Boolean);
    const note = excluded.length ? ` (${excluded.join(" and ")} excluded)` : "";
    return withUnit(`${lo}–${hi}`, p) + note;
  }
  // A refused value is said at the top (with the other messages) and under the panel's
  // fields, where the eyes are (on a phone the top of the page is out of view).
  const NOTE_MS = 10000;
  const noteTimers = {};
  function refuse(system, p, typed, kept) {
    const text = rejection(system, p, typed, kept);
    message(text);
    const note = document.getElementById(`il-note-${system}`);
    note.textContent = text;
    note.hidden = false;
    clearTimeout(noteTimers[system]);
    noteTimers[system] = setTimeout(() => { note.hidden = true; }, NOTE_MS);
  }
  function rejection(system, p, typed, kept) {
    const head = `${DECL[system].title}, ${p.name}: `;
    const tail = `; kept ${withUnit(String(kept), p)}.`;
    const text = typed === null || typed === undefined ? "" : String(typed).trim();
    if (!text) return `${head}empty; expected ${expected(p)}${tail}`;
    const x = parseNumber(text);
    if (!Number.isFinite(x)) {
      return `${head}${quote(text)} is not a number; expected ${expected(p)}${tail}`;
    }
    if (p.kind === "int" && !Number.isInteger(x)) {
      return `${head}${text} is not a whole number; expected ${expected(p)}${tail}`;
    }
    return `${head}${text} is outside ${span(p)}${tail}`;
  }

  // -- state and the URL query -------------------------------------------------------------
  function defaultState() {
    return {
      systems: SYSTEMS.slice(),
      integrators: DEFAULTS.integrators.slice(),
      speed: DEFAULTS.speed, playing: DEFAULTS.playing, exact: DEFAULTS.exact,
      energy: DEFAULTS.energy, log: DEFAULTS.log, phase: DEFAULTS.phase,
      embed: DEFAULTS.embed, dt: Object.assign({}, DEFAULTS.dt),
      params: Object.fromEntries(SYSTEMS.map((s) => [s, Object.assign({}, DEFAULTS.params[s])])),
    };
  }
  // 0/1 settings: query key -> state field ("embed" is the compact view for <iframe>s)
  // (a Map: a query key such as "__proto__" or "toString" must not find anything inherited)
  const FLAGS = new Map([["play", "playing"], ["exact", "exact"], ["log", "log"],
                         ["phase", "phase"], ["embed", "embed"]]);

  function stateFromQuery(search) {
    const state = defaultState();
    const query = new URLSearchParams(search);
    const fallback = (key, raw, expected, shown) =>
      message(`Link setting "${key}": got ${quote(raw)}, expected ${expected}; using ` +
              `${shown}.`);
    for (const [key, raw] of query) {
      if (key === "integrators" || key === "systems") {
        const valid = key === "integrators" ? INTEGRATORS : SYSTEMS;
        const names = raw.split(",").map((s) => s.trim()).filter(Boolean);
        const bad = names.filter((n) => !valid.includes(n));
        const good = [...new Set(names.filter((n) => valid.includes(n)))];
        if (bad.length || !good.length) {
          fallback(key, raw, `a comma-separated list of ${valid.join(", ")}`,
                   good.length ? good.join(", ") : "the default");
        }
        if (good.length) state[key] = good;
      } else if (key === "speed") {
        const x = checkRange(raw, data.speedRange);
        if (x === undefined) {
          fallback(key, raw, `a number in [${data.speedRange.join(", ")}]`,
                   `the default ${DEFAULTS.speed}`);
        } else state.speed = x;
      } else if (FLAGS.has(key)) {
        if (raw === "1" || raw === "0") state[FLAGS.get(key)] = raw === "1";
        else fallback(key, raw, "0 or 1", "the default");
      } else if (key === "energy") {
        if (data.energyModes.includes(raw)) state.energy = raw;
        else fallback(key, raw, `one of ${data.energyModes.join(", ")}`, "the default");
      } else if (key.includes(".") && SYSTEMS.includes(key.split(".")[0])) {
        const [system, name] = key.split(/\.(.*)/s);
        if (name === "dt") {
          const x = checkRange(raw, data.dtRange);
          if (x === undefined) {
            fallback(key, raw, `a time step in [${data.dtRange.join(", ")}] s`,
                     `the default ${DEFAULTS.dt[system]} s`);
          } else state.dt[system] = x;
          continue;
        }
        const p = paramDecl(system, name);
        if (!p) {
          message(`Link setting ${quote(key)} ignored: ${system} has no parameter ` +
                  `${quote(name)} (parameters: ${DECL[system].params.map((q) => q.name).join(", ")}).`);
          continue;
        }
        const x = checkParam(p, raw);
        if (x === undefined) fallback(key, raw, p.accepted, `the default ${p.default}`);
        else state.params[system][name] = x;
      } else {
        message(`Link setting ${quote(key)} ignored: unknown setting.`);
      }
    }
    return state;
  }

  function queryFromState(state) {
    const query = new URLSearchParams();
    const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
    if (!same(state.systems, SYSTEMS)) query.set("systems", state.systems.join(","));
    if (!same(state.integrators, DEFAULTS.integrators)) {
      query.set("integrators", state.integrators.join(","));
    }
    if (state.speed !== DEFAULTS.speed) query.set("speed", String(state.speed));
    for (const [key, field] of FLAGS) {
      if (state[field] !== DEFAULTS[field]) query.set(key, state[field] ? "1" : "0");
    }
    if (state.energy !== DEFAULTS.energy) query.set("energy", state.energy);
    for (const system of SYSTEMS) {
      if (state.dt[system] !== DEFAULTS.dt[system]) {
        query.set(`${system}.dt`, String(state.dt[system]));
      }
      for (const [name, value] of Object.entries(state.params[system])) {
        if (value !== DEFAULTS.params[system][name]) query.set(`${system}.${name}`, String(value));
      }
    }
    return query.toString();
  }

  function linkFor(state) {
    const query = queryFromState(state);
    return location.origin + location.pathname + (query ? "?" + query : "");
  }

  const state = stateFromQuery(location.search);
  function saveState() {
    const query = queryFromState(state);
    history.replaceState(null, "", location.pathname + (query ? "?" + query : ""));
  }

  // -- live bookkeeping for status() -------------------------------------------------------
  const live = {
    ready: false,
    error: null, // why the simulation could not start (text), shown at the top
    notice: null, // the boot is slow (text)
    step: null, // what the worker is loading (files of the site)
    framesDrawn: 0, // animation frames that showed new simulation data
    systems: Object.fromEntries(SYSTEMS.map((s) => [s, {
      simTime: 0, realTimeFactor: null, received: 0, layout: null, diverged: {},
      lastStatus: 0, frames: 0, pending: {}, lastFlush: 0, alerts: [], stopped: false,
    }])),
  };

  // -- Bokeh models ------------------------------------------------------------------------
  function findModel(name) {
    for (const doc of Bokeh.documents) {
      const found = doc.get_model_by_name(name);
      if (found) return found;
    }
    return null;
  }
  function model(name) {
    const found = findModel(name);
    if (!found) throw new Error(`no Bokeh model named ${name}`);
    return found;
  }
  let silent = 0; // > 0 while the page sets widgets itself (no feedback to the worker)
  function quietly(fn) {
    silent += 1;
    try { fn(); } finally { silent -= 1; }
  }
  function onChange(widget, property, fn) {
    widget.property(property).change.connect(() => { if (!silent) fn(widget[property]); });
  }

  // -- the worker --------------------------------------------------------------------------
  let worker = null;
  function send(message) {
    // the worker queues messages while Python boots, so anything after "init" may go
    if (worker && workerBooted) worker.postMessage(message);
  }
  function systemSettings(system) {
    return { params: state.params[system], dt: state.dt[system] };
  }

  function setLoading(text, failed) {
    document.querySelectorAll(".il-loading").forEach((el) => {
      el.querySelector("span").textContent = text;
      el.classList.toggle("il-failed", Boolean(failed));
    });
  }

  // -- a boot that fails or takes long says what and what to do --------------------------
  function bootAlert(text) {
    const el = document.getElementById("il-boot");
    el.textContent = text;
    el.hidden = !text;
  }
  function bootAdvice(file, detail) {
    const advice = ["Reload the page to try again."];
    if (/^HTTP 404\b/.test(detail)) {
      advice.push(`The host has no ${file}: publish the whole folder that ` +
                  "`integrator-lab build` writes, not just index.html.");
    } else if (/^HTTP /.test(detail)) {
      advice.push(`The host refused ${file}; check its logs.`);
    } else {
      advice.push(`If it keeps failing, check the connection: a proxy, firewall or ` +
                  `browser extension may block ${file}.`);
    }
    const missing = /^HTTP 404\b/.test(detail);
    if (file.endsWith(".wasm") && !missing) {
      advice.push("The host must serve .wasm files as application/wasm.");
    }
    if (/\.m?js$/.test(file) && /^served as /.test(detail)) {
      advice.push(`The host must serve .${file.split(".").pop()} files as JavaScript ` +
                  "(text/javascript).");
    }
    return advice.join(" ");
  }
  function bootFailed(file, detail) {
    if (live.error || live.ready) return; // the first failure is the cause
    live.error = `The simulation could not start: ${file} did not load (${detail}). ` +
      bootAdvice(file, detail);
    live.notice = null;
    bootAlert(live.error);
    setLoading(`Not running: ${file} did not load (see the message at the top)`, true);
  }
  function bootSlow() {
    if (live.ready || live.error || !worker) return;
    const what = live.step || "the simulation worker (static/worker.mjs)";
    live.notice = `Still starting after ${BOOT_SLOW_MS / 1000} s, loading ${what}. A slow ` +
      "connection may need longer; if nothing changes, reload the page.";
    bootAlert(live.notice);
    setLoading(`Still loading ${what}…`);
  }
  // The worker failed before it said anything: its own file did not load or run.
  function workerFailed(event) {
    const file = "static/worker.mjs";
    fetch(file, { method: "HEAD", cache: "no-store" }).then((response) => {
      const type = response.headers.get("content-type") || "no type";
      if (!response.ok) bootFailed(file, `HTTP ${response.status} ${response.statusText}`.trim());
      else if (!/javascript/.test(type)) bootFailed(file, `served as ${type}, not as JavaScript`);
      else bootFailed(file, event.message || "the browser could not run it as a module worker");
    }, (error) => bootFailed(file, `the download failed: ${error.message}`));
  }

  function startWorker() {
    if (location.protocol === "file:") {
      const note = document.getElementById("il-served");
      note.textContent = "This page must be served over HTTP to run (browsers block its " +
        "Web Worker from file://): run `integrator-lab preview`, or `python3 -m http.server` " +
        "in this folder, and open the printed http://127.0.0.1 address.";
      note.hidden = false;
      setLoading("Not running: open this page over HTTP (see above)", true);
      return;
    }
    // static/start.js started the worker before BokehJS loaded; the one-file build starts it
    // here (its page shim answers new Worker)
    const early = window.integratorLabEarly ?? null;
    try {
      if (early?.failure) throw early.failure;
      if (early?.worker) {
        worker = early.worker;
      } else {
        performance.mark("il:worker-start");
        worker = new Worker("static/worker.mjs", { type: "module" });
        worker.postMessage({ type: "boot",
          boot: JSON.parse(document.getElementById("il-boot-config").textContent) });
      }
    } catch (error) {
      setLoading(`The simulation could not start: ${error.message}`, true);
      return;
    }
    let heard = false; // the worker posted a message: its own file loaded
    worker.onerror = (event) => {
      if (!heard) {
        workerFailed(event);
        return;
      }
      setLoading("The simulation worker failed (see the message at the top)", true);
      message(`The simulation worker failed: ${event.message || "unknown error"}`);
    };
    worker.onmessage = (event) => {
      heard = true;
      receive(event.data);
    };
    // what the worker said before this script ran
    for (const event of early?.messages.splice(0) ?? []) worker.onmessage(event);
    for (const event of early?.errors.splice(0) ?? []) worker.onerror(event);
    setTimeout(bootSlow, BOOT_SLOW_MS);
  }

  function initWorker() {
    const systems = Object.fromEntries(state.systems.map((s) => [s, systemSettings(s)]));
    worker.postMessage({
      type: "init", systems, integrators: state.integrators, speed: state.speed,
      playing: state.playing,
    });
  }

  let liveMarked = false; // the "il:live" performance mark is set (first frame everywhere)
  let pendingFrame = null; // the latest frame not drawn yet
  let drawRequested = false;
  function receive(msg) {
    switch (msg.type) {
      case "progress":
        live.step = msg.step || null;
        if (!live.notice) setLoading(msg.text);
        break;
      case "boot-error":
        bootFailed(msg.file, msg.detail);
        break;
      case "ready":
        performance.mark("il:worker-ready");
        live.ready = true;
        live.notice = null;
        bootAlert("");
        live.workerTimings = msg.timings || {};
        live.boot = msg.boot; // "snapshot" or "plain" (then msg.fallback says why)
        live.bootFallback = msg.fallback ?? null;
        document.querySelectorAll(".il-loading").forEach((el) => { el.hidden = true; });
        break;
      case "layout":
        applyLayout(msg.layout, msg.errors);
        break;
      case "frame":
        pendingFrame = msg.systems;
        if (!drawRequested) {
          drawRequested = true;
          requestAnimationFrame(draw);
        }
        break;
      case "error":
        message(`Simulation: ${msg.text}`);
        break;
      default:
        break;
    }
  }

  // "init" goes once Bokeh has drawn (the widgets hold the state) and the worker exists.
  let bokehReady = false;
  let workerBooted = false;
  function maybeInit() {
    if (bokehReady && worker && !workerBooted) {
      workerBooted = true;
      initWorker();
    }
  }

  // -- applying what the worker sends ------------------------------------------------------
  function applyLayout(layout, errors) {
    const system = layout.system;
    for (const text of errors) message(`${DECL[system].title}: ${text}; using the defaults.`);
    const entry = live.systems[system];
    entry.layout = layout;
    entry.diverged = {};
    entry.received = 0;
    entry.simTime = 0;
    entry.realTimeFactor = null;
    entry.stopped = false;
    showAlerts(system, []);
    if (pendingFrame) delete pendingFrame[system];
    // what the worker runs is the truth (it falls back to defaults on invalid input)
    state.params[system] = Object.assign({}, layout.params);
    state.dt[system] = layout.dt;
    showRecommendedDt(system, layout.dt, layout.recommended_dt);
    quietly(() => {
      model(`${system}:dt`).value = layout.dt;
      for (const [name, value] of Object.entries(layout.params)) {
        model(`${system}:param:${name}`).value = value;
      }
    });
    saveState();
    entry.scene = {};
    for (const [role, columns] of SCENE_LAYOUT) {
      // static columns (colours, sizes, ...) stay; the moving ones wait for the first frame
      entry.scene[role] = layout[role] || {};
      const next = Object.assign({}, entry.scene[role]);
      for (const c of columns) next[c] = new Array(layout.counts[role]).fill(NaN);
      model(`${system}:scene:${role}`).data = next;
    }
    model(`${system}:scene:fixtures`).data = layout.fixtures;
    model(`${system}:scene:status`).data = { x: [], y: [], text: [], color: [] };
    const xr = model(`${system}:scene:x_range`);
    const yr = model(`${system}:scene:y_range`);
    xr.setv({ start: layout.x_range[0], end: layout.x_range[1] });
    yr.setv({ start: layout.y_range[0], end: layout.y_range[1] });
    const curve = layout.exact_curve || { q: [], v: [] };
    model(`${system}:phase:exact`).data = { q: Array.from(curve.q), v: Array.from(curve.v) };
    // the next frame replaces the samples (an empty source would break a log axis)
    entry.fresh = true;
    entry.counts = layout.counts;
    setStatusText(system, 0, null);
  }

  // The step a system recommends depends on its parameters (a stiffer cradle contact is
  // shorter): the dt field says so, and says it loudly when dt is much coarser than that.
  function showRecommendedDt(system, dt, recommended) {
    if (!(recommended > 0)) return;
    const widget = model(`${system}:dt`);
    const coarse = dt > 1.5 * recommended;
    const title = coarse ? `time step dt (s): ${recommended} recommended` : "time step dt (s)";
    const description = `fixed time step of every integrator; recommended ${recommended} s ` +
      `for these parameters; accepted: ${data.dtRange[0]} to ${data.dtRange[1]} s`;
    quietly(() => {
      if (widget.title !== title) widget.title = title;
      if (widget.description !== description) widget.description = description;
    });
  }

  // Streaming into a line re-processes all of its points, so the energy and phase plots
  // take new samples in batches: at most one system per animation frame, each about every
  // STREAM_INTERVAL_MS. The animation itself moves every frame.
  function flushSamples(system) {
    const entry = live.systems[system];
    for (const [name, columns] of Object.entries(entry.pending)) {
      if (columns.t.length) sampleSource(system, name).stream(columns, ROLLOVER);
    }
    entry.pending = {};
    entry.lastFlush = performance.now();
  }
  function flushDue() {
    const now = performance.now();
    let oldest = null;
    for (const system of state.systems) {
      const entry = live.systems[system];
      if (!Object.keys(entry.pending).length) continue;
      if (!state.playing) flushSamples(system); // a step or a reset: show it at once
      else if (now - entry.lastFlush >= STREAM_INTERVAL_MS &&
               (!oldest || entry.lastFlush < live.systems[oldest].lastFlush)) oldest = system;
    }
    if (oldest) flushSamples(oldest);
  }

  function draw() {
    drawRequested = false;
    const frame = pendingFrame;
    pendingFrame = null;
    if (frame) {
      live.framesDrawn += 1;
      for (const [system, f] of Object.entries(frame)) applyFrame(system, f);
      flushDue();
      if (!liveMarked && status().ready) {
        liveMarked = true;
        performance.mark("il:live");
      }
    }
    if (worker) worker.postMessage({ type: "ack" });
  }

  // What failed in one system (it stopped, or its exact solution did), on its own panel:
  // the other systems go on.
  function showAlerts(system, alerts) {
    const entry = live.systems[system];
    const text = alerts.join(" ");
    if (text === entry.alerts.join(" ")) return;
    entry.alerts = alerts.slice();
    const el = document.getElementById(`il-alert-${system}`);
    el.textContent = text;
    el.hidden = !text;
  }

  function applyFrame(system, f) {
    const entry = live.systems[system];
    if (!entry.counts) return;
    showAlerts(system, f.alerts || []);
    if (f.failed) { // the system stopped: its picture and plots stay as they were
      entry.stopped = true;
      entry.frames += 1;
      entry.simTime = f.time;
      entry.realTimeFactor = null;
      setStatusText(system, f.time, null);
      return;
    }
    const d = f.data;
    let at = 0;
    const take = (n) => { const part = d.subarray(at, at + n); at += n; return part; };
    // every moving renderer costs the page a repaint and a restyle per frame: leave out
    // the empty ones and the hidden ghost
    for (const [role, columns] of SCENE_LAYOUT) {
      const n = entry.counts[role];
      const shown = n > 0 && (state.exact || !role.startsWith("ghost"));
      if (!shown) {
        at += n * columns.length;
        continue;
      }
      const next = Object.assign({}, entry.scene[role]);
      for (const c of columns) next[c] = take(n).slice();
      model(`${system}:scene:${role}`).data = next;
    }
    for (const [name, count] of f.lanes) {
      if (entry.fresh) {
        const columns = {};
        for (const c of COLUMNS) columns[c] = Array.from(take(count));
        sampleSource(system, name).data = columns;
      } else if (count) {
        // samples wait here and reach the plot in batches (see flushSamples)
        const pending = entry.pending[name] || (entry.pending[name] = Object.fromEntries(
          COLUMNS.map((c) => [c, []])));
        for (const c of COLUMNS) pending[c].push(...take(count));
      }
      entry.received += count;
    }
    if (entry.fresh) entry.pending = {};
    entry.fresh = false;
    entry.frames += 1;
    entry.simTime = f.time;
    entry.realTimeFactor = f.rtf === undefined ? null : f.rtf;
    const diverged = f.diverged || {};
    const names = Object.keys(diverged).filter((n) => state.integrators.includes(n));
    if (names.length !== Object.keys(entry.diverged).length) {
      entry.diverged = Object.fromEntries(names.map((n) => [n, diverged[n]]));
      model(`${system}:scene:status`).data = {
        x: names.map(() => 8), y: names.map((_, k) => 8 + 18 * k),
        text: names.map((n) => divergedText(n, diverged[n])),
        color: names.map((n) => data.colors[n] || "#555555"),
      };
    }
    const now = performance.now();
    if (now - entry.lastStatus > STATUS_INTERVAL_MS) {
      entry.lastStatus = now;
      setStatusText(system, f.time, entry.realTimeFactor);
    }
  }

  // the texts of views.shared, filled as its status_text / diverged_text do
  const fill = (template, values) => template.replace(/\{(\w+)\}/g, (_, k) => values[k]);
  function divergedText(name, at) {
    return fill(TEXTS.diverged,
      { name, at: Number(at.toPrecision(TEXTS.digits.at)).toString() });
  }
  function setStatusText(system, time, rtf) {
    const t = time.toFixed(TEXTS.digits.time);
    const shown = rtf === null ? TEXTS.noRate : rtf.toFixed(TEXTS.digits.rtf);
    // plain text outside Bokeh: a Bokeh Div would re-lay the panel out at every update
    document.getElementById(`il-status-${system}`).textContent =
      live.systems[system].stopped ? fill(TEXTS.stopped, { time: t })
        : fill(TEXTS.status, { time: t, rtf: shown }) + (state.playing ? "" : TEXTS.paused);
  }

  // -- view options (display only, no simulation change) ---------------------------------
  // Lines are built on demand, like figures.PanelModels.line does in Python: only for the
  // selected integrators and the kinds on view, which keeps the embedded document light.
  const BREAKDOWN = data.energyAxis.breakdownKinds; // total, kinetic, ... (figures.py)
  const createdSources = {}; // sources of integrators not selected at build time
  function sampleSource(system, name) {
    const key = `${system}:samples:${name}`;
    let source = findModel(key) || createdSources[key];
    if (!source) {
      source = newModel("ColumnDataSource", {
        data: Object.fromEntries(COLUMNS.map((c) => [c, []])), name: key,
      });
      createdSources[key] = source;
    }
    return source;
  }
  function newModel(type, attrs) {
    const cls = Bokeh.Models.get(type);
    return new cls(attrs || {});
  }
  function ensureLine(system, kind, name) {
    const lineName = `${system}:line:${kind}:${name}`;
    const existing = findModel(lineName);
    if (existing) return existing;
    const style = Object.assign({}, data.lineStyles[kind]);
    const x = style.x;
    const y = style.y;
    delete style.x;
    delete style.y;
    const glyph = newModel("Line", Object.assign(
      { x: { field: x }, y: { field: y }, line_color: data.colors[name] }, style));
    const renderer = newModel("GlyphRenderer", {
      data_source: sampleSource(system, name), glyph, name: lineName,
    });
    const fig = model(kind === "phase" ? `${system}:phase` : `${system}:energy`);
    fig.renderers = [...fig.renderers, renderer];
    if (kind === "error") {
      const legend = model(`${system}:energy:legend`);
      const item = newModel("LegendItem", {
        label: { value: data.labels[name] }, renderers: [model(`${system}:energy:swatches`)],
        index: INTEGRATORS.indexOf(name), name: `${system}:legend:${name}`,
      });
      legend.items = [...legend.items, item];
    }
    return renderer;
  }
  function ensureStyleItems(system) {
    if (findModel(`${system}:legend-style:kinetic`)) return;
    const source = newModel("ColumnDataSource", { data: { t: [NaN], y: [NaN] } });
    const fig = model(`${system}:energy`);
    const items = BREAKDOWN.map((kind) => {
      const glyph = newModel("Line", {
        x: { field: "t" }, y: { field: "y" }, line_color: "#666666",
        line_width: data.lineStyles[kind].line_width, line_dash: data.lineStyles[kind].line_dash,
      });
      const renderer = newModel("GlyphRenderer", { data_source: source, glyph });
      fig.renderers = [...fig.renderers, renderer];
      return newModel("LegendItem", {
        label: { value: data.energyAxis.breakdownLabels[kind] }, renderers: [renderer],
        name: `${system}:legend-style:${kind}`,
      });
    });
    const legend = model(`${system}:energy:legend`);
    legend.items = [...legend.items, ...items];
  }
  // The energy error on the signed-log axis (its lines draw the error_log column, ticks one
  // decade apart, labelled ±10^k) or on a linear one, as figures.SystemFigures._refresh does.
  function setLogScale(system, log) {
    const axis = model(`${system}:energy:yaxis`);
    const isLog = axis.formatter instanceof Bokeh.Models.get("CustomJSTickFormatter");
    if (isLog !== log) {
      const ticker = newModel("BasicTicker",
        log ? { min_interval: 1, desired_num_ticks: 6 } : {});
      axis.ticker = ticker;
      axis.formatter = log
        ? newModel("CustomJSTickFormatter", { code: data.energyAxis.tickCode })
        : newModel("BasicTickFormatter");
      model(`${system}:energy:ygrid`).ticker = ticker;
    }
    const column = data.energyAxis.columns[log ? "log" : "linear"];
    for (const name of INTEGRATORS) {
      const line = findModel(`${system}:line:error:${name}`);
      if (line && line.glyph.y.field !== column) line.glyph.y = { field: column };
    }
  }

  function applyView() {
    const breakdown = state.energy === "breakdown";
    const chosen = new Set(state.integrators);
    const kinds = (breakdown ? BREAKDOWN : ["error"]).concat(state.phase ? ["phase"] : []);
    for (const system of SYSTEMS) {
      const section = document.querySelector(`.il-panel[data-system="${system}"]`);
      section.hidden = !state.systems.includes(system);
      for (const role of ["scene:ghost-links-renderer", "scene:ghost-bodies-renderer",
                          "phase:exact-renderer"]) {
        model(`${system}:${role}`).visible = state.exact;
      }
      model(`${system}:phase`).visible = state.phase;
      for (const name of state.integrators) {
        ensureLine(system, "error", name); // it carries the legend entry
        for (const kind of kinds) ensureLine(system, kind, name);
      }
      for (const name of INTEGRATORS) {
        for (const kind of ["error", ...BREAKDOWN, "phase"]) {
          const line = findModel(`${system}:line:${kind}:${name}`);
          if (line) line.visible = chosen.has(name) && kinds.includes(kind);
        }
        const item = findModel(`${system}:legend:${name}`);
        if (item) item.visible = chosen.has(name);
      }
      if (breakdown) ensureStyleItems(system);
      for (const kind of BREAKDOWN) {
        const item = findModel(`${system}:legend-style:${kind}`);
        if (item) item.visible = breakdown;
      }
      setLogScale(system, state.log && !breakdown);
      model(`${system}:energy:yaxis`).axis_label = data.energyAxis.labels[state.energy];
      model(`${system}:energy`).height = data.energyAxis.heights[state.energy];
    }
    // the breakdown is in joules on a linear axis: "Log scale" does nothing there
    model("controls:log_scale").disabled = breakdown;
    document.getElementById("il-panels").style.setProperty(
      "--il-columns", String(Math.max(1, state.systems.length)));
    document.body.classList.toggle("il-embed", state.embed);
    for (const system of SYSTEMS) model(`${system}:params`).visible = !state.embed;
  }

  // -- widgets -----------------------------------------------------------------------------
  function setWidgetsFromState() {
    quietly(() => {
      model("controls:integrators").value = state.integrators.slice();
      const play = model("controls:play");
      play.active = state.playing;
      play.label = state.playing ? "Pause" : "Play";
      model("controls:speed").value = state.speed;
      model("controls:show_exact").active = state.exact;
      model("controls:log_scale").active = state.log;
      model("controls:show_phase").active = state.phase;
      model("controls:energy_mode").active = data.energyModes.indexOf(state.energy);
      for (const system of SYSTEMS) {
        model(`${system}:dt`).value = state.dt[system];
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
      play.label = playing ? "Pause" : "Play";
    });
    for (const system of state.systems) {
      const entry = live.systems[system];
      setStatusText(system, entry.simTime, entry.realTimeFactor);
    }
  }

  // A number typed outside a spinner's bounds never reaches its model (BokehJS drops it and
  // the field goes on showing it): check what is typed before BokehJS sees it.
  function guardTyping(widgetName, check, reject) {
    const view = Bokeh.index.query_one((v) => v.model && v.model.name === widgetName);
    const root = view && (view.shadow_el || view.el);
    if (!root) return;
    root.addEventListener("change", (event) => {
      const input = event.target;
      if (!(input instanceof HTMLInputElement) || check(input.value) !== undefined) return;
      event.stopPropagation(); // BokehJS never takes it
      reject(input.value);
      input.value = view.format_value ?? String(view.model.value);
      if ("old_value" in view) view.old_value = input.value;
    }, true);
  }

  function wireWidgets() {
    onChange(model("controls:integrators"), "value", (value) => {
      const names = INTEGRATORS.filter((n) => value.includes(n));
      if (!names.length) {
        message("Choose at least one integrator.");
        quietly(() => { model("controls:integrators").value = state.integrators.slice(); });
        return;
      }
      state.integrators = names;
      saveState();
      applyView();
      send({ type: "integrators", names });
    });
    onChange(model("controls:play"), "active", (active) => {
      setPlaying(active);
      saveState();
      send({ type: "play", value: active });
    });
    model("controls:step").on_event("button_click", () => {
      setPlaying(false);
      saveState();
      send({ type: "step" });
    });
    model("controls:reset").on_event("button_click", () => send({ type: "reset" }));
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

    for (const system of SYSTEMS) {
      let timer = null;
      const restart = () => {
        clearTimeout(timer);
        timer = setTimeout(() => {
          saveState();
          send(Object.assign({ type: "configure", system }, systemSettings(system)));
        }, PARAM_DEBOUNCE_MS);
      };
      guardTyping(`${system}:dt`, (raw) => checkRange(raw, data.dtRange),
        (raw) => refuse(system, DT_DECL, raw, state.dt[system]));
      onChange(model(`${system}:dt`), "value", (value) => {
        const x = checkRange(value, data.dtRange);
        if (x === undefined) {
          refuse(system, DT_DECL, value, state.dt[system]);
          quietly(() => { model(`${system}:dt`).value = state.dt[system]; });
          return;
        }
        state.dt[system] = x;
        restart();
      });
      for (const p of DECL[system].params) {
        if (p.kind !== "choice") {
          guardTyping(`${system}:param:${p.name}`, (raw) => checkParam(p, raw),
            (raw) => refuse(system, p, raw, state.params[system][p.name]));
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

  function copyLink() {
    const link = linkFor(state);
    const done = () => message("Link copied to the clipboard.", "note");
    const fallback = () => message(`Link to this view: ${link}`, "note");
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(link).then(done, fallback);
    } else {
      fallback();
    }
  }

  // -- public API --------------------------------------------------------------------------
  function status() {
    const systems = {};
    for (const system of state.systems) {
      const entry = live.systems[system];
      const integrators = {};
      for (const name of state.integrators) {
        const source = sampleSource(system, name).data;
        const samples = source.t.length;
        const at = entry.diverged[name];
        // the last plotted signed relative energy error (negative: energy lost)
        const errors = source.error || [];
        const energyError = errors.length ? errors[errors.length - 1] : null;
        integrators[name] = { samples, divergedAt: at === undefined ? null : at, energyError };
      }
      systems[system] = {
        simTime: entry.simTime, realTimeFactor: entry.realTimeFactor, received: entry.received,
        integrators, stopped: entry.stopped,
        error: entry.alerts.length ? entry.alerts.join(" ") : null,
      };
    }
    const ready = live.ready && state.systems.every((s) => live.systems[s].frames > 0);
    return { ready, error: live.error, notice: live.notice, running: state.playing,
             framesDrawn: live.framesDrawn, workerTimings: live.workerTimings,
             boot: live.boot ?? null, bootFallback: live.bootFallback ?? null, systems };
  }

  window.integratorLab = {
    status,
    /** the page state (what the URL query holds), as plain data */
    state: () => JSON.parse(JSON.stringify(state)),
    /** a link to this view */
    link: () => linkFor(state),
    /** a copy of the samples the page holds for one integrator: {column: [values]} */
    samples: (system, name) => {
      const data = sampleSource(system, name).data;
      return Object.fromEntries(COLUMNS.map((c) => [c, Array.from(data[c] || [])]));
    },
    /** the Bokeh model called `name` (see integrator_lab.views.figures.model_name) */
    model,
  };

  // -- start -------------------------------------------------------------------------------
  // The dashboard is drawn first and Python boots after: both want the CPU, and a drawn
  // page (with its loading note) is worth more than a worker booting a little earlier.
  // Each document's roots are drawn into elements of their own, laid out by the page's CSS:
  // the controls wrap on narrow screens; a panel's parts (scene, plots, params) stack, or
  // sit side by side where the panel is wide.
  function embedParts(docid, item, elementId) {
    const roots = {};
    for (const [part, id] of Object.entries(item.roots)) roots[id] = elementId(part);
    return Bokeh.embed.embed_items({ [docid]: item.doc },
      [{ docid, roots, root_ids: Object.keys(roots) }]);
  }
  const controls = document.getElementById("il-controls");
  for (const part of Object.keys(data.items.controls.roots)) {
    const box = document.createElement("div");
    box.className = `il-control il-control-${part}`;
    box.id = `il-control-${part}`;
    controls.appendChild(box);
  }
  const embeds = [embedParts("il-controls", data.items.controls, (part) => `il-control-${part}`)];
  for (const system of SYSTEMS) {
    embeds.push(embedParts(`il-${system}`, data.items.panels[system],
      (part) => `il-panel-${system}-${part}`));
  }
  // BokehJS rewrites each renderer's inline style sheet after every paint, even when the text
  // is the same, and every rewrite makes the browser recompute styles (several times a
  // frame). Skipping identical rewrites changes nothing else; if BokehJS's internals ever
  // differ, this does nothing.
  function avoidNeedlessRestyles() {
    const view = Bokeh.index.query_one((v) => v.model && v.model.name === `${SYSTEMS[0]}:scene`);
    let proto = view && view._computed_style ? Object.getPrototypeOf(view._computed_style) : null;
    while (proto && !Object.prototype.hasOwnProperty.call(proto, "_update")) {
      proto = Object.getPrototypeOf(proto);
    }
    if (!proto || proto._integratorLabPatched || !("el" in view._computed_style)) return;
    const update = proto._update;
    proto._update = function (css) {
      if (!this.el || this.el.textContent !== css) update.call(this, css);
    };
    proto._integratorLabPatched = true;
  }

  // Python starts now, beside BokehJS drawing the dashboard: its snapshot's download is I/O,
  // and the worker has its own thread
  startWorker();
  Promise.all(embeds).then(() => {
    try { avoidNeedlessRestyles(); } catch { /* an optimisation only */ }
    setWidgetsFromState();
    applyView();
    wireWidgets();
    saveState();
    bokehReady = true;
    document.documentElement.dataset.drawn = "1";
    performance.mark("il:drawn");
    maybeInit(); // the worker buffers messages until Python is up
  }, (error) => message(`The dashboard could not be drawn: ${error.message}`));
})();
