#!/usr/bin/env python3
"""scripts/check-figures fails on a figure its table does not hold, and passes on one it does.

Builds a small tree (README.md, docs/, bench/results/t.md) in a temporary folder and runs the check
on it: a wrong figure, a figure beside a missing table and a derived ratio that does not follow are
each reported; the right ones pass."""
import pathlib
import subprocess
import sys
import tempfile

check = pathlib.Path(__file__).resolve().parent.parent / "scripts" / "check-figures"
table = "| case | variant | median ms |\n|---|---|---:|\n| a | vendor | 0.4180 |\n| a | ours | 0.1710 | 2.44x |\n"


def run(readme):
    with tempfile.TemporaryDirectory() as root:
        r = pathlib.Path(root)
        (r / "docs").mkdir()
        (r / "bench" / "results").mkdir(parents=True)
        (r / "bench" / "results" / "t.md").write_text(table)
        (r / "README.md").write_text(readme)
        done = subprocess.run([sys.executable, str(check), root], capture_output=True, text=True)
        return done.returncode, done.stdout


failures = []
for text, expect_ok in [
    ("Ours 2.44x the vendor (0.418 ms) — bench/results/t.md\n", True),
    ("Ours 0.171 vs 0.418 ms (2.44x) — bench/results/t.md\n", True),
    ("Ours 2.45x the vendor — bench/results/t.md\n", False),      # not in the table
    ("Ours 0.171 vs 0.418 ms (2.50x) — bench/results/t.md\n", False),  # does not follow from them
    ("Ours 2.44x — bench/results/missing.md\n", False),           # no such table
    ("Target >= 3x the vendor — bench/results/t.md\n", True),     # a goal, not a measurement
]:
    code, out = run(text)
    if (code == 0) != expect_ok:
        failures.append(f"{'accepted' if code == 0 else 'refused'}: {text.strip()}\n{out}")
for f in failures:
    print("FAIL", f)
print(f"check_figures_test: {6 - len(failures)} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
