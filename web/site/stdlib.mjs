// Integrator Lab: which files of Python's standard library the page's worker uses (run by
// web/site/stdlib.py).
//
//   node stdlib.mjs PYODIDE_DIR CORE_ZIP PYTHON_CODE OUT
//
// Boots the pinned Pyodide with its whole standard library, unpacks the core archive as the
// worker does, runs PYTHON_CODE (the worker's boot, and the imports users' methods may make),
// lets a Python error cross into JavaScript (Pyodide formats it with the traceback module), and
// writes, as JSON, the standard library's files that are then imported (paths relative to the
// standard library's folder, which are the names in python_stdlib.zip), less the frozen ones.

import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [pyodideDir, zipPath, code, out] = process.argv.slice(2);
const base = pyodideDir.endsWith("/") ? pyodideDir : `${pyodideDir}/`;
const { loadPyodide } = await import(pathToFileURL(`${base}pyodide.mjs`).href);
const pyodide = await loadPyodide({ indexURL: base, packages: [] });
const sitePackages = pyodide.runPython("import site; site.getsitepackages()[0]");
pyodide.unpackArchive(new Uint8Array(readFileSync(zipPath)), "zip", { extractDir: sitePackages });
pyodide.runPython(code);
try {
  pyodide.runPython("raise ValueError('an error the worker reports')");
} catch {
  // expected: what matters is what formatting it imported
}
const files = pyodide.runPython(`
import json, os, sys
root = os.path.dirname(os.__file__) + "/"
used = set()
for module in list(sys.modules.values()):
    # a frozen module (os, io, codecs, importlib's bootstrap, ...) comes with the interpreter:
    # its file, though named in __file__, is never read
    if getattr(getattr(module, "__spec__", None), "origin", None) == "frozen":
        continue
    path = getattr(module, "__file__", None) or ""
    if path.startswith(root) and not path.startswith(root + "site-packages/"):
        used.add(path[len(root):])
json.dumps(sorted(used))
`);
writeFileSync(out, files);
