// Runs in the page for every update of the Panel dashboard (a Bokeh CustomJS module on the
// carrier's `tags`): unpacks the carrier's array into the sources, then acknowledges.
// The array's layout is SystemRun.frame's (integrator_lab.views.live); the metadata in
// tags[0] says where each system's part starts and how long its pieces are. Changes made
// here stay in the page ({sync: false}): the server has the data already.

// [role of a scene source, its columns], in the order the frame holds them
const ROLES = [["bodies", ["x", "y"]], ["links", ["x0", "y0", "x1", "y1"]],
  ["ghost_bodies", ["x", "y"]], ["ghost_links", ["x0", "y0", "x1", "y1"]]];

export default function applyFrames({echo, rollover, columns, integrators}, carrier) {
  const meta = carrier.tags.length ? JSON.parse(carrier.tags[0]) : null;
  const array = carrier.data.buf;
  if (!meta || !array || array[0] !== meta.seq) return;
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
    ROLES.forEach(([role, cols], k) => {
      const n = s.counts[k];
      const source = doc.get_model_by_name(`${s.name}:scene:${role}`);
      if (!s.moved || !source) {
        at += n * cols.length;
        return;
      }
      const data = Object.assign({}, source.data);
      for (const c of cols) data[c] = take(n).slice();
      source.setv({data}, quiet);
    });
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
  }
  if (meta.ack) echo.tags = [meta.seq];
}
