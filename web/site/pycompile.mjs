// Integrator Lab: the page's trimmed standard library as bytecode (run by web/site/stdlib.py).
//
//   node pycompile.mjs PYODIDE_DIR IN_ZIP OUT_ZIP
//
// Boots the pinned Pyodide (its CPython is the one that will read the bytecode: the host's
// Python may be another version) and writes OUT_ZIP: IN_ZIP with each module's source
// replaced by its bytecode (NAME.pyc beside where NAME.py was, which zipimport reads before a
// source), compiled without docstrings and asserts (optimize=2) and stamped with an unchecked
// source hash (no source is shipped to check it against). Python then imports the library
// without compiling it, which is most of a boot without the snapshot.

import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [pyodideDir, inZip, outZip] = process.argv.slice(2);
const base = pyodideDir.endsWith("/") ? pyodideDir : `${pyodideDir}/`;
const { loadPyodide } = await import(pathToFileURL(`${base}pyodide.mjs`).href);
const pyodide = await loadPyodide({ indexURL: base, packages: [] });
pyodide.FS.writeFile("/tmp/in.zip", new Uint8Array(readFileSync(inZip)));
pyodide.runPython(`
import importlib.util, os, zipfile
from importlib._bootstrap_external import _code_to_hash_pyc

# where the library's modules say they come from: the folder Pyodide mounts the zip as
root = os.path.dirname(os.__file__)
with zipfile.ZipFile("/tmp/in.zip") as src, zipfile.ZipFile("/tmp/out.zip", "w") as out:
    for info in src.infolist():
        data = src.read(info)
        if info.filename.endswith(".py"):
            code = compile(data, f"{root}/{info.filename}", "exec", dont_inherit=True, optimize=2)
            data = bytes(_code_to_hash_pyc(code, importlib.util.source_hash(data), False))
            info = zipfile.ZipInfo(info.filename + "c", info.date_time)
        info.compress_type = zipfile.ZIP_DEFLATED
        out.writestr(info, data)
`);
writeFileSync(outZip, pyodide.FS.readFile("/tmp/out.zip"));
