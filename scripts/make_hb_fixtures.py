#!/usr/bin/env python3
"""Writes the Harwell-Boeing fixtures of tests/tst_harwellboeing.cpp with SciPy's own writer
(scipy.io.hb_write, Debian's python3-scipy): real unsymmetric matrices of the test set. Symmetric,
pattern and complex cases are written by hand in the test. Run again only to regenerate:

    /usr/bin/python3 scripts/make_hb_fixtures.py tests/data/matrices tests/data/hb
"""
import os
import sys

import scipy
import scipy.io
import scipy.sparse as sp


def main(source, out):
    os.makedirs(out, exist_ok=True)
    for name in ("west0479", "watt_2", "lp_afiro"):
        matrix = sp.csc_matrix(scipy.io.mmread(os.path.join(source, name + ".mtx")))
        scipy.io.hb_write(os.path.join(out, name + ".rua"), matrix)
    with open(os.path.join(out, "VERSIONS"), "w") as f:
        f.write("scipy %s\n" % scipy.__version__)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
