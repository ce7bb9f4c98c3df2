// Integrator Lab: the simulation worker's own globals (static/worker.mjs), for
// `tsc -p static/tsconfig.worker.json` (types only). Pyodide is declared as little as the
// worker uses of it: Python objects (PyProxy) stay untyped.

/** A Python object seen from JavaScript: its attributes are Python's. */
type PyProxy = any;

/** What static/worker.mjs uses of Pyodide's API (pyodide.mjs loadPyodide). */
interface PyodideAPI {
  runPython(code: string): PyProxy;
  toPy(value: unknown): PyProxy;
  pyimport(name: string): PyProxy;
  unpackArchive(
    buffer: ArrayBuffer | Uint8Array,
    format: string,
    options?: { extractDir?: string },
  ): void;
  globals: { get(name: string): PyProxy };
  FS: { writeFile(path: string, data: Uint8Array | string): void };
}

/** Python, once booted (static/worker.mjs sets it). */
declare var pyodide: PyodideAPI;
/** The whole standard library's URL, for a user's method (web/views/stdlib_guard.py). */
declare var integratorLabFullStdlib: string;

/** The Network Information API, where a browser has it (Chromium). */
interface WorkerNavigator {
  readonly connection?: { readonly saveData: boolean; readonly effectiveType: string };
}
