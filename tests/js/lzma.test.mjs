// The worker's .lzma decoder (static/worker-lzma.mjs) on files liblzma wrote (Python's lzma
// module, the site build's packer: tests/js/lzma_cases.py): every file unpacks to its very
// bytes, however its bytes arrive (whole, byte by byte, in uneven chunks, as a stream), with
// the size in the header or given by the caller; a file cut short, a wrong size, or something
// that is not .lzma is an LzmaError, never wrong bytes. Run by `node --test tests/js/`
// (make check, make test); $PYTHON or the checkout's .venv/bin/python packs the files.

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

import { LzmaDecoder, LzmaError, lzmaStream } from "../../static/worker-lzma.mjs";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PYTHON = process.env.PYTHON || `${ROOT}.venv/bin/python`;
const cases = JSON.parse(execFileSync(PYTHON, [`${ROOT}tests/js/lzma_cases.py`], {
  cwd: ROOT, encoding: "utf8", maxBuffer: 1 << 28,
}));
const bytes = (b64) => new Uint8Array(Buffer.from(b64, "base64"));

/** `file` pushed in chunks of the sizes `sizes` gives (cycled), then finished: the output,
 * checked to be the concatenation of what each call returned. */
function unpack(file, size, sizes) {
  const decoder = new LzmaDecoder(size);
  const parts = [];
  let at = 0;
  for (let i = 0; at < file.length; i++) {
    const n = sizes[i % sizes.length];
    parts.push(decoder.push(file.subarray(at, at + n)).slice());
    at += n;
  }
  parts.push(decoder.finish().slice());
  const joined = Buffer.concat(parts);
  assert.ok(Buffer.from(decoder.output).equals(joined), "each call returned the next bytes");
  return joined;
}

for (const [name, c] of Object.entries(cases)) {
  test(`${name}: unpacks to its bytes, whole and in chunks`, () => {
    const data = bytes(c.data);
    const file = bytes(c.lzma);
    for (const sizes of [[file.length || 1], [1], [7, 300, 1, 65536], [4096]]) {
      if (sizes[0] === 1 && file.length > 300_000) continue; // (byte by byte: the small ones)
      assert.ok(unpack(file, data.length, sizes).equals(Buffer.from(data)), `chunks ${sizes}`);
    }
    if (c.sized) {
      // the size in the header: the caller need not say it
      assert.ok(unpack(bytes(c.sized), undefined, [1000]).equals(Buffer.from(data)));
    }
  });
}

test("the byte-by-byte unpacking also covers a large file's every path", () => {
  const data = bytes(cases.runs.data);
  assert.ok(unpack(bytes(cases.runs.lzma), data.length, [1]).equals(Buffer.from(data)));
});

test("a file cut short is an error, wherever it is cut", () => {
  const c = cases.text;
  const file = bytes(c.lzma);
  const size = bytes(c.data).length;
  for (const keep of [0, 5, 13, 17, 18, 1000, file.length >> 1, file.length - 32]) {
    assert.throws(() => unpack(file.subarray(0, keep), size, [4096]), LzmaError, `cut at ${keep}`);
  }
  // (the last few bytes are the end marker and the range coder's flush: all the data is in
  // before them, and comes out right)
  const data = Buffer.from(bytes(c.data));
  assert.ok(unpack(file.subarray(0, file.length - 6), size, [4096]).equals(data));
});

test("a size that is not the data's is an error, never bytes missing or invented", () => {
  const c = cases.text;
  const size = bytes(c.data).length;
  // told more than the data holds: the end marker comes first
  assert.throws(() => unpack(bytes(c.lzma), size + 1, [65536]), LzmaError);
  // a header that says one size and a caller who expects another
  assert.throws(() => unpack(bytes(c.sized), size - 1, [65536]), /says \d+ bytes/);
  // no size anywhere
  assert.throws(() => unpack(bytes(c.lzma), undefined, [65536]), /does not say its size/);
});

test("what is not .lzma is an error", () => {
  const gzip = new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, ...new Array(20).fill(1)]);
  assert.throws(() => unpack(gzip, 100, [4096]), LzmaError);
  const noise = bytes(cases.noise.data).subarray(0, 50_000);
  noise[0] = 0x5d; // a valid properties byte, then garbage
  assert.throws(() => unpack(noise, 1_000_000, [4096]), LzmaError);
});

test("as a stream: the bytes as they are decoded, and the whole file to `done`", async () => {
  const c = cases.far;
  const file = bytes(c.lzma);
  const data = Buffer.from(bytes(c.data));
  let whole = null;
  const body = new ReadableStream({
    start(controller) {
      for (let at = 0; at < file.length; at += 50_000) {
        controller.enqueue(file.slice(at, at + 50_000));
      }
      controller.close();
    },
  });
  const stream = lzmaStream(body, data.length, (output) => { whole = output; });
  const got = Buffer.from(await new Response(stream).arrayBuffer());
  assert.ok(got.equals(data));
  assert.ok(whole !== null && Buffer.from(whole).equals(data));
  // a stream cut short errors the stream, as a failed download does
  const cut = new ReadableStream({
    start(controller) {
      controller.enqueue(file.slice(0, file.length >> 1));
      controller.close();
    },
  });
  await assert.rejects(new Response(lzmaStream(cut, data.length)).arrayBuffer(), LzmaError);
});
