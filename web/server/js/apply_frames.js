// Runs in the page for every update of the Panel dashboard (a Bokeh CustomJS module on the
// carrier's `tags`): unpacks the carrier's array into the sources, then acknowledges.
// The array's layout is SystemRun.frame's (integrator_lab.views.live), handed over as
// `layout` (views.shared.frame_layout: the scene's roles and columns in buffer order, then
// each integrator's sample columns); the metadata in tags[0] says where each system's part
// starts and how many rows each role and lane has. Changes made here stay in the page
// ({sync: false}): the server has the data already. The energy view is applied by the static
// page's static/js/energyview.js (applyEnergyView), which web/server/page.py puts before this
// file in the same module.
/* global applyEnergyBars, applyEnergyView */

export default function applyFrames({echo, rollover, interval, layout, integrators, marks},
  carrier) {
  const columns = layout.samples;
  const meta = carrier.tags.length ? JSON.parse(carrier.tags[0]) : null;
  const array = carrier.data.buf;
  if (!meta || !array || array[0] !== meta.seq) return;
  // each update is applied once: BokehJS may report the same tags again (a streamed frame
  // applied twice would draw its samples twice, out of order)
  if (meta.seq <= (carrier.appliedSeq ?? 0)) return;
  carrier.appliedSeq = meta.seq;
  // a plain view: slicing Bokeh's own array type would call its constructor
  const buf = new Float64Array(array.buffer, array.byteOffset, array.length);
  const doc = carrier.document;
  const quiet = {sync: false};
  const find = (name) => doc.get_model_by_name(name);
  // samples and energy views waiting for their system's next flush (as the static page's
  // frames.js: the plots take them every `interval` ms, the scene moves at every update)
  const waiting = carrier.waiting ?? (carrier.waiting = {});
  for (const s of meta.systems) {
    let at = s.offset;
    const take = (n) => {
      const part = buf.subarray(at, at + n);
      at += n;
      return part;
    };
    for (const [role, cols] of layout.scene) {
      const n = s.counts[role];
      const source = find(`${s.name}:scene:${role}`);
      if (!s.moved || !source) {
        at += n * cols.length;
        continue;
      }
      const data = Object.assign({}, source.data);
      for (const c of cols) data[c] = take(n).slice();
      source.setv({data}, quiet);
    }
    const wait = waiting[s.name] ?? (waiting[s.name] = {samples: {}, view: null, flushed: 0});
    if (s.fresh) { // integrators no longer running keep no samples
      wait.samples = {};
      const running = new Set(s.lanes.map(([name]) => name));
      for (const name of integrators) {
        const source = find(`${s.name}:samples:${name}`);
        if (source && !running.has(name) && source.get_length()) {
          source.setv({data: Object.fromEntries(columns.map((c) => [c, []]))}, quiet);
        }
      }
    }
    for (const [name, count] of s.lanes) {
      const source = find(`${s.name}:samples:${name}`);
      if (!source) {
        at += count * columns.length;
        continue;
      }
      if (s.fresh) {
        const data = {};
        for (const c of columns) data[c] = Array.from(take(count));
        source.setv({data}, quiet);
      } else if (count) {
        const kept = wait.samples[name] ??
          (wait.samples[name] = Object.fromEntries(columns.map((c) => [c, []])));
        for (const c of columns) kept[c].push(...take(count));
      }
    }
    // the energy plot's y-range and clipped marks, as the server's views.energy decided them
    // for the mode on view (SystemFigures.energy_view_for_page): the static page's code.
    // The bars beside the lanes are in the scene and go with it
    if (s.energy) {
      wait.view = s.energy;
      applyEnergyBars(find, s.name, s.energy, quiet);
    }
    if (s.fresh) flushSystem(find, s.name, wait, rollover, marks, quiet);
  }
  // the oldest system due (one per update, as the page paints one frame per update), and
  // any overdue (updates farther apart than `interval`); all at once when paused (a step)
  const now = performance.now();
  const due = Object.entries(waiting)
    .filter(([, w]) => (w.view || Object.keys(w.samples).length) &&
      (!meta.playing || now - w.flushed >= interval))
    .sort(([, a], [, b]) => a.flushed - b.flushed);
  due.forEach(([name, w], i) => {
    if (i === 0 || !meta.playing || now - w.flushed >= 2 * interval) {
      flushSystem(find, name, w, rollover, marks, quiet);
    }
  });
  // what still waits is shown when no update comes for a while (the run paused or stopped)
  clearTimeout(carrier.flushTimer);
  if (Object.values(waiting).some((w) => w.view || Object.keys(w.samples).length)) {
    carrier.flushTimer = setTimeout(() => {
      for (const [name, w] of Object.entries(waiting)) {
        flushSystem(find, name, w, rollover, marks, quiet);
      }
    }, 2 * interval);
  }
  if (meta.ack) acknowledge(echo, meta.seq);
}

// A system's waiting samples streamed into its plots, and its latest energy view applied.
function flushSystem(find, system, wait, rollover, marks, quiet) {
  for (const [name, data] of Object.entries(wait.samples)) {
    const source = find(`${system}:samples:${name}`);
    if (source && data[Object.keys(data)[0]].length) source.stream(data, rollover, quiet);
  }
  wait.samples = {};
  if (wait.view) applyEnergyView(find, system, wait.view, marks, quiet);
  wait.view = null;
  wait.flushed = performance.now();
}

// Acknowledged once painted (the task after the next animation frame), not when applied: a
// browser that paints slower than the updates come gets fewer of them, each carrying more
// samples, and stays free to answer its visitor. A hidden tab paints nothing and runs no
// animation frame: it acknowledges at once (else the server would take it for a stalled
// client and end its session), and a tab hidden after the frame was asked for does within a
// second.
function acknowledge(echo, seq) {
  let sent = false;
  const send = () => {
    if (sent) return;
    sent = true;
    if ((echo.tags[0] ?? 0) < seq) echo.tags = [seq];
  };
  if (document.hidden) {
    send();
    return;
  }
  requestAnimationFrame(() => setTimeout(send, 0));
  setTimeout(send, 1000);
}
