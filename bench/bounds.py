#!/usr/bin/env python3
"""Inputs of the shapes that once made proftool's memory or time grow faster than its input (issue
48), for bench/bounds.sh: `bench/bounds.py SHAPE N OUT` writes one of N (frames, events, levels or
bytes, as each shape says) to OUT.

  siblings N   folded stacks: N leaves below one root, `main;fI 1`
  chain N      folded stacks: one stack N frames deep (`a0;a1;…;aN-1 1`)
  unclosed N   a Chrome trace of N `B` events never closed: a chain N deep, a frame of its own time each
  diamonds N   a callgrind call graph of N nested diamonds (f0 calls a0 and b0, each calls f1, …)
  evented N    a speedscope evented profile N frames deep (a and b opened in turn, then closed)
  zeros N      N bytes of `0` and no line break: one huge line
  bomb N       gzip of N bytes of zeros (a gzip bomb: about a thousandth of N compressed)
"""

import gzip
import json
import sys


def siblings(n, out):
    with open(out, "w") as f:
        for i in range(n):
            f.write(f"main;f{i} 1\n")


def chain(n, out):
    with open(out, "w") as f:
        f.write(";".join(f"a{i}" for i in range(n)) + " 1\n")


def unclosed(n, out):
    with open(out, "w") as f:
        f.write("[" + ",\n".join(f'{{"ph":"B","name":"f","ts":{ts},"pid":1,"tid":1}}' for ts in range(n)) + "]\n")


def diamonds(n, out):
    # The inclusive cost of each f (own 1, two calls of a and b, each own 1 and a call of the next f).
    inclusive = [1] * (n + 1)
    for k in range(n - 1, -1, -1):
        inclusive[k] = 1 + 2 * (1 + inclusive[k + 1])
    lines = ["# callgrind format", "version: 1", "creator: bench/bounds.py", "events: Ir", "fl=d.c"]
    for k in range(n + 1):
        lines += [f"fn=f{k}", "1 1"]
        if k < n:
            for side in "ab":
                lines += [f"cfn={side}{k}", "calls=1 1", f"1 {1 + inclusive[k + 1]}"]
    for k in range(n):
        for side in "ab":
            lines += [f"fn={side}{k}", "1 1", f"cfn=f{k + 1}", "calls=1 1", f"1 {inclusive[k + 1]}"]
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


def evented(n, out):
    events = [{"type": "O", "at": at, "frame": at % 2} for at in range(n)]
    events += [{"type": "C", "at": n + i, "frame": level % 2} for i, level in enumerate(range(n - 1, -1, -1))]
    document = {
        "$schema": "https://www.speedscope.app/file-format-schema.json",
        "shared": {"frames": [{"name": "a"}, {"name": "b"}]},
        "profiles": [{"type": "evented", "name": "deep", "unit": "microseconds", "startValue": 0,
                      "endValue": 2 * n - 1, "events": events}],
    }
    with open(out, "w") as f:
        json.dump(document, f)


def zeros(n, out):
    block = b"0" * (1 << 20)
    with open(out, "wb") as f:
        for _ in range(n >> 20):
            f.write(block)
        f.write(b"0" * (n % (1 << 20)))


def bomb(n, out):
    block = b"\0" * (1 << 20)
    with gzip.open(out, "wb", compresslevel=9) as f:
        for _ in range(n >> 20):
            f.write(block)


SHAPES = {f.__name__: f for f in (siblings, chain, unclosed, diamonds, evented, zeros, bomb)}

if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in SHAPES:
        sys.exit(__doc__)
    SHAPES[sys.argv[1]](int(sys.argv[2]), sys.argv[3])
