// Integrator Lab: the service worker that keeps the page for a second visit and for a visit with
// no network. Written at the site's root by the build (web/site/build.py), which fills in the
// build's files; the page registers it once Python is up (static/js/offline.js) and tells it
// which files the visit used ("keep"): those, and only those, are cached (the browser's HTTP
// cache usually has them already, so keeping them costs no download). The scripts every visit
// runs (the page's and Pyodide's JavaScript) are kept first, as it installs: Chromium compiles
// a script put in the cache during the install event at once and keeps the compiled code (V8's
// code cache) beside it, so the second visit runs it without parsing and compiling it again;
// kept later, its code is cached at its first run from the cache, and only the third visit
// gains (a cold load and a visit from its cache, eight of each build, in turns, medians: the
// second visit drawn in 0.94 s instead of 1.09, Python ready in 1.89 s instead of 2.09). Then:
//
// - the page itself (index.html) goes to the network first, and comes from the cache when
//   there is none (offline);
// - every other file of the build is read from the cache once there: most names carry a
//   content hash (bokeh/bokeh.HASH.min.js, pyodide/HASH/..., py/NAME.HASH...,
//   static/NAME.HASH.js, static/worker.HASH.mjs), so they never change;
// - a new build is a new service worker (the browser installs one whose script's bytes differ:
//   the build writes the digest of its files' names and contents below, so that a build that
//   changed only a file without a hash in its name differs too): once active it drops every
//   cached file the new build does not have, and those without a hash (the icon, the editor's
//   bundle), which it may have changed.
//
// The build's digest (its files' names and contents): {{BUILD}}

"use strict";

const FILES = new Set(/* {{FILES}} */ []); // the build's files, relative to the site's root
const SCRIPTS = /* {{SCRIPTS}} */ []; // of those, the scripts every visit runs
const CACHE = "integrator-lab"; // static/worker.mjs looks in it too
const scope = self.registration.scope;
const INDEX = new URL("index.html", scope).href;
const HASHED = /\.[0-9a-f]{12}\.|(^|\/)[0-9a-f]{12}\//;

self.addEventListener("install", (event) => {
  self.skipWaiting();
  event.waitUntil(keep(SCRIPTS.map((path) => scope + path)));
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith(CACHE) && name !== CACHE) await caches.delete(name);
    }
    const cache = await caches.open(CACHE);
    for (const request of await cache.keys()) {
      const path = request.url.slice(scope.length);
      if (request.url !== INDEX && !(FILES.has(path) && HASHED.test(path))) {
        await cache.delete(request);
      }
    }
    await self.clients.claim();
  })());
});

/** The cache's key for `url` (the page: index.html, whatever its query), or null for a URL
 * that is not one of this build's files. */
function keyOf(url) {
  if (!url.startsWith(scope)) return null;
  const path = url.slice(scope.length).split(/[?#]/)[0];
  if (path === "" || path === "index.html") return INDEX;
  return FILES.has(path) ? scope + path : null;
}

self.addEventListener("message", (event) => {
  if (event.data?.type !== "keep") return;
  const reply = event.ports[0];
  event.waitUntil(keep(event.data.urls).then((count) => reply?.postMessage({ kept: count })));
});

/** Cache the files of `urls` not cached yet, from the browser's HTTP cache where it can. */
async function keep(urls) {
  const cache = await caches.open(CACHE);
  let count = 0;
  for (const url of new Set(urls)) {
    const key = keyOf(url);
    if (!key) continue;
    if (await cache.match(key)) {
      count += 1;
      continue;
    }
    try {
      const response = await fetch(key === INDEX ? url : key, { cache: "force-cache" });
      if (response.ok) {
        await cache.put(key, response);
        count += 1;
      }
    } catch {
      // not kept: the next visit fetches it
    }
  }
  return count;
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const key = request.mode === "navigate" ? INDEX : keyOf(request.url);
  if (!key) return; // not this build's: the network, as without a service worker
  event.respondWith(key === INDEX ? networkFirst(request, key) : cacheFirst(request, key));
});

async function cacheFirst(request, key) {
  const cache = await caches.open(CACHE);
  const hit = await cache.match(key);
  if (hit) return hit;
  const response = await fetch(request);
  if (response.ok) cache.put(key, response.clone());
  return response;
}

async function networkFirst(request, key) {
  const cache = await caches.open(CACHE);
  try {
    const response = await fetch(request);
    if (response.ok) cache.put(key, response.clone());
    return response;
  } catch (error) {
    const hit = await cache.match(key);
    if (hit) return hit;
    throw error;
  }
}
