// Run one Python program inside Pyodide under Node, offline.
//
// Usage: node pyodide_runner.mjs JOB.json
//
// JOB.json (written by integrator_lab.site.pyodide_node) holds:
//   pyodideDir  directory of the npm package "pyodide" (pyodide.mjs, the wasm, the stdlib zip)
//   archives    [{path, format}]: zips or wheels unpacked into site-packages, in order
//   trees       [{from, to}]: host directories copied into the Pyodide file system
//   code        the Python source to run as __main__; filename names it in tracebacks
//   argv        sys.argv[1:]; cwd: working directory inside Pyodide; env: environment
// Python's stdout and stderr are forwarded byte for byte; the process exits with the
// program's exit status (SystemExit is honoured, an uncaught exception gives 1).

import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const RUN_MAIN = `
def _integrator_lab_run_main(source, filename, argv):
    import sys, traceback
    sys.argv = [filename, *argv]
    namespace = {"__name__": "__main__", "__file__": filename, "__builtins__": __builtins__}
    try:
        exec(compile(source, filename, "exec"), namespace)
    except SystemExit as exc:
        code = exc.code
        if code is None:
            status = 0
        elif isinstance(code, int):
            status = code
        else:
            print(code, file=sys.stderr)
            status = 1
    except BaseException as exc:
        # Drop this wrapper's own frame from the traceback.
        traceback.print_exception(exc.with_traceback(exc.__traceback__.tb_next))
        status = 1
    else:
        status = 0
    sys.stdout.flush()
    sys.stderr.flush()
    return status
_integrator_lab_run_main
`;

function writer(stream) {
  // Copy the bytes: Pyodide may reuse its buffer once the handler returns.
  return { write: (bytes) => { stream.write(Buffer.from(bytes)); return bytes.length; } };
}

function copyTree(FS, from, to) {
  FS.mkdirTree(to);
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    if (entry.name === "__pycache__" || entry.name.endsWith(".pyc")) continue;
    const source = join(from, entry.name);
    const target = `${to}/${entry.name}`;
    if (entry.isDirectory()) copyTree(FS, source, target);
    else if (entry.isFile()) FS.writeFile(target, new Uint8Array(readFileSync(source)));
  }
}

async function main() {
  if (process.argv.length !== 3) {
    process.stderr.write("usage: node pyodide_runner.mjs JOB.json\n");
    return 2;
  }
  const job = JSON.parse(readFileSync(process.argv[2], "utf8"));
  const { loadPyodide } = await import(pathToFileURL(join(job.pyodideDir, "pyodide.mjs")).href);
  const pyodide = await loadPyodide({
    indexURL: job.pyodideDir.endsWith("/") ? job.pyodideDir : job.pyodideDir + "/",
    env: { ...(job.env ?? {}) }, // HOME stays Pyodide's own
  });
  pyodide.setStdout(writer(process.stdout));
  pyodide.setStderr(writer(process.stderr));
  pyodide.setStdin({ stdin: () => null }); // end of file: nothing is ever read interactively

  const sitePackages = pyodide.runPython("import site; site.getsitepackages()[0]");
  for (const archive of job.archives ?? []) {
    const bytes = new Uint8Array(readFileSync(archive.path));
    pyodide.unpackArchive(bytes, archive.format, { extractDir: sitePackages });
  }
  for (const tree of job.trees ?? []) copyTree(pyodide.FS, tree.from, tree.to);
  if (job.cwd) {
    pyodide.FS.mkdirTree(job.cwd);
    pyodide.FS.chdir(job.cwd);
  }
  pyodide.runPython("import importlib; importlib.invalidate_caches()");

  const runMain = pyodide.runPython(RUN_MAIN);
  const argv = pyodide.toPy(job.argv ?? []);
  try {
    return runMain(job.code, job.filename ?? "<pyodide>", argv);
  } finally {
    argv.destroy();
    runMain.destroy();
  }
}

main().then(
  (status) => { process.exitCode = status; },
  (error) => {
    process.stderr.write(`pyodide_runner: ${error?.stack ?? error}\n`);
    process.exitCode = 70; // the harness itself failed, not the Python program
  },
);
