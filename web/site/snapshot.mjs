// Integrator Lab: make the static page's Pyodide memory snapshot (run by web/site/snapshot.py).
//
//   node snapshot.mjs PYODIDE_DIR CORE_ZIP PYTHON_CODE OUT
//
// Boots the pinned Pyodide with snapshotting on, unpacks the core archive into site-packages,
// runs PYTHON_CODE (imports the core and builds the worker's live-loop object, kept in a Python
// global) and writes the memory snapshot, raw, to OUT. The worker loads it with
// loadPyodide({_loadSnapshot}) and finds its objects ready. Pyodide marks the API experimental:
// the page keeps a plain boot as fallback, and the snapshot records the Pyodide version.

import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [pyodideDir, zipPath, code, out] = process.argv.slice(2);
const base = pyodideDir.endsWith("/") ? pyodideDir : `${pyodideDir}/`;
const { loadPyodide } = await import(pathToFileURL(`${base}pyodide.mjs`).href);
const pyodide = await loadPyodide({ indexURL: base, packages: [], _makeSnapshot: true });
const sitePackages = pyodide.runPython("import site; site.getsitepackages()[0]");
// Node's Buffer is refused by unpackArchive: a plain Uint8Array over the same bytes
pyodide.unpackArchive(new Uint8Array(readFileSync(zipPath)), "zip", { extractDir: sitePackages });
pyodide.runPython(code);
writeFileSync(out, pyodide.makeMemorySnapshot());
