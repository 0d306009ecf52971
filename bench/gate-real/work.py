"""A workload for measuring diff's gate on real recordings (bench/gate-real/run.sh): functions of
different kinds of work (loops, sorting, formatting, dicts, allocation) and a second thread, under
py-spy. `python3 work.py ROUNDS [FACTOR]`: render does FACTOR times its work (the regression)."""
import sys
import threading

sink = 0
kept = []


def mix(n):
    x = 0
    for i in range(n):
        x = (x * 31 + i) & 0xFFFFFFFF
    return x


def parse():
    global sink
    counts = {}
    for word in ("alpha beta gamma delta " * 500).split():
        counts[word] = counts.get(word, 0) + 1
    sink += len(counts) + mix(20000)


def sort_values():
    global sink
    values = sorted((mix(i % 7) ^ (i * 2654435761)) & 0xFFFF for i in range(5000))
    sink += values[2500]


def render(factor):
    global sink
    out = "".join(f"{i}: {i * 0.5:f} row\n" for i in range(int(1000 * factor)))
    kept.append(out[:1024])
    sink += len(out) + mix(int(15000 * factor))


def compress():
    global sink
    buffer = bytes(i // 64 % 256 for i in range(16384))
    sink += sum(1 for i in range(1, len(buffer)) if buffer[i] != buffer[i - 1])


def allocate():
    for i in range(2000):
        block = [i] * (16 + (i * 37) % 400)
        if i % 100 == 0:
            kept.append(block)
    if len(kept) > 400:
        del kept[:200]


def background(rounds):
    for _ in range(rounds):
        mix(3000)


def main():
    rounds = int(sys.argv[1])
    factor = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
    helper = threading.Thread(target=background, args=(rounds,), name="helper")
    helper.start()
    for _ in range(rounds):
        parse()
        sort_values()
        render(factor)
        compress()
        allocate()
    helper.join()


main()
