#!/usr/bin/env python3
"""Writes the .npz/.npy fixtures of tests/tst_npz.cpp with SciPy and NumPy themselves (Debian's
python3-scipy): matrices of the test set saved by scipy.sparse.save_npz in every format it writes,
compressed and not, and dense arrays by numpy.save in C and Fortran order. The files are small and
committed; run this again only to regenerate them:

    /usr/bin/python3 scripts/make_npz_fixtures.py tests/data/matrices tests/data/npz
"""
import os
import sys

import numpy as np
import scipy
import scipy.io
import scipy.sparse as sp


def main(source, out):
    os.makedirs(out, exist_ok=True)

    def load(name):
        return sp.csr_matrix(scipy.io.mmread(os.path.join(source, name)))

    west = load("west0479.mtx")          # real, general, irregular
    young = load("young1c.mtx")          # complex, banded
    karate = load("karate.mtx")          # pattern, symmetric (mmread expands it)
    franz = load("Franz6_id1959_aug.mtx")  # integer, rectangular
    pts = load("pts5ldd03.mtx")          # 161 x 161 = 7 * 23: bsr with 7 x 7 blocks
    olm = load("olm1000.mtx")            # 6 diagonals: dia

    cases = {
        "west0479_csr.npz": (west, False),
        "west0479_csc_compressed.npz": (west.tocsc(), True),
        "west0479_coo.npz": (west.tocoo(), False),
        "young1c_csr.npz": (young, True),
        "karate_bool_csr.npz": (karate.astype(bool), False),
        "franz6_int64_csr.npz": (franz.astype(np.int64), True),
        "franz6_float32_coo.npz": (franz.astype(np.float32).tocoo(), False),
        "pts5ldd03_bsr7.npz": (pts.tobsr(blocksize=(7, 7)), False),
        "olm1000_dia.npz": (olm.todia(), True),
    }
    for name, (matrix, compressed) in cases.items():
        sp.save_npz(os.path.join(out, name), matrix, compressed=compressed)

    dense = scipy.io.mmread(os.path.join(source, "lp_afiro.mtx")).toarray()  # 27 x 51
    np.save(os.path.join(out, "lp_afiro_dense_c.npy"), dense)
    np.save(os.path.join(out, "lp_afiro_dense_fortran.npy"), np.asfortranarray(dense))
    np.save(os.path.join(out, "lp_afiro_dense_float32_be.npy"), dense.astype(">f4"))
    arrow = scipy.io.mmread(os.path.join(source, "arrowc.mtx")).toarray()  # 100 x 100 complex
    np.save(os.path.join(out, "arrowc_dense_complex64.npy"), arrow.astype(np.complex64))
    with open(os.path.join(out, "VERSIONS"), "w") as f:
        f.write("numpy %s, scipy %s\n" % (np.__version__, scipy.__version__))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
