// Runs in the page for every update of the Panel dashboard (a Bokeh CustomJS module on the
// carrier's `tags`): unpacks the carrier's array into the sources, then acknowledges.
// The array's layout is SystemRun.frame's (integrator_lab.views.live), handed over as
// `layout` (views.shared.frame_layout: the scene's roles and columns in buffer order, then
// each integrator's sample columns); the metadata in tags[0] says where each system's part
// starts and how many rows each role and lane has. Changes made here stay in the page
// ({sync: false}): the server has the data already.

export default function applyFrames({echo, rollover, layout, integrators, marks}, carrier) {
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
  for (const s of meta.systems) {
    let at = s.offset;
    const take = (n) => {
      const part = buf.subarray(at, at + n);
      at += n;
      return part;
    };
    for (const [role, cols] of layout.scene) {
      const n = s.counts[role];
      const source = doc.get_model_by_name(`${s.name}:scene:${role}`);
      if (!s.moved || !source) {
        at += n * cols.length;
        continue;
      }
      const data = Object.assign({}, source.data);
      for (const c of cols) data[c] = take(n).slice();
      source.setv({data}, quiet);
    }
    if (s.fresh) { // integrators no longer running keep no samples
      const running = new Set(s.lanes.map(([name]) => name));
      for (const name of integrators) {
        const source = doc.get_model_by_name(`${s.name}:samples:${name}`);
        if (source && !running.has(name) && source.get_length()) {
          source.setv({data: Object.fromEntries(columns.map((c) => [c, []]))}, quiet);
        }
      }
    }
    for (const [name, count] of s.lanes) {
      const source = doc.get_model_by_name(`${s.name}:samples:${name}`);
      const data = {};
      for (const c of columns) data[c] = Array.from(take(count));
      if (!source) continue;
      if (s.fresh) source.setv({data}, quiet);
      else if (count) source.stream(data, rollover, quiet);
    }
    showEnergyView(doc, s.name, s.energy, marks, quiet);
  }
  if (meta.ack) acknowledge(echo, meta.seq);
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

// The energy plot's y-range and the marks of the methods clipped at its edge, as the
// server's views.energy decided them for the mode on view (SystemFigures.energy_view_for_page)
function showEnergyView(doc, system, view, marksShape, quiet) {
  if (!view) return;
  const range = doc.get_model_by_name(`${system}:energy:y`);
  const [start, end] = view.range;
  // a range the user zoomed or panned stays until the reset tool (back to the last range
  // set here) or another mode
  const last = range ? range.tags[0] : null;
  const mine = range && (!last || last.mode !== view.mode ||
    (range.start === last.start && range.end === last.end));
  if (mine && (range.start !== start || range.end !== end)) {
    range.setv({start, end, reset_start: start, reset_end: end}, quiet);
  }
  if (mine) range.setv({tags: [{mode: view.mode, start, end}]}, quiet);
  const bars = doc.get_model_by_name(`${system}:scene:energy-bars`);
  if (bars && view.bars) bars.setv({data: view.bars}, quiet); // E/E0 beside each lane
  const marks = doc.get_model_by_name(`${system}:energy:clipped`);
  if (marks && (view.clipped.t.length || marks.data.name.some((name) => name))) {
    marks.setv({data: padded(view.clipped, marksShape)}, quiet);
  }
}

// The clipped marks filled up with blank rows to a fixed count (energy_figures.MARK_ROWS:
// a source that changes length at the frame rate breaks BokehJS's colour-by-column text)
function padded(columns, {rows, blank}) {
  const missing = Math.max(0, rows - columns.t.length);
  return Object.fromEntries(Object.keys(blank).map((c) => [c,
    [...columns[c], ...Array(missing).fill(blank[c] === null ? NaN : blank[c])]]));
}
