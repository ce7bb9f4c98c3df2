// @ts-check
// Integrator Lab: a streaming decoder of the .lzma format ("LZMA alone", as `xz --format=lzma`
// and Python's lzma.FORMAT_ALONE write it), for the simulation worker (worker-boot.mjs): on a
// slow link the worker downloads Pyodide's wasm and standard library as .lzma, a quarter
// smaller than gzip (web/site/build.py LZMA), and inflates them here as they arrive, where
// browsers only inflate gzip and deflate themselves.
//
// Written from the format's specification (Igor Pavlov's lzma-specification.txt, LZMA SDK):
// a range decoder over adaptive binary probabilities (11 bits, moved by 1/32), literals coded
// bit by bit in the context of the previous byte (lc bits of it) and the position (lp bits),
// matched against the byte at the last distance after a match; matches and repeats of the last
// four distances, their lengths from two length coders, their distances from a slot (6 bits),
// reverse-coded low bits and direct bits; a 12-state machine of what came before.
//
// Streaming: input comes in chunks, and the decoder stops at a symbol's start when fewer than
// MARGIN bytes are left (one symbol reads at most one byte per coded bit, well under MARGIN),
// so it never reads past what has arrived and never needs to undo a symbol. The whole output
// stays in one buffer of the known size: it is the dictionary (the files are a few MB).

const HEADER = 13; // properties (1), dictionary size (4), uncompressed size (8, LE; all ones: unknown)
const MARGIN = 256; // input bytes kept ahead of the decoder until the input is complete
const TOP_MASK = 0xff000000 | 0; // range below 2^24: shift a byte in
const SIGN = 0x80000000 | 0; // flips an int32's top bit: unsigned order as signed
const BIT_MODEL_TOTAL = 1 << 11;
const MOVE_BITS = 5;
const STATES = 12;
const POS_STATES_MAX = 1 << 4;
const LEN_STATES = 4; // distance slots are coded in the context of min(length, 3)
const END_POS_MODEL = 14; // slots below use probabilities for their low bits
const FULL_DISTANCES = 1 << (END_POS_MODEL >> 1);
const ALIGN_BITS = 4;
const MATCH_MIN_LEN = 2;

// the probabilities, in one array: their offsets
const IS_MATCH = 0;
const IS_REP = IS_MATCH + (STATES << 4);
const IS_REP_G0 = IS_REP + STATES;
const IS_REP_G1 = IS_REP_G0 + STATES;
const IS_REP_G2 = IS_REP_G1 + STATES;
const IS_REP0_LONG = IS_REP_G2 + STATES;
const POS_SLOT = IS_REP0_LONG + (STATES << 4);
const SPEC_POS = POS_SLOT + (LEN_STATES << 6);
const ALIGN = SPEC_POS + FULL_DISTANCES - END_POS_MODEL;
// a length coder: choice, choice 2, low (3 bits per position state), mid (3 bits), high (8)
const LEN_CHOICE = 0;
const LEN_CHOICE2 = 1;
const LEN_LOW = 2;
const LEN_MID = LEN_LOW + (POS_STATES_MAX << 3);
const LEN_HIGH = LEN_MID + (POS_STATES_MAX << 3);
const LEN_SIZE = LEN_HIGH + 256;
const LEN_CODER = ALIGN + (1 << ALIGN_BITS);
const REP_LEN_CODER = LEN_CODER + LEN_SIZE;
const LITERAL = REP_LEN_CODER + LEN_SIZE;

export class LzmaError extends Error {}

/** A decoder of one .lzma file: `push` its bytes as they arrive, each call returning the bytes
 * decoded meanwhile; `finish` once all have come. `size`: the decoded size, when the header
 * does not say it (Python writes "unknown" and ends the data with an end marker). */
export class LzmaDecoder {
  /** @param {number} [size] */
  constructor(size) {
    this.expected = size ?? -1;
    this.input = new Uint8Array(1 << 16);
    this.inLength = 0; // bytes received
    this.inPos = 0; // bytes read by the decoder
    /** @type {Uint8Array<ArrayBuffer> | null} */
    this.out = null; // made once the header has come
    this.outPos = 0;
    this.emitted = 0; // output bytes returned by push so far
    this.ended = false; // the end marker, or the size, was reached
    this.started = false; // the header and the range decoder's first bytes were read
    // the header's properties
    this.lc = 0;
    this.lp = 0;
    this.pb = 0;
    /** @type {Uint16Array} */
    this.probs = new Uint16Array(0);
    // the range decoder and the coder's state between symbols: range, code, state, rep0-3
    // (numbers in an array: as object fields, uint32 values switch V8's field representation
    // and the decoder's optimized code is thrown away at every call)
    this.saved = new Float64Array(7);
  }

  /** Decode what `chunk` (the next bytes of the file) allows; returns the bytes decoded.
   * @param {Uint8Array} chunk */
  push(chunk) {
    if (this.inLength + chunk.length > this.input.length) {
      let length = this.input.length * 2;
      while (length < this.inLength + chunk.length) length *= 2;
      const grown = new Uint8Array(length);
      grown.set(this.input.subarray(0, this.inLength));
      this.input = grown;
    }
    this.input.set(chunk, this.inLength);
    this.inLength += chunk.length;
    return this.run(false);
  }

  /** All the file has come: decode the rest; returns the bytes decoded since the last push.
   * Throws LzmaError if the file was cut short, is corrupt, or is not .lzma. */
  finish() {
    const rest = this.run(true);
    if (!this.ended) throw new LzmaError("the .lzma file ends before its data does");
    return rest;
  }

  /** The whole decoded file (after finish). */
  get output() {
    return /** @type {Uint8Array<ArrayBuffer>} */ (this.out).subarray(0, this.outPos);
  }

  /** @param {boolean} final */
  run(final) {
    if (!this.started) {
      if (this.inLength < HEADER + 5) {
        if (final) throw new LzmaError("the .lzma file is shorter than its header");
        return new Uint8Array(0);
      }
      this.start();
    }
    if (!this.ended) this.decode(final ? this.inLength : this.inLength - MARGIN, final);
    const out = /** @type {Uint8Array<ArrayBuffer>} */ (this.out);
    const fresh = out.subarray(this.emitted, this.outPos);
    this.emitted = this.outPos;
    return fresh;
  }

  start() {
    const input = this.input;
    let props = input[0];
    if (props >= 9 * 5 * 5) throw new LzmaError("not a .lzma file (bad properties byte)");
    this.lc = props % 9;
    props = (props / 9) | 0;
    this.lp = props % 5;
    this.pb = (props / 5) | 0;
    // the size: 8 bytes LE; all ones means "unknown"
    let size = 0;
    let unknown = true;
    for (let i = 0; i < 8; i++) if (input[5 + i] !== 0xff) unknown = false;
    if (!unknown) {
      for (let i = 7; i >= 0; i--) size = size * 256 + input[5 + i];
      if (this.expected >= 0 && size !== this.expected) {
        throw new LzmaError(`the .lzma file says ${size} bytes, ${this.expected} were expected`);
      }
      this.expected = size;
    }
    if (this.expected < 0) throw new LzmaError("the .lzma file does not say its size");
    this.out = new Uint8Array(this.expected);
    this.probs = new Uint16Array(LITERAL + (0x300 << (this.lc + this.lp)))
      .fill(BIT_MODEL_TOTAL >> 1);
    if (input[HEADER] !== 0) throw new LzmaError("corrupt .lzma data (first byte)");
    this.saved[1] = ((input[HEADER + 1] << 24) | (input[HEADER + 2] << 16) |
      (input[HEADER + 3] << 8) | input[HEADER + 4]) >>> 0;
    this.saved[0] = 0xffffffff;
    this.inPos = HEADER + 5;
    this.started = true;
    if (this.expected === 0 && !unknown) this.ended = true;
  }

  /** Decode whole symbols while the decoder has read no further than `limit` (what has come
   * less MARGIN; all of it when `final`).
   * @param {number} limit
   * @param {boolean} final */
  decode(limit, final) {
    const input = this.input;
    const inLength = this.inLength;
    const out = /** @type {Uint8Array<ArrayBuffer>} */ (this.out);
    const size = out.length;
    const probs = this.probs;
    const lc = this.lc;
    const lpMask = (1 << this.lp) - 1;
    const pbMask = (1 << this.pb) - 1;
    const saved = this.saved;
    // range and code as int32 (unsigned values, compared with their top bits flipped): V8 keeps
    // them in registers, where uint32 arithmetic would go through doubles
    let range = saved[0] | 0;
    let code = saved[1] | 0;
    let state = saved[2];
    let rep0 = saved[3];
    let rep1 = saved[4];
    let rep2 = saved[5];
    let rep3 = saved[6];
    let inPos = this.inPos;
    let outPos = this.outPos;
    let ended = false;

    /** @param {number} at (index in probs) */
    const bit = (at) => {
      const p = probs[at];
      const bound = Math.imul(range >>> 11, p);
      let b;
      if ((code ^ SIGN) < (bound ^ SIGN)) {
        range = bound;
        probs[at] = p + ((BIT_MODEL_TOTAL - p) >>> MOVE_BITS);
        b = 0;
      } else {
        range = (range - bound) | 0;
        code = (code - bound) | 0;
        probs[at] = p - (p >>> MOVE_BITS);
        b = 1;
      }
      if ((range & TOP_MASK) === 0) {
        if (inPos >= inLength) throw new LzmaError("the .lzma file ends before its data does");
        range <<= 8;
        code = (code << 8) | input[inPos++];
      }
      return b;
    };
    /** @param {number} at @param {number} bits */
    const tree = (at, bits) => {
      let m = 1;
      for (let i = 0; i < bits; i++) m = (m << 1) | bit(at + m);
      return m - (1 << bits);
    };
    /** @param {number} at @param {number} bits */
    const reverseTree = (at, bits) => {
      let m = 1;
      let symbol = 0;
      for (let i = 0; i < bits; i++) {
        const b = bit(at + m);
        m = (m << 1) | b;
        symbol |= b << i;
      }
      return symbol;
    };
    /** @param {number} bits */
    const direct = (bits) => {
      let result = 0;
      for (let i = 0; i < bits; i++) {
        range >>>= 1;
        let b = 0;
        if ((code ^ SIGN) >= (range ^ SIGN)) {
          code = (code - range) | 0;
          b = 1;
        }
        result = ((result << 1) | b) >>> 0;
        // (the normalization of `bit`, written out: as a shared closure it measured ~10 %
        // slower over the wasm)
        if ((range & TOP_MASK) === 0) {
          if (inPos >= inLength) throw new LzmaError("the .lzma file ends before its data does");
          range <<= 8;
          code = (code << 8) | input[inPos++];
        }
      }
      return result;
    };
    /** @param {number} at (a length coder) @param {number} posState */
    const length = (at, posState) => {
      if (!bit(at + LEN_CHOICE)) return tree(at + LEN_LOW + (posState << 3), 3);
      if (!bit(at + LEN_CHOICE2)) return 8 + tree(at + LEN_MID + (posState << 3), 3);
      return 16 + tree(at + LEN_HIGH, 8);
    };

    while (outPos < size && (final || inPos <= limit)) {
      const posState = outPos & pbMask;
      if (!bit(IS_MATCH + (state << 4) + posState)) {
        // a literal
        const previous = outPos > 0 ? out[outPos - 1] : 0;
        const at = LITERAL + 0x300 * (((outPos & lpMask) << lc) + (previous >>> (8 - lc)));
        let symbol = 1;
        if (state >= 7) {
          // after a match: coded against the byte at the last distance, while they agree
          if (rep0 >= outPos) throw new LzmaError("corrupt .lzma data (distance)");
          let matchByte = out[outPos - rep0 - 1];
          while (symbol < 0x100) {
            const matchBit = (matchByte >>> 7) & 1;
            matchByte <<= 1;
            const b = bit(at + ((1 + matchBit) << 8) + symbol);
            symbol = (symbol << 1) | b;
            if (matchBit !== b) break;
          }
        }
        while (symbol < 0x100) symbol = (symbol << 1) | bit(at + symbol);
        out[outPos++] = symbol & 0xff;
        state = state < 4 ? 0 : state < 10 ? state - 3 : state - 6;
        continue;
      }
      let len;
      if (!bit(IS_REP + state)) {
        // a match: a new distance
        rep3 = rep2;
        rep2 = rep1;
        rep1 = rep0;
        len = length(LEN_CODER, posState);
        state = state < 7 ? 7 : 10;
        const slot = tree(POS_SLOT + (Math.min(len, LEN_STATES - 1) << 6), 6);
        if (slot < 4) {
          rep0 = slot;
        } else {
          const bits = (slot >>> 1) - 1;
          let distance = ((2 | (slot & 1)) << bits) >>> 0;
          if (slot < END_POS_MODEL) {
            distance += reverseTree(SPEC_POS + distance - slot, bits);
          } else {
            distance = (distance + ((direct(bits - ALIGN_BITS) << ALIGN_BITS) >>> 0)) >>> 0;
            distance = (distance + reverseTree(ALIGN, ALIGN_BITS)) >>> 0;
          }
          rep0 = distance;
          if (rep0 === 0xffffffff) {
            ended = true; // the end marker
            break;
          }
        }
      } else {
        if (!bit(IS_REP_G0 + state)) {
          if (!bit(IS_REP0_LONG + (state << 4) + posState)) {
            // a short repeat: one byte at the last distance
            if (rep0 >= outPos) throw new LzmaError("corrupt .lzma data (distance)");
            state = state < 7 ? 9 : 11;
            out[outPos] = out[outPos - rep0 - 1];
            outPos++;
            continue;
          }
        } else {
          let distance;
          if (!bit(IS_REP_G1 + state)) {
            distance = rep1;
          } else {
            if (!bit(IS_REP_G2 + state)) {
              distance = rep2;
            } else {
              distance = rep3;
              rep3 = rep2;
            }
            rep2 = rep1;
          }
          rep1 = rep0;
          rep0 = distance;
        }
        len = length(REP_LEN_CODER, posState);
        state = state < 7 ? 8 : 11;
      }
      // copy len + 2 bytes from rep0 + 1 back (they may overlap what they write)
      if (rep0 >= outPos) throw new LzmaError("corrupt .lzma data (distance)");
      let count = len + MATCH_MIN_LEN;
      if (count > size - outPos) throw new LzmaError("corrupt .lzma data (longer than its size)");
      let from = outPos - rep0 - 1;
      if (count <= rep0 + 1 && count > 32) {
        // apart: one block copy
        out.copyWithin(outPos, from, from + count);
        outPos += count;
      } else {
        while (count-- > 0) out[outPos++] = out[from++];
      }
    }
    if (outPos === size) ended = true;
    if (ended && outPos !== size) {
      throw new LzmaError(`the .lzma data ends after ${outPos} of ${size} bytes`);
    }
    saved[0] = range >>> 0;
    saved[1] = code >>> 0;
    saved[2] = state;
    saved[3] = rep0;
    saved[4] = rep1;
    saved[5] = rep2;
    saved[6] = rep3;
    this.inPos = inPos;
    this.outPos = outPos;
    this.ended = ended;
  }
}

/** `body` (a .lzma file's bytes as they arrive) as a stream of its decoded bytes, decoded as
 * they arrive, not when they are read: the decoding's CPU work is done while the rest
 * downloads (a reader that starts late, as Pyodide does after the page's first draw, finds the
 * bytes decoded). `size`: the decoded size, if the file does not say it; `done` hears the
 * whole decoded file.
 * @param {ReadableStream<Uint8Array>} body
 * @param {number} [size]
 * @param {(bytes: Uint8Array) => void} [done] */
export function lzmaStream(body, size, done) {
  const reader = body.getReader();
  const decoder = new LzmaDecoder(size);
  return new ReadableStream({
    start(controller) {
      (async () => {
        for (;;) {
          const { done: finished, value } = await reader.read();
          const fresh = finished ? decoder.finish() : decoder.push(value);
          if (fresh.length) controller.enqueue(fresh);
          if (finished) break;
        }
        controller.close();
        done?.(decoder.output);
      })().catch((error) => controller.error(error));
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}
