// Integrator Lab, one-file build: the wrapper of the data: URL worker (web/site/single_file.py).
//
// The site's static/worker.mjs goes in place of the marker line below. Before it: files that
// the page posts are kept in memory, fetch answers from them, and Pyodide's modules are
// imported from Blob URLs; after it: the page messages that arrived meanwhile are handed on.
// The builder fills in the placeholders (the names between double underscores).
const __ilQueued = []; // page messages that arrive before worker.mjs listens
let __ilResolveFiles;
const __ilFilesReady = new Promise((resolve) => { __ilResolveFiles = resolve; });
function __ilCapture(event) {
  const data = event.data;
  if (data && data.__FILES_KEY__) __ilResolveFiles(data.__FILES_KEY__);
  else __ilQueued.push(data);
}
self.addEventListener("message", __ilCapture);

function __ilDecode(text) {
  if (Uint8Array.fromBase64) return Uint8Array.fromBase64(text);
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
const __ilFiles = new Map(); // file name -> {bytes, gzip}
for (const file of await __ilFilesReady) {
  __ilFiles.set(file.name, { bytes: __ilDecode(file.base64), gzip: file.gzip });
}
const __ilTypes = { wasm: "application/wasm", mjs: "text/javascript", js: "text/javascript",
                    json: "application/json", zip: "application/zip" };
function __ilBody(name) {
  const file = __ilFiles.get(name);
  const blob = new Blob([file.bytes]);
  return file.gzip ? blob.stream().pipeThrough(new DecompressionStream("gzip")) : blob;
}
function __ilResponse(name) {
  const type = __ilTypes[name.split(".").pop()] || "application/octet-stream";
  return new Response(__ilBody(name), { status: 200, headers: { "Content-Type": type } });
}
function __ilName(resource) {
  const url = typeof resource === "string" ? resource : resource instanceof URL ? resource.href
    : resource.url;
  return url.split(/[?#]/)[0].split("/").pop();
}
// every fetch of this worker is answered from memory: nothing leaves the page
self.fetch = async (resource) => {
  const name = __ilName(resource);
  if (!__ilFiles.has(name)) throw new TypeError(`one-file build: no embedded file ${name}`);
  return __ilResponse(name);
};
async function __ilModuleURL(name) {
  const text = await __ilResponse(name).text();
  return URL.createObjectURL(new Blob([text], { type: "text/javascript" }));
}
const __ilPyodide = await import(await __ilModuleURL("pyodide.mjs"));
const __ilAsm = await import(await __ilModuleURL("pyodide.asm.mjs"));
const __ilLock = await __ilResponse("pyodide-lock.json").text();
// eslint-disable-next-line no-unused-vars -- called by worker.mjs (inserted below)
function __ilLoadPyodide(options) {
  return __ilPyodide.loadPyodide(Object.assign({}, options, {
    createPyodideModule: __ilAsm.default,
    lockFileContents: __ilLock,
    packageBaseUrl: new URL("../pyodide/", "__WORKER_BASE__").href,
  }));
}
// ---- the site's worker.mjs goes here ----
// ---- end of worker.mjs: hand it what arrived while the prelude was loading ----
self.removeEventListener("message", __ilCapture);
for (const data of __ilQueued.splice(0)) self.dispatchEvent(new MessageEvent("message", { data }));
