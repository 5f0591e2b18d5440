#!/usr/bin/env python3
"""Writes the MATLAB .mat fixtures of tests/tst_matfile.cpp: version 5 files by scipy.io.savemat
itself (Debian's python3-scipy), compressed and not, and version 7.3 files laid out as MATLAB writes
them (HDF5 behind a 512-byte user block whose first 128 bytes are the "MATLAB 7.3 MAT-file" header;
a sparse matrix is a group with data/ir/jc datasets and MATLAB_class/MATLAB_sparse attributes) with
h5py (python3-h5py). The matrices are those of tests/data/matrices, so the tests compare against the
Matrix Market originals. The files are small and committed; run this again only to regenerate them:

    /usr/bin/python3 scripts/make_mat_fixtures.py tests/data/matrices tests/data/mat
"""
import os
import sys

import h5py
import numpy as np
import scipy
import scipy.io
import scipy.sparse as sp


def v73_header():
    # 116 bytes of text, 8 bytes of subsystem offset, version 0x0200 and the endian mark "IM",
    # the way MATLAB (and matio) begin a 7.3 file; the rest of the 512-byte user block is zeros.
    text = b"MATLAB 7.3 MAT-file, Platform: GLNXA64, Created on: Mon Jan  1 00:00:00 2024 HDF5 schema 1.00 ."
    return text.ljust(116, b" ") + b"\0" * 8 + b"\x00\x02" + b"IM"


def v73_class(node, name):
    # A fixed-length, NUL-terminated string as MATLAB writes it (h5py's default pads with NULs, which
    # a reader converting to NUL-terminated cuts short by one letter).
    string = h5py.h5t.C_S1.copy()
    string.set_size(len(name))
    string.set_strpad(h5py.h5t.STR_NULLTERM)
    attribute = h5py.h5a.create(node.id, b"MATLAB_class", string, h5py.h5s.create(h5py.h5s.SCALAR))
    attribute.write(np.array(name.encode("ascii"), dtype="S%d" % len(name)), mtype=string)


def v73_sparse(parent, name, matrix, matlab_class="double"):
    """MATLAB's sparse layout: compressed columns, 0-based ir, jc of length cols + 1."""
    csc = sp.csc_matrix(matrix)
    csc.sort_indices()
    group = parent.create_group(name)
    v73_class(group, matlab_class)
    group.attrs.create("MATLAB_sparse", np.uint64(csc.shape[0]))
    data = csc.data
    if matlab_class == "logical":
        data = data.astype(np.uint8)
    elif np.iscomplexobj(data):
        compound = np.dtype([("real", "<f8"), ("imag", "<f8")])
        packed = np.empty(data.shape, dtype=compound)
        packed["real"], packed["imag"] = data.real, data.imag
        data = packed
    # Compressed as MATLAB compresses its 7.3 files (HDF5's deflate filter, chunked datasets).
    group.create_dataset("data", data=data, compression="gzip")
    group.create_dataset("ir", data=csc.indices.astype(np.uint64), compression="gzip")
    group.create_dataset("jc", data=csc.indptr.astype(np.uint64), compression="gzip")
    return group


def v73_dense(parent, name, array, matlab_class="double"):
    # HDF5 is row-major and MATLAB column-major: the dataset is the transpose (cols x rows).
    dataset = parent.create_dataset(name, data=np.ascontiguousarray(np.asarray(array).T), compression="gzip")
    v73_class(dataset, matlab_class)
    return dataset


def v73_char(parent, name, text):
    dataset = parent.create_dataset(name, data=np.array([[ord(c)] for c in text], dtype=np.uint16))
    v73_class(dataset, "char")
    dataset.attrs.create("MATLAB_int_decode", np.int32(2))


def write_v73(path, fill):
    with h5py.File(path, "w", userblock_size=512, libver="earliest") as f:
        fill(f)
    with open(path, "r+b") as f:
        f.write(v73_header())


def main(source, out):
    os.makedirs(out, exist_ok=True)

    def load(name):
        return sp.csc_matrix(scipy.io.mmread(os.path.join(source, name)))

    west = load("west0479.mtx")      # real, general, 479 x 479
    arrow = load("arrowc.mtx")       # complex, 100 x 100
    karate = load("karate.mtx")      # pattern, symmetric (mmread expands it)
    afiro = load("lp_afiro.mtx")     # real, 27 x 51
    bcsstk = load("bcsstk02.mtx")    # real symmetric (expanded), 66 x 66

    def save(name, variables, compressed):
        scipy.io.savemat(os.path.join(out, name), variables, do_compression=compressed, format="5")

    save("west0479_sparse.mat", {"west0479": west}, False)
    save("west0479_sparse_compressed.mat", {"west0479": west}, True)
    save("arrowc_complex_sparse.mat", {"arrowc": arrow}, True)
    save("karate_logical_sparse.mat", {"karate": karate.astype(bool)}, False)
    save("afiro_dense_double.mat", {"afiro": afiro.toarray()}, False)
    save("afiro_dense_single.mat", {"afiro": afiro.toarray().astype(np.float32)}, True)
    save("karate_dense_int32.mat", {"karate": karate.toarray().astype(np.int32)}, False)
    # Several matrices and a string: ambiguous without a name.
    save("several.mat", {"west0479": west, "afiro": afiro.toarray(), "note": "two matrices"}, True)
    # The SuiteSparse collection's layout: one struct Problem with A among other fields.
    problem = {"name": "HB/bcsstk02", "title": "SYMMETRIC STIFFNESS MATRIX", "A": bcsstk, "id": 23.0,
               "kind": "structural problem"}
    save("bcsstk02_problem.mat", {"Problem": problem}, True)
    # No matrix at all: a string and a cell array.
    cell = np.empty((1, 2), dtype=object)
    cell[0, 0], cell[0, 1] = "a", np.eye(2)
    save("no_matrix.mat", {"title": "text only", "things": cell}, False)

    write_v73(os.path.join(out, "west0479_v73.mat"), lambda f: v73_sparse(f, "west0479", west))
    write_v73(os.path.join(out, "arrowc_complex_v73.mat"), lambda f: v73_sparse(f, "arrowc", arrow))
    write_v73(os.path.join(out, "karate_logical_v73.mat"), lambda f: v73_sparse(f, "karate", karate, "logical"))
    write_v73(os.path.join(out, "afiro_dense_v73.mat"), lambda f: v73_dense(f, "afiro", afiro.toarray()))

    def problem_v73(f):
        group = f.create_group("Problem")
        v73_class(group, "struct")
        v73_char(group, "name", "HB/bcsstk02")
        v73_sparse(group, "A", bcsstk)
        v73_char(group, "kind", "structural problem")
    write_v73(os.path.join(out, "bcsstk02_problem_v73.mat"), problem_v73)

    with open(os.path.join(out, "VERSIONS"), "w") as f:
        f.write("numpy %s, scipy %s, h5py %s, HDF5 %s\n" % (np.__version__, scipy.__version__, h5py.__version__,
                                                           h5py.version.hdf5_version))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
