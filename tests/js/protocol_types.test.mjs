// The worker protocol's types (static/types/protocol.d.ts) catch a wrong message: a copy of
// the checked files (static/tsconfig.json: the page; static/tsconfig.worker.json: the worker)
// with a mistake planted in each of their ends, a misspelt message type sent or handled and a
// message sent without one of its fields, fails `tsc` at every one of them. `make lint` runs
// tsc on the files themselves. Run by `node --test tests/js/` (make check, make test).

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const TSC = join(ROOT, "node_modules/.bin/tsc");

// [file under static/, the code as it is, the mistake, what tsc says (TS2820: "did you mean")]
const PLANTS = {
  "tsconfig.json": [
    ["js/worker.js", 'worker.postMessage({ type: "ack" })',
      'worker.postMessage({ type: "akc" })', "TS2322|TS2820"],
    ["js/worker.js", '({ type: "handoff", frame, then })',
      '({ type: "handoff", frame })', "TS2345"],
    ["js/worker.js", 'case "boot-error":', 'case "boot-eror":', "TS2678"],
    ["start.js", 'type: "boot", boot, bake, controlled, watch: channel.port2',
      'type: "boot", boot, bake, controlled', "TS2345"],
  ],
  "tsconfig.worker.json": [
    ["worker-boot.mjs", 'post({ type: "boot-error", file, detail, step })',
      'post({ type: "booterror", file, detail, step })', "TS2322|TS2820"],
    // (the engine's answers are Python's, checked by tests/views/test_engine.py; what the
    // worker says itself is typed)
    ["worker.mjs", 'post({ type: "fetched", urls: performance',
      'post({ type: "fetch", urls: performance', "TS2322|TS2820"],
    ["worker.mjs", 'if (message.type === "handoff") timings.handoff',
      'if (message.type === "handof") timings.handoff', "TS2367"],
  ],
};

/** tsc's diagnostics for `config` in `dir`, as "file(line,col): error TSnnnn: ..." lines. */
async function tsc(dir, config) {
  try {
    await promisify(execFile)(TSC, ["-p", join(dir, config), "--pretty", "false"],
      { cwd: dir, encoding: "utf8" });
    return [];
  } catch (error) {
    if (typeof error.stdout !== "string" || error.code !== 2) throw error;
    return error.stdout.split("\n").filter((line) => /error TS\d+/.test(line));
  }
}

test("tsc fails on every message mistake planted in a copy of the checked files", async () => {
  assert.ok(existsSync(TSC), `no ${TSC}: npm ci`);
  const dir = mkdtempSync(join(tmpdir(), "il-protocol-types-"));
  try {
    cpSync(join(ROOT, "static"), dir, {
      recursive: true,
      filter: (src) => !src.includes("node_modules") && !src.endsWith(".css"),
    });
    const where = {}; // config -> [file, line, code] of each mistake
    for (const [config, plants] of Object.entries(PLANTS)) {
      where[config] = [];
      for (const [file, code, mistake, expected] of plants) {
        const path = join(dir, file);
        const text = readFileSync(path, "utf8");
        const at = text.indexOf(code);
        assert.ok(at >= 0 && text.indexOf(code, at + 1) < 0,
          `static/${file}: expected ${JSON.stringify(code)} once (update this test)`);
        writeFileSync(path, text.slice(0, at) + mistake + text.slice(at + code.length));
        where[config].push([file, text.slice(0, at).split("\n").length, expected]);
      }
    }
    const configs = Object.keys(PLANTS);
    const reports = await Promise.all(configs.map((config) => tsc(dir, config)));
    configs.forEach((config, i) => {
      for (const [file, line, expected] of where[config]) {
        const found = reports[i].some((report) => report.startsWith(`${file}(${line},`) &&
          expected.split("|").some((code) => report.includes(`error ${code}:`)));
        assert.ok(found, `${config}: no ${expected} at static/${file}:${line}; tsc said:\n` +
          reports[i].join("\n"));
      }
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
