// Integrator Lab: start Python for the simulation worker, fast.
//
// The build freezes Pyodide's memory after the core is imported and the live loop is built
// (web/site/snapshot.py); booting from that snapshot takes a fraction of a second where a plain
// boot takes seconds. The snapshot API is experimental, so every doubt means a plain boot: no
// snapshot in the build, another Pyodide version, a failed fetch, corrupt bytes, a failed load.
// Those are worth an informational console line, never an error.
//
//   boot({indexURL, archiveURL, snapshot: {url, pyodide, global} | null, bootCode, progress})
//     -> {pyodide, live (a PyProxy), path: "snapshot" | "plain", fallback: reason | null}

import { loadPyodide, version } from "../pyodide/pyodide.mjs";

const GZIP_MAGIC = [0x1f, 0x8b];

/** The snapshot's bytes, or a reason why there are none (never throws). */
export async function fetchSnapshot(snapshot, base) {
  if (!snapshot?.url) return { reason: "this build has no snapshot" };
  if (snapshot.pyodide !== version) {
    return { reason: `the snapshot was made with Pyodide ${snapshot.pyodide}, this is ${version}` };
  }
  try {
    const response = await fetch(new URL(snapshot.url, base));
    if (!response.ok) return { reason: `${snapshot.url}: HTTP ${response.status}` };
    let bytes = new Uint8Array(await response.arrayBuffer());
    // a host that sends the file with Content-Encoding: gzip has decompressed it already
    if (bytes[0] === GZIP_MAGIC[0] && bytes[1] === GZIP_MAGIC[1]) {
      const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
      bytes = new Uint8Array(await new Response(stream).arrayBuffer());
    }
    return { bytes };
  } catch (error) {
    // a truncated or corrupt file fails gzip's check here
    return { reason: `${snapshot.url}: ${error?.message ?? error}` };
  }
}

async function fetchArchive(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`cannot load ${new URL(url).pathname}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

export async function boot({ indexURL, archiveURL, snapshot, bootCode, progress = () => {} }) {
  // both downloads start at once; neither needs the other
  const archive = fetchArchive(archiveURL);
  archive.catch(() => {}); // awaited below; not an unhandled rejection meanwhile
  const frozen = await fetchSnapshot(snapshot, indexURL);
  let pyodide = null;
  let fallback = frozen.reason ?? null;
  if (frozen.bytes) {
    try {
      pyodide = await loadPyodide({ indexURL, packages: [], _loadSnapshot: frozen.bytes });
    } catch (error) {
      fallback = `the snapshot did not load: ${error?.message ?? error}`;
    }
  }
  if (!pyodide) {
    console.info(`Integrator Lab: booting Python without the snapshot (${fallback})`);
    progress("Loading Python (Pyodide)…");
    pyodide = await loadPyodide({ indexURL, packages: [] });
  }
  progress("Loading the physics core…");
  // the snapshot holds the imported modules, not the files: unpack them in both cases, for a
  // module imported later
  const sitePackages = pyodide.runPython("import site; site.getsitepackages()[0]");
  pyodide.unpackArchive(await archive, "zip", { extractDir: sitePackages });
  const path = fallback === null ? "snapshot" : "plain";
  if (path === "plain") pyodide.runPython(bootCode);
  const live = pyodide.globals.get(snapshot?.global ?? "integrator_lab_live");
  return { pyodide, live, path, fallback };
}
