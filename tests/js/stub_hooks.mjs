// Node module hooks (module.register): the page modules static/js/frames.js imports resolve
// to page_stub.mjs, so that frames.js itself runs under Node with no DOM and no BokehJS.
const STUB = new URL("./page_stub.mjs", import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  if (context.parentURL?.endsWith("/static/js/frames.js") && specifier.startsWith("./")) {
    return { url: STUB, shortCircuit: true };
  }
  return nextResolve(specifier, context);
}
