// Runs in the page for every update of the Panel dashboard (a Bokeh CustomJS module on the
// carrier's `tags`): unpacks the carrier's array into the sources, then acknowledges.
// The array's layout is SystemRun.frame's (integrator_lab.views.live), handed over as
// `layout` (views.shared.frame_layout: the scene's roles and columns in buffer order, then
// each integrator's sample columns); the metadata in tags[0] says where each system's part
// starts and how many rows each role and lane has. Changes made here stay in the page
// ({sync: false}): the server has the data already. The energy view is applied by the static
// page's static/js/energyview.js (applyEnergyView), which web/server/page.py puts before this
// file in the same module.
/* global applyEnergyView */

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
    // the energy plot's y-range and clipped marks, as the server's views.energy decided them
    // for the mode on view (SystemFigures.energy_view_for_page): the static page's code
    applyEnergyView((name) => doc.get_model_by_name(name), s.name, s.energy, marks, quiet);
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
