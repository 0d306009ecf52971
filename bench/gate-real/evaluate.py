"""How often `proftool diff`'s default gate fails the recordings bench/gate-real/run.sh made:
unchanged pairs (false alarms) with 1, 3 and 5 runs a side, and pairs whose NEW side's render did
2 and 1.25 times its work (caught, and render named first). Prints a Markdown table.
  python3 evaluate.py OUT [PROFTOOL]"""
import itertools
import json
import os
import random
import subprocess
import sys

OUT = sys.argv[1]
PROFTOOL = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "../../target/release/proftool")
DRAWS = int(os.environ.get("DRAWS", "60"))
# Options added to every comparison (EXTRA="--run-floor 30"), and the folders compared (FOLDERS="c-short node-long").
EXTRA = os.environ.get("EXTRA", "").split()
FOLDERS = os.environ.get("FOLDERS", "").split()
# Extra options of a folder's comparisons: JFR's allocation samples are another metric of the same files.
VARIANTS = {"java": [("java", []), ("java alloc", ["--metric", "alloc-weight"])]}


def runs(folder, tag):
    # samply's symbol files (`.syms.json`) lie beside its profiles, read with them.
    names = sorted(f for f in os.listdir(folder) if f.startswith(tag + "-") and not f.endswith(".syms.json"))
    return [os.path.join(folder, f) for f in names]


def diff(base, new, options):
    command = [PROFTOOL, "diff", "--format", "json", *EXTRA, *options, "--base", *base, "--new", *new]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode not in (0, 3):
        return "error", None, done.stderr.strip().splitlines()[-1:] if done.stderr else ""
    report = json.loads(done.stdout)
    flagged = report.get("gate", {}).get("flagged") or []
    return report.get("verdict"), (flagged[0] if flagged else None), ""


def draws(base, new, per_side, rng):
    """Pairs of disjoint groups of `per_side` runs: all ordered pairs for one run a side."""
    if per_side == 1 and base is new:
        pairs = [([a], [b]) for a, b in itertools.permutations(base, 2)]
        return rng.sample(pairs, min(DRAWS * 2, len(pairs)))
    out = []
    for _ in range(DRAWS):
        if base is new:
            chosen = rng.sample(base, 2 * per_side)
            out.append((chosen[:per_side], chosen[per_side:]))
        else:
            out.append((rng.sample(base, per_side), rng.sample(new, min(per_side, len(new)))))
    return out


def rates(results, target=None):
    n = len(results)
    failed = sum(1 for v, _, _ in results if v == "regression")
    unclear = sum(1 for v, _, _ in results if v == "inconclusive")
    errors = [e for v, _, e in results if v == "error"]
    named = sum(1 for v, first, _ in results if v == "regression" and first and target and target in first)
    text = f"{100 * failed / n:.1f} %"
    if unclear:
        text += f" ({100 * unclear / n:.0f} % inconclusive)"
    if errors:
        text += f" ({len(errors)} refused: {errors[0]})"
    return text, (f"{100 * named / n:.0f} %" if target else "")


def main():
    rng = random.Random(45)
    print("| recording | false alarms, 1 / 3 / 5 runs a side | 2× caught, 1 / 5 runs (render first) | 1.25× caught, 5 runs |")
    print("|---|---|---|---|")
    for folder in sorted(os.listdir(OUT)):
        path = os.path.join(OUT, folder)
        if not os.path.isdir(path) or (FOLDERS and folder not in FOLDERS):
            continue
        base = runs(path, "base")
        if len(base) < 10:
            continue
        kind = folder.rsplit("-", 1)[0]
        for label, options in VARIANTS.get(kind, [(kind, [])]):
            label = f"{label} ({folder.rsplit('-', 1)[1]})"
            alarms = []
            for per_side in (1, 3, 5):
                results = [diff(b, n, options) for b, n in draws(base, base, per_side, rng)]
                alarms.append(rates(results)[0])
            caught = []
            for tag, sides in (("slow2", (1, 5)), ("slow1.25", (5,))):
                slow = runs(path, tag)
                for per_side in sides:
                    if not slow:
                        caught.append("–")
                        continue
                    results = [diff(b, n, options) for b, n in draws(base, slow, per_side, rng)]
                    rate, named = rates(results, "render")
                    caught.append(f"{rate} ({named})")
            print(f"| {label} | {' / '.join(alarms)} | {caught[0]} / {caught[1]} | {caught[2]} |", flush=True)


main()
