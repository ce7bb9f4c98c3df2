"""Files packed by liblzma (Python's :mod:`lzma`, ``FORMAT_ALONE``: the ``.lzma`` files the
site build writes, web/site/lzma_pack.py), as JSON on stdout (base64): the ground truth of
tests/js/lzma.test.mjs, which unpacks them with the worker's own decoder
(static/worker-lzma.mjs).

Each case has the data, its ``.lzma`` file as liblzma wrote it (the size "unknown", an end
marker after the data) and, for some, the same file with the size written into its header
(as ``xz --format=lzma`` writes it when it knows the size). The cases reach every path of the
format: literals alone (random bytes), literals after matches, short and long repeats of the
four last distances, matches overlapping what they write (runs), long distances (a block
repeated megabytes later), the properties lc/lp/pb other than the defaults, nothing at all.

Not a pytest module (its name does not match test_*.py); run by the Node test.
"""

from __future__ import annotations

import base64
import json
import lzma
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def cases() -> dict[str, bytes]:
    rng = random.Random(20261129)
    noise = rng.randbytes(200_000)
    words = [rng.randbytes(rng.randint(2, 12)) for _ in range(300)]
    text = b" ".join(rng.choice(words) for _ in range(60_000))
    runs = b"".join(bytes([rng.randrange(256)]) * rng.randint(1, 400) for _ in range(3_000))
    block = rng.randbytes(300_000)
    far = block + rng.randbytes(1_200_000) + block  # one match 1.5 MB back
    source = (ROOT / "static" / "worker-lzma.mjs").read_bytes()
    # source text with structure: the first modules of Python's own library
    library = b"".join(
        path.read_bytes() for path in sorted(Path(lzma.__file__).parent.glob("*.py"))[:40]
    )
    return {
        "noise": noise,
        "text": text,
        "runs": runs,
        "far": far,
        "source": source,
        "library": library,
        "one byte": b"x",
        "empty": b"",
    }


def packed(data: bytes, **filters) -> bytes:
    if not filters:
        return lzma.compress(data, format=lzma.FORMAT_ALONE, preset=6)
    options = {"id": lzma.FILTER_LZMA1, "preset": 6, **filters}
    return lzma.compress(data, format=lzma.FORMAT_ALONE, filters=[options])


def with_size(file: bytes, size: int) -> bytes:
    """The header's size field (bytes 5 to 12, little-endian) set to ``size``."""
    return file[:5] + size.to_bytes(8, "little") + file[13:]


def main() -> int:
    out = {}
    b64 = lambda b: base64.b64encode(b).decode("ascii")  # noqa: E731
    for name, data in cases().items():
        file = packed(data)
        out[name] = {"data": b64(data), "lzma": b64(file), "sized": b64(with_size(file, len(data)))}
    text = cases()["text"]
    for lc, lp, pb in ((0, 0, 0), (1, 2, 1), (4, 0, 4), (0, 4, 2)):
        out[f"text lc={lc} lp={lp} pb={pb}"] = {
            "data": b64(text),
            "lzma": b64(packed(text, lc=lc, lp=lp, pb=pb)),
        }
    json.dump(out, sys.stdout)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
