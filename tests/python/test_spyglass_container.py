#!/usr/bin/env python3
"""python/spyglass_container.py against the files Spyglass writes.

    python3 tests/python/test_spyglass_container.py --cli build/app/spyglass-cli
        [--matrices tests/data/matrices] [--samples DIR]

1. `spyglass-cli export` writes bundled matrices in every encoding it offers (segmented DIA: real,
   integer, pattern; bit-flag: row- and column-major, prefix counts, pattern; hybrid: binary with
   regions and zeros, CSR fallback, valued); load() + to_coo() (+ to_scipy() with scipy) must give the
   Matrix Market source's entries exactly.
2. --samples DIR: the containers tst_container_standalone writes with the library's writers (f32 and
   f64 values of every encoding, beside NAME.mtx, the library's own decode): the same comparison.
3. Damaged files: a flipped byte is refused with the checksum message, and for a few hundred seeded
   mutations with the CRC repaired (so that the encodings' own checks are reached) the reader refuses
   with exactly the message `spyglass-cli decode` gives, or both accept and decode alike.

Without scipy the test compares with its own small Matrix Market reader, says that to_scipy() was not
tested, and still passes; numpy is required.
"""

import argparse
import contextlib
import io
import os
import random
import struct
import subprocess
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))

try:
    import numpy as np
except ImportError:
    sys.exit("FAIL: numpy is required (Debian: apt install python3-numpy; scripts/install-deps installs it)")

import spyglass_container as sc

try:
    import scipy
    import scipy.io
    import scipy.sparse
except ImportError:
    scipy = None

# (matrix, export arguments, expected encoding, field, value type, extra check, used for the damage
# tests). "@name" is a matrix this test writes (blocky(): dense blocks, a band, scattered entries).
EXPORTS = [
    ("olm1000.mtx", ["--format", "segdia"], "segdia", "real", "f64", None, False),
    ("pts5ldd03.mtx", ["--format", "segdia", "--threshold", "16"], "segdia", "real", "f64", None, True),
    ("watt_2.mtx", ["--format", "segdia"], "segdia", "real", "f64", "remainder", False),
    ("watt_2.mtx", ["--format", "segdia", "--threshold", "100", "--no-merge"], "segdia", "real", "f64", "remainder",
     False),
    ("Franz6_id1959_aug.mtx", ["--format", "segdia"], "segdia", "integer", "f64", "remainder", False),
    ("karate.mtx", ["--format", "segdia", "--threshold", "8"], "segdia", "pattern", "u8", "remainder", True),
    ("@blocky_valued.mtx", ["--format", "segdia", "--threshold", "10"], "segdia", "real", "f64", "remainder", True),
    ("LFAT5_hypersparse.mtx", ["--format", "segdia", "--threshold", "300"], "segdia", "real", "f64", None, False),
    ("cover.mtx", ["--format", "bitflag"], "bitflag", "pattern", "implied-ones", None, True),
    ("lp_afiro.mtx", ["--format", "bitflag", "--col-major", "--prefix"], "bitflag", "real", "f64", "prefix", True),
    ("west0479.mtx", ["--format", "bitflag", "--prefix"], "bitflag", "real", "f64", "prefix", False),
    ("Franz6_id1959_aug.mtx", ["--format", "bitflag"], "bitflag", "integer", "f64", None, False),
    ("empty.mtx", ["--format", "bitflag"], "bitflag", "real", "f64", None, False),
    ("@blocky_binary.mtx", ["--format", "hybrid"], "hybrid", "pattern", None, "regions+zeros", True),
    ("@blocky_valued.mtx", ["--format", "hybrid"], "hybrid", "real", "f64", "regions+zeros", True),
    ("sparse-images-1024_subset.mtx", ["--format", "hybrid"], "hybrid", "pattern", None, "regions+zeros", False),
    ("karate.mtx", ["--format", "hybrid"], "hybrid", "pattern", None, "fallback", False),
    ("bcsstk02.mtx", ["--format", "hybrid"], "hybrid", "real", "f64", "regions", False),
    ("bcsstk13.mtx", ["--format", "hybrid"], "hybrid", "real", "f64", "regions+zeros", False),
]


def blocky(path, valued, seed=5):
    """72 x 72: a 24 x 30 block 92 % full, a lower triangle, a band of 5 diagonals, 40 scattered
    entries; pattern, or real values in quarters (never 0)."""
    rng = random.Random(seed)
    n, cells = 72, set()
    cells.update((i, j) for i in range(4, 28) for j in range(36, 66) if rng.random() < 0.92)
    cells.update((i, j) for i in range(40, 70) for j in range(2, i - 37) if rng.random() < 0.95)
    cells.update((i, j) for i in range(n) for j in range(max(0, i - 2), min(n, i + 3)) if rng.random() < 0.9)
    cells.update((rng.randrange(n), rng.randrange(n)) for _ in range(40))
    with open(path, "w") as f:
        f.write(f"%%MatrixMarket matrix coordinate {'real' if valued else 'pattern'} general\n{n} {n} {len(cells)}\n")
        for i, j in sorted(cells):
            f.write(f"{i + 1} {j + 1} {rng.choice([-3, -2, -1, 1, 2, 3, 5]) / 4}\n" if valued else f"{i + 1} {j + 1}\n")


failures = []


def fail(text):
    failures.append(text)
    print("  FAIL: " + text)


# ----------------------------------------------------------------------------------------------
# The Matrix Market source


def read_mtx(path):
    """{(row, col): value} of a coordinate Matrix Market file: symmetry expanded, duplicates summed,
    pattern entries 1. Enough for this test's files; used whether or not scipy is present."""
    entries = {}
    with open(path) as f:
        banner = f.readline().lower().split()
        field, symmetry = banner[3], banner[4]
        line = f.readline()
        while line.startswith("%") or not line.strip():
            line = f.readline()
        rows, cols, _ = (int(x) for x in line.split())
        for line in f:
            t = line.split()
            if not t or t[0].startswith("%"):
                continue
            i, j = int(t[0]) - 1, int(t[1]) - 1
            v = 1.0 if field == "pattern" else float(t[2])
            entries[(i, j)] = entries.get((i, j), 0.0) + v
            if symmetry != "general" and i != j:
                mirrored = -v if symmetry == "skew-symmetric" else v
                entries[(j, i)] = entries.get((j, i), 0.0) + mirrored
    if field == "pattern":
        entries = {k: 1.0 for k in entries}
    return rows, cols, entries


def describe(c):
    return f"{c.encoding} {c.field}" + (f" {c.value_type}" if c.value_type else "") + f", {c.nnz} entries"


def entries_of(container):
    row, col, val = container.to_coo()
    if row.size > 1:
        key = row * max(1, container.cols) + col
        if np.any(np.diff(key) <= 0):
            fail(f"{container.source}: to_coo() is not in row order with ascending columns")
    return {(int(i), int(j)): float(v) for i, j, v in zip(row, col, val)}


def compare(container, source, keep_zeros, what):
    """The container's entries against the Matrix Market file's (exactly)."""
    rows, cols, expected = read_mtx(source)
    if (rows, cols) != container.shape:
        fail(f"{what}: shape {container.shape}, the source is {rows} x {cols}")
        return
    if container.field == "pattern":
        expected = {k: 1.0 for k in expected}
    if not keep_zeros:
        expected = {k: v for k, v in expected.items() if v != 0}
    got = entries_of(container)
    if got != expected:
        missing = [k for k in expected if k not in got][:3]
        extra = [k for k in got if k not in expected][:3]
        wrong = [(k, got[k], expected[k]) for k in expected if k in got and got[k] != expected[k]][:3]
        fail(f"{what}: {len(got)} entries, the source has {len(expected)}; missing {missing}, extra {extra}, "
             f"different {wrong}")
    if scipy is not None:
        compare_scipy(container, source, keep_zeros, what)


def compare_scipy(container, source, keep_zeros, what):
    a = container.to_scipy()
    if not isinstance(a, scipy.sparse.csr_matrix):
        fail(f"{what}: to_scipy() gave {type(a).__name__}, expected csr_matrix")
    b = scipy.sparse.csr_matrix(scipy.io.mmread(source))  # symmetry expanded, duplicates summed
    if container.field == "pattern":
        b.data[:] = 1.0
    if not keep_zeros:
        b.eliminate_zeros()
    a.sort_indices()
    b.sort_indices()
    same = (a.shape == b.shape and np.array_equal(a.indptr, b.indptr) and np.array_equal(a.indices, b.indices)
            and np.array_equal(a.data, b.data))
    if not same:
        fail(f"{what}: to_scipy() differs from scipy.io.mmread of the source ({a.nnz} vs {b.nnz} entries)")


# ----------------------------------------------------------------------------------------------
# Damage


def cli_decode_message(cli, path, workdir):
    """spyglass-cli decode's refusal ("PATH: byte N: ..."), or None when it accepts the file."""
    out = os.path.join(workdir, "decoded.mtx")
    run = subprocess.run([cli, "decode", path, "-o", out], capture_output=True, text=True)
    if run.returncode == 0:
        return None, out
    prefix = "spyglass-cli decode: error: "
    lines = [line for line in run.stderr.splitlines() if line.startswith(prefix)]
    return (lines[0][len(prefix):] if lines else "(no error line) " + run.stderr.strip()), None


def python_message(path):
    try:
        sc.load(path)
    except (sc.ContainerFormatError, sc.ContainerTooLargeError) as error:
        return str(error)
    return None


def container_bytes(encoding, rows, cols, sections):
    """A container from its sections [(id, payload)], framing and CRC as Spyglass writes them."""
    body = b"".join(struct.pack("<IIQ", sid, 0, len(payload)) + payload for sid, payload in sections)
    head = b"SPYGLSMX" + struct.pack("<IIqqIIQ", 1, encoding, rows, cols, len(sections), 0, 48 + len(body) + 8)
    return head + body + struct.pack("<I", zlib.crc32(head + body) & 0xFFFFFFFF) + b"SGEN"


def amplifying_file_test(cli, workdir):
    """A 240-byte binary hybrid file whose one region is 3 x (2^31 - 1) ones: sound, but refused before
    anything is expanded, with spyglass-cli's words."""
    cols = 2 ** 31 - 1
    data = container_bytes(1, 3, cols, [
        (0x0101, struct.pack("<II", 0, 0)),
        (0x0102, struct.pack("<BBHiiiiiiI", 0, 0, 0, 0, 3, 0, cols, 0, 0, 0)),
        (0x0103, struct.pack("<4I", 0, 0, 0, 0)),
        (0x0104, b""),
        (0x0105, struct.pack("<4q", 0, 0, 0, 0)),
        (0x0106, b""),
    ])
    path = os.path.join(workdir, "amplifying.spy")
    open(path, "wb").write(data)
    got, cli_got = python_message(path), cli_decode_message(cli, path, workdir)[0]
    print(f"  {len(data)}-byte hybrid file of 3 x (2^31 - 1) ones: {got}")
    if got is None or got != cli_got or "more than the limit" not in got:
        fail(f"amplifying file: python says {got!r}, spyglass-cli {cli_got!r}")


def with_crc(data):
    data = bytearray(data)
    struct.pack_into("<I", data, len(data) - 8, zlib.crc32(bytes(data[:-8])) & 0xFFFFFFFF)
    return bytes(data)


def section_payloads(data):
    """[(id, payload offset, length)] of a container's sections."""
    out, offset = [], 48
    for _ in range(struct.unpack_from("<I", data, 32)[0]):
        sid, _, length = struct.unpack_from("<IIQ", data, offset)
        out.append((sid, offset + 16, length))
        offset += 16 + length
    return out


def mutations(data, count, rng):
    """Seeded damages with the CRC repaired: a byte of a payload or of a section header set to another
    value, a 32-bit field nudged by +-1, a value's bits replaced."""
    sections = [s for s in section_payloads(data) if s[2] > 0 and s[0] != 0xFF01]
    for n in range(count):
        sid, start, length = rng.choice(sections)
        d = bytearray(data)
        kind = n % 4
        if kind == 0:
            at = start + rng.randrange(length)
            d[at] = (d[at] + rng.randrange(1, 256)) % 256
        elif kind == 1 and length >= 4:
            at = start + 4 * rng.randrange(length // 4)
            v = struct.unpack_from("<i", d, at)[0] + rng.choice((-1, 1))
            struct.pack_into("<i", d, at, max(-2 ** 31, min(2 ** 31 - 1, v)))
        elif kind == 2:
            at = start - 16 + rng.randrange(16)  # the section header: id, flags, length
            d[at] = (d[at] + rng.randrange(1, 256)) % 256
        else:
            at = start + rng.randrange(length)
            d[at] = rng.choice((0, 1, 2, 0x7F, 0x80, 0xFF))
        yield f"section 0x{sid:04X} byte {at - start}", with_crc(d)


def damage_tests(cli, files, workdir, per_file):
    rng = random.Random(33)
    agreed = accepted = 0
    for path in files:
        data = open(path, "rb").read()
        name = os.path.basename(path)
        # A flipped byte: the checksum.
        flipped = bytearray(data)
        flipped[len(data) // 2] ^= 0x10
        bad = os.path.join(workdir, "flipped-" + name)
        open(bad, "wb").write(flipped)
        expected = f"{bad}: byte {len(data) - 8}: checksum mismatch: the file is damaged"
        got = python_message(bad)
        cli_got, _ = cli_decode_message(cli, bad, workdir)
        print(f"  {name}, byte {len(data) // 2} flipped: {got}")
        if got != expected or cli_got != expected:
            fail(f"flipped byte: python says {got!r}, spyglass-cli {cli_got!r}, expected {expected!r}")
        # Cut short: the header's length.
        open(bad, "wb").write(data[:-3])
        got, cli_got = python_message(bad), cli_decode_message(cli, bad, workdir)[0]
        if got is None or got != cli_got or "(truncated)" not in got:
            fail(f"truncated: python says {got!r}, spyglass-cli {cli_got!r}")
        # Consistent-looking damage past the checksum.
        for where, damaged in mutations(data, per_file, rng):
            path_m = os.path.join(workdir, "mutated-" + name)
            open(path_m, "wb").write(damaged)
            got = python_message(path_m)
            cli_got, decoded = cli_decode_message(cli, path_m, workdir)
            if got != cli_got:
                fail(f"{name}, {where}: python says {got!r}, spyglass-cli {cli_got!r}")
                continue
            agreed += 1
            if got is None:
                accepted += 1
                compare(sc.load(path_m), decoded, True, f"{name} ({where}, accepted by both)")
    return agreed, accepted


# ----------------------------------------------------------------------------------------------
# The example in docs/container-format.md


def doc_example(docs, cli, matrices, workdir):
    """Runs the Python example of "Reading an export from Python / from C++" on an export of
    olm1000.mtx and checks the line it prints against the comment beside its print()."""
    lines = open(docs).read().split("## Reading an export from Python / from C++", 1)[1].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("    import numpy as np"))
    block = []
    for line in lines[start:]:
        if line.strip() and not line.startswith("    "):
            break
        block.append(line[4:])
    if scipy is None:
        block = [line for line in block if "to_scipy" not in line and "A @" not in line]
        print("  (scipy is not installed: the example's to_scipy() lines left out)")
    code = "\n".join(block)
    printed_line = next(line for line in block if line.startswith("print("))
    expected = printed_line.split("# ", 1)[1].strip()
    subprocess.run([cli, "export", os.path.join(matrices, "olm1000.mtx"), "--format", "segdia", "-o",
                    os.path.join(workdir, "olm1000.spy")], check=True, capture_output=True)
    here = os.getcwd()
    out = io.StringIO()
    try:
        os.chdir(workdir)
        with contextlib.redirect_stdout(out):
            exec(compile(code, docs, "exec"), {})
    except Exception as error:  # the example itself failing is the finding
        fail(f"docs example: {type(error).__name__}: {error}")
        return
    finally:
        os.chdir(here)
    print(f"  docs/container-format.md example printed: {out.getvalue().strip()}")
    if out.getvalue().strip() != expected:
        fail(f"docs example printed {out.getvalue().strip()!r}, its comment says {expected!r}")


# ----------------------------------------------------------------------------------------------


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cli", required=True, help="spyglass-cli")
    parser.add_argument("--matrices", default=os.path.join(HERE, "..", "data", "matrices"))
    parser.add_argument("--samples", help="folder of NAME.spy + NAME.mtx written by tst_container_standalone")
    parser.add_argument("--mutations", type=int, default=20, help="damaged copies per file")
    parser.add_argument("--docs", default=os.path.join(HERE, "..", "..", "docs", "container-format.md"))
    args = parser.parse_args()

    if scipy is None:
        print("scipy is not installed: to_scipy() is NOT tested; entries are compared with this test's own "
              "Matrix Market reader (install python3-scipy to test to_scipy() against scipy.io.mmread)")
    else:
        print(f"numpy {np.__version__}, scipy {scipy.__version__}: entries compared with this test's Matrix Market "
              "reader and to_scipy() with scipy.io.mmread")

    with tempfile.TemporaryDirectory() as workdir:
        print("spyglass-cli export -> load():")
        blocky(os.path.join(workdir, "blocky_binary.mtx"), False)
        blocky(os.path.join(workdir, "blocky_valued.mtx"), True)
        damage_files = []
        for k, (matrix, export_args, encoding, field, value_type, extra, damage) in enumerate(EXPORTS):
            source = os.path.join(workdir, matrix[1:]) if matrix.startswith("@") else os.path.join(args.matrices, matrix)
            matrix = matrix.lstrip("@")
            out = os.path.join(workdir, f"{k:02d}-{os.path.splitext(matrix)[0]}.spy")
            run = subprocess.run([args.cli, "export", source, *export_args, "-o", out], capture_output=True, text=True)
            what = f"{matrix} {' '.join(export_args)}"
            if run.returncode != 0:
                fail(f"{what}: spyglass-cli export failed: {run.stderr.strip()}")
                continue
            c = sc.load(out)
            if (c.encoding, c.field, c.value_type) != (encoding, field, value_type):
                fail(f"{what}: read {c.encoding}/{c.field}/{c.value_type}, expected {encoding}/{field}/{value_type}")
            if c.note != f"spyglass-cli export of {matrix}":
                fail(f"{what}: note {c.note!r}")
            detail = ""
            if extra == "remainder" and c.remainder_columns.size == 0:
                fail(f"{what}: expected a CSR remainder")
            if extra == "prefix" and "prefix_counts" not in c.arrays:
                fail(f"{what}: expected prefix counts")
            if extra and extra.startswith("regions"):
                detail = f", {len(c.regions)} regions, {int(c['regions']['zeros'].sum())} zeros"
                if not c.regions or (extra.endswith("zeros") and c["regions"]["zeros"].sum() == 0):
                    fail(f"{what}: expected regions{' with zeros' if extra.endswith('zeros') else ''}")
            if extra == "fallback" and not c.summary["fallback"]:
                fail(f"{what}: expected the CSR fallback")
            if c.encoding == "segdia":
                detail = (f", {c.summary['segments']} segments, {c.offsets.size} diagonals, "
                          f"{c.remainder_columns.size} remainder entries")
            print(f"  {what}: {describe(c)}{detail}")
            # Bit-flag exports keep explicit zeros; segmented DIA and hybrid drop them.
            compare(c, source, c.encoding == "bitflag", what)
            if damage:
                damage_files.append(out)

        if args.samples:
            print(f"library writers ({args.samples}) -> load():")
            names = sorted(f[:-4] for f in os.listdir(args.samples) if f.endswith(".spy"))
            if len(names) < 6:
                fail(f"{args.samples} holds {len(names)} containers, expected the samples of every encoding")
            kinds = set()
            for name in names:
                c = sc.load(os.path.join(args.samples, name + ".spy"))
                kinds.add((c.encoding, c.valued, c.value_type))
                print(f"  {name}: {describe(c)}")
                compare(c, os.path.join(args.samples, name + ".mtx"), True, name)
            for needed in [("segdia", True, "f32"), ("segdia", True, "f64"), ("bitflag", True, "f32"),
                           ("bitflag", True, "f64"), ("hybrid", True, "f32"), ("hybrid", True, "f64"),
                           ("hybrid", False, None)]:
                if needed not in kinds:
                    fail(f"no sample of {needed} in {args.samples}")
        else:
            print("no --samples: f32 containers (written only by the library, not by spyglass-cli export) not read")

        print("the example in docs/container-format.md:")
        doc_example(args.docs, args.cli, args.matrices, workdir)

        print("damaged files (python vs spyglass-cli decode):")
        agreed, accepted = damage_tests(args.cli, damage_files, workdir, args.mutations)
        amplifying_file_test(args.cli, workdir)
        print(f"  {agreed} seeded mutations with the CRC repaired: same refusal message as spyglass-cli decode "
              f"({accepted} accepted by both and decoded alike)")

    if failures:
        print(f"FAILED: {len(failures)} problem(s)")
        return 1
    print("OK" + ("" if scipy is not None else " (without scipy: to_scipy() not tested)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
