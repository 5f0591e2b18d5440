"""Read Spyglass export containers (``.spy``) from Python.

The container is described in docs/container-format.md (shipped with Spyglass). ``load(path)``
checks the file the way Spyglass's own reader does (framing, CRC-32, every section of the encoding:
counts, ranges, ordering) and refuses a damaged file with the same message, e.g.

    olm.spy: byte 69244: checksum mismatch: the file is damaged

It returns a :class:`Container` holding the encoding's arrays by their documented names (numpy
arrays, little-endian, values at the width the file stores them), and ``to_coo()`` /
``to_scipy()`` / ``to_cupy()`` give the matrix the file encodes, as ``spyglass-cli decode`` would.

numpy is required; scipy (``to_scipy``) and cupy (``to_cupy``) are imported only when used.
"""

import os
import zlib

import numpy as np

__all__ = ["ContainerFormatError", "ContainerTooLargeError", "Container", "Region", "load", "loads"]

_MAGIC = b"SPYGLSMX"
_END_MARKER = b"SGEN"
_VERSION = 1
_HEADER_BYTES, _SECTION_HEADER_BYTES, _TRAILER_BYTES = 48, 16, 8
_SECTION_OPTIONAL = 1
_NOTE_ID = 0xFF01
_INT32_MAX = 2147483647
_WHOLE_LIMIT = 9007199254740992.0  # 2^53: the integer field's largest magnitude
# A few hundred bytes of hybrid container can describe 2^62 ones: like Spyglass (kDefaultMaxDecodedEntries),
# a container decoding to more entries is refused before anything is expanded.
DEFAULT_MAX_ENTRIES = 2_000_000_000

ENCODINGS = {1: "hybrid", 2: "segdia", 3: "bitflag"}
FIELDS = {0: "real", 1: "integer", 2: "pattern"}
VALUE_TYPES = {0: "implied-ones", 1: "u8", 2: "f32", 3: "f64"}
_VALUE_DTYPES = {1: np.dtype("u1"), 2: np.dtype("<f4"), 3: np.dtype("<f8")}
REGION_SHAPES = ("rectangle", "triangle", "band")
TRIANGLE_CORNERS = ("lower-left", "upper-right", "upper-left", "lower-right")

# Section ids per encoding, in the order Spyglass lists them (containerSectionIds).
_SECTION_IDS = {
    1: (0x0101, 0x0102, 0x0103, 0x0104, 0x0105, 0x0106, 0x0107, 0x0108),
    2: (0x0201, 0x0202, 0x0203, 0x0204, 0x0205, 0x0206, 0x0207, 0x0208, 0x0209, 0x020A, 0x020B),
    3: (0x0301, 0x0302, 0x0303, 0x0304, 0x0305),
}
_ALL_IDS = frozenset(i for ids in _SECTION_IDS.values() for i in ids)

# One region record of the hybrid encodings: shape, corner, two zero bytes, the half-open box, the
# band's local offsets, then the count (binary: zeros stored; valued: explicit zero cells).
REGION_DTYPE = np.dtype([("shape", "u1"), ("corner", "u1"), ("reserved", "<u2"), ("row_begin", "<i4"),
                         ("row_end", "<i4"), ("col_begin", "<i4"), ("col_end", "<i4"), ("band_low", "<i4"),
                         ("band_high", "<i4"), ("zeros", "<u4")])


class ContainerFormatError(ValueError):
    """A damaged or unsupported container: "SOURCE: byte OFFSET: PROBLEM", as Spyglass words it."""

    def __init__(self, source, offset, problem):
        super().__init__(f"{source}: byte {offset}: {problem}")
        self.source = source
        self.offset = int(offset)
        self.problem = problem


class ContainerTooLargeError(ValueError):
    """A sound container that decodes to more entries than load()'s max_entries (Spyglass's message)."""


def _check_entries(c, entries):
    if entries > c.max_entries:
        raise ContainerTooLargeError(f"{c.source}: the {c.encoding} container decodes to {entries} entries, more than "
                                     f"the limit of {c.max_entries}")


def _fail(source, offset, problem):
    raise ContainerFormatError(source, offset, problem)


class _Section:
    __slots__ = ("id", "flags", "offset", "data")

    def __init__(self, sid, flags, offset, data):
        self.id, self.flags, self.offset, self.data = sid, flags, offset, data

    @property
    def size(self):
        return len(self.data)


def _u32(data, at):
    return int.from_bytes(data[at:at + 4], "little")


def _i32(data, at):
    return int.from_bytes(data[at:at + 4], "little", signed=True)


def _u64(data, at):
    return int.from_bytes(data[at:at + 8], "little")


def _i64(data, at):
    return int.from_bytes(data[at:at + 8], "little", signed=True)


def _label(encoding, sid, name):
    return f"{encoding}, section 0x{sid:04X} ({name})"


class _Sections:
    """One encoding's sections: lookups and array reads whose errors name the encoding."""

    def __init__(self, encoding, sections, source):
        self.encoding, self.sections, self.source = encoding, sections, source

    def label(self, sid, name):
        return _label(self.encoding, sid, name)

    def find(self, sid):
        return self.sections.get(sid)

    def require(self, sid, name):
        s = self.sections.get(sid)
        if s is None:
            _fail(self.source, _HEADER_BYTES, self.label(sid, name) + ": missing")
        return s

    def segment_starts(self, starts_s, starts_name, items_s, items_name, item_noun, segments):
        """Per-segment starts (segments + 1 entries of 8 bytes, the first 0) into a section of 4-byte
        items (item_noun, for the message): the starts read and the items counted."""
        if items_s.size % 4 != 0:
            _fail(self.source, items_s.offset,
                  f"{self.label(items_s.id, items_name)}: length is not a whole number of 4-byte {item_noun}")
        starts = self.array(starts_s, segments + 1, "<i8", starts_name)
        if starts[0] != 0:
            _fail(self.source, starts_s.offset, f"{self.label(starts_s.id, starts_name)}: entry 0 is {starts[0]}, expected 0")
        return starts, items_s.size // 4

    def fixed_summary(self, sid, size, pattern_value_type, pattern_type, pattern_stores):
        """The summary section of a fixed-size encoding (its size checked), its label, and the two words
        every such summary opens with, both checked: the value type is 2 (f32), 3 (f64) or the pattern's
        own code (pattern_type: "1 (u8)"), and a pattern field goes with the pattern's value type
        (pattern_stores: what it stores instead)."""
        summary = self.require(sid, "summary")
        slabel = self.label(sid, "summary")
        if summary.size != size:
            _fail(self.source, summary.offset, f"{slabel}: holds {summary.size} bytes, expected {size}")
        so, value_type, field = summary.offset, _u32(summary.data, 0), _u32(summary.data, 4)
        if value_type not in (pattern_value_type, 2, 3):
            _fail(self.source, so, f"{slabel}: field 'value type' is {value_type}, expected {pattern_type}, 2 (f32) or 3 (f64)")
        if field > 2:
            _fail(self.source, so + 4, f"{slabel}: field 'field' is {field}, expected 0 (real), 1 (integer) or 2 (pattern)")
        if (field == 2) != (value_type == pattern_value_type):
            _fail(self.source, so, f"{slabel}: value type {value_type} does not go with field {field} "
                                   f"(a pattern stores {pattern_stores}, other fields f32 or f64)")
        return summary, slabel, value_type, field

    def array(self, s, count, dtype, name):
        dtype = np.dtype(dtype)
        if s.size % dtype.itemsize != 0 or s.size // dtype.itemsize != count:
            _fail(self.source, s.offset, f"{self.label(s.id, name)}: holds {s.size} bytes, expected {count} entries of "
                                         f"{dtype.itemsize} bytes")
        return np.frombuffer(s.data, dtype=dtype, count=count)


def _is_whole(values):
    v = np.asarray(values, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        return np.isfinite(v) & (np.trunc(v) == v) & (np.abs(v) <= _WHOLE_LIMIT)


def _first(mask):
    """Index of the first True in mask, or None."""
    hits = np.flatnonzero(mask)
    return int(hits[0]) if hits.size else None


def _fail_first(invalid, *checks):
    """checks: (mask, message(k)) in priority order. At the first index any mask flags, invalid() is
    told the message of the first mask that flags it."""
    k = _first(np.logical_or.reduce([mask for mask, _ in checks]))
    if k is not None:
        invalid(next(message(k) for mask, message in checks if mask[k]))


# ----------------------------------------------------------------------------------------------
# Dense regions (hybrid encodings)


class Region:
    """A dense region: a shape inside the half-open box [row_begin, row_end) x [col_begin, col_end)."""

    __slots__ = ("shape", "corner", "row_begin", "row_end", "col_begin", "col_end", "band_low", "band_high", "zeros")

    def __init__(self, record):
        for name in self.__slots__:
            setattr(self, name, int(record[name]))

    @property
    def height(self):
        return self.row_end - self.row_begin

    @property
    def width(self):
        return self.col_end - self.col_begin

    def spans(self, local_first=0, local_last=None):
        """Column spans (absolute, half-open) of local rows [local_first, local_last): (begin, end) arrays;
        begin == end where a row has no cells. As DenseRegion::span in gpu/src/core/hybrid_region.cpp."""
        h, w = self.height, self.width
        local_last = h if local_last is None else local_last
        r = np.arange(local_first, local_last, dtype=np.int64)
        begin = np.zeros_like(r)
        end = np.full_like(r, w)
        if self.shape == 1:  # triangle: rows rounded outward, a square one includes its diagonal
            if self.corner == 0:
                end = ((r + 1) * w + h - 1) // h
            elif self.corner == 1:
                begin = (r * w) // h
            elif self.corner == 2:
                end = ((h - r) * w + h - 1) // h
            else:
                begin = ((h - 1 - r) * w) // h
        elif self.shape == 2:
            begin = np.maximum(0, r + self.band_low)
            end = np.minimum(w, r + self.band_high + 1)
        end = np.maximum(end, begin)
        return begin + self.col_begin, end + self.col_begin

    def rows_with_cells(self):
        """Local rows [first, last) whose span is not empty; O(1)."""
        h, w = self.height, self.width
        if self.shape != 2:
            return 0, h
        return max(0, -self.band_high), min(h, w - self.band_low)

    def describe(self):
        shape = REGION_SHAPES[self.shape] + (" " + TRIANGLE_CORNERS[self.corner] if self.shape == 1 else "")
        return f"{shape} rows [{self.row_begin},{self.row_end}) cols [{self.col_begin},{self.col_end})"


def _check_region(sections, regions_section, index, rows, cols):
    at = index * REGION_DTYPE.itemsize
    record_offset = regions_section.offset + at
    rec = np.frombuffer(regions_section.data, dtype=REGION_DTYPE, count=1, offset=at)[0]
    if rec["shape"] > 2 or rec["corner"] > 3 or rec["reserved"] != 0:
        _fail(sections.source, record_offset, f"{sections.encoding}: region {index} has an unknown shape")
    r = Region(rec)
    what = (f"{sections.encoding}: dense region {REGION_SHAPES[r.shape]} rows [{r.row_begin},{r.row_end}) "
            f"cols [{r.col_begin},{r.col_end}): ")
    if r.row_begin < 0 or r.col_begin < 0 or r.row_end > rows or r.col_end > cols:
        _fail(sections.source, record_offset, what + f"lies outside the {rows} x {cols} matrix")
    if r.row_begin >= r.row_end or r.col_begin >= r.col_end:
        _fail(sections.source, record_offset, what + "empty box")
    if r.shape == 2:
        if r.band_low > r.band_high:
            _fail(sections.source, record_offset, what + "band offsets out of order")
        if r.band_high < -(r.height - 1) or r.band_low > r.width - 1:
            _fail(sections.source, record_offset, what + "band misses its box")
    return r


def _first_overlap(regions, spans):
    """(b, a): the first region b overlapping an earlier region a (lowest a), or None. spans[b]:
    (row0, begin, end), the column spans of rows row0, row0 + 1, ... (rows outside have none)."""
    boxes = _boxes(regions)
    for b in range(1, len(regions)):
        a = _first_overlapping_earlier(regions, spans, boxes, b)
        if a is not None:
            return b, a
    return None


def _boxes(regions):
    return np.array([(r.row_begin, r.row_end, r.col_begin, r.col_end) for r in regions], dtype=np.int64).reshape(-1, 4)


def _first_overlapping_earlier(regions, spans, boxes, b):
    """The lowest a < b whose shape shares an element with region b's, or None (boxes first)."""
    box = boxes[b]
    earlier = boxes[:b]
    meet = ((np.maximum(earlier[:, 0], box[0]) < np.minimum(earlier[:, 1], box[1])) &
            (np.maximum(earlier[:, 2], box[2]) < np.minimum(earlier[:, 3], box[3])))
    for a in np.flatnonzero(meet):
        if _overlap(regions[a], spans[a], regions[b], spans[b]):
            return int(a)
    return None


def _overlap(ra, sa, rb, sb):
    if max(ra.col_begin, rb.col_begin) >= min(ra.col_end, rb.col_end):
        return False
    lo, hi = max(sa[0], sb[0]), min(sa[0] + sa[1].size, sb[0] + sb[1].size)
    if lo >= hi:
        return False
    ab, ae = (x[lo - sa[0]:hi - sa[0]] for x in sa[1:])
    bb, be = (x[lo - sb[0]:hi - sb[0]] for x in sb[1:])
    return bool(np.any((ae > ab) & (be > bb) & (np.maximum(ab, bb) < np.minimum(ae, be))))


def _inside_regions(regions, spans, entry_rows, entry_cols):
    """Per entry, the region holding it, or -1."""
    holder = np.full(entry_rows.shape, -1, dtype=np.int64)
    for b, (row0, begin, end) in enumerate(spans):
        mask = (entry_rows >= row0) & (entry_rows < row0 + begin.size)
        if not mask.any():
            continue
        idx = np.flatnonzero(mask)
        local = entry_rows[idx] - row0
        hit = (entry_cols[idx] >= begin[local]) & (entry_cols[idx] < end[local])
        holder[idx[hit]] = b
    return holder


def _region_cells(spans):
    """(rows, cols) of every cell of a region, row by row, each row's span left to right."""
    row0, begin, end = spans
    lengths = end - begin
    total = int(lengths.sum())
    rows = np.repeat(np.arange(row0, row0 + begin.size, dtype=np.int64), lengths)
    starts = np.cumsum(lengths) - lengths
    cols = np.arange(total, dtype=np.int64) - np.repeat(starts, lengths) + np.repeat(begin, lengths)
    return rows, cols


def _csr_rows(row_ptr, rows):
    """The row of each CSR entry (row pointers already checked)."""
    return np.repeat(np.arange(rows, dtype=np.int64), np.diff(row_ptr))


# ----------------------------------------------------------------------------------------------
# The container


class Container:
    """A checked Spyglass container.

    encoding: "hybrid", "segdia" or "bitflag"; rows, cols, shape; field ("real", "integer" or
    "pattern"); value_type ("implied-ones", "u8", "f32", "f64"; None for a binary hybrid file);
    summary: the summary's fields (dict); arrays: the sections by their documented names (also
    reachable as attributes: ``c.offsets``, ``c["offsets"]``); note: the optional UTF-8 note.
    """

    def __init__(self, source, encoding, rows, cols):
        self.source = source
        self.encoding = encoding
        self.rows, self.cols = rows, cols
        self.field = None
        self.value_type = None
        self.summary = {}
        self.arrays = {}
        self.regions = []  # hybrid: Region objects, in file order
        self.note = None
        self.max_entries = DEFAULT_MAX_ENTRIES
        self._entries = None

    @property
    def shape(self):
        return (self.rows, self.cols)

    @property
    def valued(self):
        """True when the file stores values (not a pattern)."""
        return self.field != "pattern"

    def __getitem__(self, name):
        return self.arrays[name]

    def __getattr__(self, name):
        arrays = self.__dict__.get("arrays", {})
        if name in arrays:
            return arrays[name]
        raise AttributeError(name)

    def __repr__(self):
        return (f"<spyglass container {self.encoding} {self.rows} x {self.cols}, field {self.field}, "
                f"{self.nnz} entries: {', '.join(self.arrays)}>")

    @property
    def nnz(self):
        return int(self._entries[0].size)

    def to_coo(self):
        """(row, col, value) int64/int64/float64 arrays of the entries the file decodes to, rows in
        order, columns ascending: what ``spyglass-cli decode`` writes (pattern entries are 1.0)."""
        return self._entries

    def to_scipy(self):
        """The matrix as scipy.sparse.csr_matrix (float64; needs scipy)."""
        import scipy.sparse

        row, col, val = self._entries
        indptr = np.zeros(self.rows + 1, dtype=np.int64)
        np.cumsum(np.bincount(row, minlength=self.rows), out=indptr[1:])
        return scipy.sparse.csr_matrix((val, col, indptr), shape=self.shape)

    def to_cupy(self):
        """The matrix as cupyx.scipy.sparse.csr_matrix on the current GPU (needs cupy)."""
        import cupy
        import cupyx.scipy.sparse

        row, col, val = self._entries
        indptr = np.zeros(self.rows + 1, dtype=np.int64)
        np.cumsum(np.bincount(row, minlength=self.rows), out=indptr[1:])
        return cupyx.scipy.sparse.csr_matrix((cupy.asarray(val), cupy.asarray(col.astype(np.int32)),
                                              cupy.asarray(indptr.astype(np.int32))), shape=self.shape)


def load(path, max_entries=DEFAULT_MAX_ENTRIES):
    """Reads and checks the container at path; a damaged file raises ContainerFormatError, one that
    decodes to more than max_entries entries ContainerTooLargeError (both ValueError)."""
    source = os.fspath(path)
    with open(source, "rb") as f:
        data = f.read()
    return loads(data, source, max_entries)


def loads(data, source="<memory>", max_entries=DEFAULT_MAX_ENTRIES):
    """As load(), from the file's bytes."""
    data = memoryview(bytes(data)) if not isinstance(data, (bytes, memoryview)) else memoryview(data)
    c, sections = _parse_framing(data, source)
    c.max_entries = max_entries
    if c.encoding == "hybrid":
        summary = sections.get(0x0101)
        if summary is not None and summary.size >= 4 and (_u32(summary.data, 0) & 2):
            _read_hybrid_valued(c, _Sections("valued hybrid container", sections, source))
        else:
            _read_hybrid_binary(c, _Sections("hybrid container", sections, source))
    elif c.encoding == "segdia":
        _read_segdia(c, _Sections("segmented-DIA container", sections, source))
    else:
        _read_bitflag(c, _Sections("bit-flag container", sections, source))
    return c


def _parse_framing(data, source):
    size = len(data)
    if size < _HEADER_BYTES + _TRAILER_BYTES:
        _fail(source, size, f"truncated: {size} bytes, a container has at least {_HEADER_BYTES + _TRAILER_BYTES}")
    if bytes(data[:8]) != _MAGIC:
        _fail(source, 0, "not a Spyglass container (magic SPYGLSMX missing)")
    version = _u32(data, 8)
    if version != _VERSION:
        _fail(source, 8, f"unsupported container version {version} (this reader knows version {_VERSION})")
    declared = _u64(data, 40)
    if declared != size:
        _fail(source, 40, f"header says the file has {declared} bytes, it has {size}" +
              (" (truncated)" if size < declared else " (trailing data)"))
    if bytes(data[size - 4:]) != _END_MARKER:
        _fail(source, size - 4, "end marker missing")
    if _u32(data, size - _TRAILER_BYTES) != zlib.crc32(data[:size - _TRAILER_BYTES]) & 0xFFFFFFFF:
        _fail(source, size - _TRAILER_BYTES, "checksum mismatch: the file is damaged")
    encoding = _u32(data, 12)
    if encoding < 1 or encoding > 3:
        _fail(source, 12, f"unknown encoding {encoding}")
    rows, cols = _i64(data, 16), _i64(data, 24)
    if rows < 0 or rows > _INT32_MAX:
        _fail(source, 16, f"row count {rows} out of range")
    if cols < 0 or cols > _INT32_MAX:
        _fail(source, 24, f"column count {cols} out of range")
    count = _u32(data, 32)
    if _u32(data, 36) != 0:
        _fail(source, 36, "unknown header flags")
    c = Container(source, ENCODINGS[encoding], rows, cols)
    sections = {}
    offset, end = _HEADER_BYTES, size - _TRAILER_BYTES
    for k in range(count):
        if end - offset < _SECTION_HEADER_BYTES:
            _fail(source, offset, f"section {k} of {count}: header runs past the end of the sections")
        sid, flags, length = _u32(data, offset), _u32(data, offset + 4), _u64(data, offset + 8)
        remain = end - offset - _SECTION_HEADER_BYTES
        if length > remain:
            _fail(source, offset + 8, f"section id {sid} declares {length} bytes, only {remain} remain")
        start = offset + _SECTION_HEADER_BYTES
        if sid in sections:
            _fail(source, offset, f"section id {sid} appears twice")
        known = sid in _ALL_IDS
        if not known and not (flags & _SECTION_OPTIONAL):
            _fail(source, offset, f"unknown required section id {sid}")
        if known:
            sections[sid] = _Section(sid, flags, start, data[start:start + length])
        elif sid == _NOTE_ID and c.note is None:
            c.note = bytes(data[start:start + length]).decode("utf-8", errors="replace")
        offset = start + length
    if offset != end:
        _fail(source, offset, f"{end - offset} bytes after the last section")
    own = _SECTION_IDS[encoding]
    for s in sections.values():  # in file order (dicts keep insertion order)
        if s.id not in own:
            _fail(source, s.offset - _SECTION_HEADER_BYTES,
                  f"section id {s.id} does not belong to the {c.encoding} encoding")
    return c, sections


# ----------------------------------------------------------------------------------------------
# Segmented DIA (encoding 2)


def _field_violation(values, field):
    """Per value: None or why it cannot be stored under the field (pattern / integer)."""
    v = np.asarray(values, dtype=np.float64)
    if field == 2:
        return (v != 0) & (v != 1), "is neither 0 nor 1 (pattern field)"
    if field == 1:
        return ~_is_whole(v), "is not a whole number (integer field)"
    return np.zeros(v.shape, dtype=bool), None


def _read_segdia(c, sec):
    src = sec.source
    summary, slabel, value_type, field = sec.fixed_summary(0x0201, 32, 1, "1 (u8)", "one byte per slot")
    sd, so = summary.data, summary.offset
    threshold, segments, blocks = _i32(sd, 8), _u32(sd, 12), _u32(sd, 16)
    version, nonzeros = _u32(sd, 20), _i64(sd, 24)
    if threshold < 1:
        _fail(src, so + 8, f"{slabel}: field 'threshold' is {threshold}, expected at least 1 row per segment")
    rows, cols = c.rows, c.cols
    expected_segments = (rows + threshold - 1) // threshold
    if segments != expected_segments:
        _fail(src, so + 12, f"{slabel}: field 'segments' is {segments}, a {rows}-row matrix cut every {threshold} "
                            f"rows has {expected_segments}")
    if blocks > segments or (segments > 0 and blocks == 0):
        _fail(src, so + 16, f"{slabel}: field 'blocks' is {blocks}, expected 1 to {segments} (the segment count)")
    if version > 1:
        _fail(src, so + 20, f"{slabel}: field 'version' is {version}, expected 0 (pure DIA) or 1 (with CSR remainder)")
    if nonzeros < 0:
        _fail(src, so + 24, f"{slabel}: field 'nonzeros' is negative")

    # Segment row starts: segment s begins at row s x threshold; the last entry is the row count.
    rs = sec.require(0x0202, "segment row starts")
    first_row = sec.array(rs, segments + 1, "<i4", "segment row starts")
    expected = np.minimum(np.arange(segments + 1, dtype=np.int64) * threshold, rows)
    s = _first(first_row != expected)
    if s is not None:
        _fail(src, rs.offset + 4 * s, f"{sec.label(0x0202, 'segment row starts')}: entry {s} is {first_row[s]}, "
                                      f"expected {expected[s]} (segments are {threshold} rows, the last ends at the "
                                      "row count)")
    seg_rows = np.diff(first_row.astype(np.int64))

    # Offset starts and offsets.
    os_ = sec.require(0x0203, "offset starts")
    offsets_s = sec.require(0x0204, "offsets")
    olabel = sec.label(0x0204, "offsets")
    offset_start, offset_count = sec.segment_starts(os_, "offset starts", offsets_s, "offsets", "offsets", segments)
    oslabel = sec.label(0x0203, "offset starts")
    most = np.zeros(segments, dtype=np.int64) if cols == 0 else np.minimum(seg_rows + cols - 1, _INT32_MAX)
    # Python integers: a damaged file may hold starts near 2^63.
    starts_py = offset_start.tolist()
    for s in range(segments):
        start, nxt = starts_py[s], starts_py[s + 1]
        if nxt < start or nxt - start > int(most[s]):
            _fail(src, os_.offset + 8 * (s + 1), f"{oslabel}: entry {s + 1} is {nxt}, expected {start} to "
                                                 f"{start + int(most[s])} (segment {s} meets at most {int(most[s])} "
                                                 "diagonals)")
    if starts_py[segments] != offset_count:
        _fail(src, os_.offset + 8 * segments, f"{oslabel}: last entry is {starts_py[segments]}, the {olabel} holds "
                                              f"{offset_count}")
    offsets = np.frombuffer(offsets_s.data, dtype="<i4", count=offset_count)
    diag_counts = np.diff(offset_start)
    diag_segment = np.repeat(np.arange(segments, dtype=np.int64), diag_counts)
    if offset_count:
        o64 = offsets.astype(np.int64)
        first_in_segment = np.zeros(offset_count, dtype=bool)
        first_in_segment[offset_start[:-1][diag_counts > 0]] = True
        not_above = np.zeros(offset_count, dtype=bool)
        not_above[1:] = o64[1:] <= o64[:-1]
        not_above &= ~first_in_segment
        seg_first = first_row[:-1].astype(np.int64)[diag_segment]
        seg_last = first_row[1:].astype(np.int64)[diag_segment] - 1
        misses = (cols == 0) | (o64 < -seg_last) | (o64 > cols - 1 - seg_first)
        k = _first(not_above | misses)
        if k is not None:
            problem = "not above the previous offset" if not_above[k] else "misses the matrix in every row of the segment"
            _fail(src, offsets_s.offset + 4 * k, f"{olabel}: entry {k} (segment {diag_segment[k]}) is {offsets[k]}, "
                                                 f"{problem}")

    # Values: slot starts implied (diagonals x rows per segment), checked against the section first.
    vs = sec.require(0x0205, "values")
    vlabel = sec.label(0x0205, "values")
    vdtype = _VALUE_DTYPES[value_type]
    vb = vdtype.itemsize
    capacity = vs.size // vb
    value_start = [0] * (segments + 1)
    counts_py, rows_py = diag_counts.tolist(), seg_rows.tolist()
    for s in range(segments):
        d, h, before = counts_py[s], rows_py[s], value_start[s]
        if d > 0 and h > (capacity - before) // d:
            _fail(src, vs.offset, f"{vlabel}: holds {capacity} slots, the segments need more (segment {s} alone needs "
                                  f"{d} x {h})")
        value_start[s + 1] = before + d * h
    slots = value_start[segments]
    if vs.size != slots * vb:
        _fail(src, vs.offset, f"{vlabel}: holds {vs.size} bytes, expected {slots} slots of {vb} bytes")
    values = np.frombuffer(vs.data, dtype=vdtype, count=slots)
    value_start = np.array(value_start, dtype=np.int64)
    # Per slot: its diagonal and local row (diagonal-major within each segment).
    diag_rows = seg_rows[diag_segment] if offset_count else np.zeros(0, dtype=np.int64)
    slot_diag = np.repeat(np.arange(offset_count, dtype=np.int64), diag_rows)
    diag_slot_start = np.cumsum(diag_rows) - diag_rows
    slot_local = np.arange(slots, dtype=np.int64) - diag_slot_start[slot_diag] if slots else np.zeros(0, np.int64)
    slot_row = first_row[:-1].astype(np.int64)[diag_segment[slot_diag]] + slot_local if slots else slot_local
    slot_col = slot_row + offsets.astype(np.int64)[slot_diag] if slots else slot_local
    v64 = values.astype(np.float64)
    bad, why = _field_violation(v64, field)
    outside = ~bad & (v64 != 0) & ((slot_col < 0) | (slot_col >= cols))
    k = _first(bad | outside)
    if k is not None:
        problem = why if bad[k] else "is not 0 although its column lies outside the matrix"
        _fail(src, vs.offset + k * vb, f"{vlabel}: slot {k} (segment {diag_segment[slot_diag[k]]}, offset "
                                       f"{offsets[slot_diag[k]]}, row {slot_row[k]}) {problem}")
    kept = v64 != 0
    counted = int(np.count_nonzero(kept))

    remainder_ids = (0x0208, 0x0209, 0x020A, 0x020B)
    if version == 0:
        for rid in remainder_ids:
            extra = sec.find(rid)
            if extra is not None:
                _fail(src, extra.offset, f"{slabel}: field 'version' is 0 (pure DIA) but section 0x{rid:04X} (CSR "
                                         "remainder) is present")
        rem = dict(remainder_starts=np.zeros(segments + 1, dtype=np.int64),
                   remainder_row_starts=np.zeros(0, dtype=np.int32),
                   remainder_columns=np.zeros(0, dtype=np.int32),
                   remainder_values=np.zeros(0, dtype=vdtype))
        rem_rows = rem_cols = np.zeros(0, dtype=np.int64)
        rem_vals = np.zeros(0, dtype=np.float64)
    else:
        rem, rem_rows, rem_cols, rem_vals = _read_segdia_remainder(c, sec, field, vdtype, first_row, seg_rows,
                                                                   offset_start, offsets)
        counted += int(rem_cols.size)
    if counted != nonzeros:
        _fail(src, so + 24, f"{slabel}: field 'nonzeros' is {nonzeros}, the values and the remainder hold {counted}")

    # Blocks: non-empty runs of segments, each segment once, ascending inside a block, ordered by lead.
    bs = sec.require(0x0206, "block starts")
    bseg = sec.require(0x0207, "block segments")
    block_start = sec.array(bs, blocks + 1, "<i4", "block starts")
    bslabel = sec.label(0x0206, "block starts")
    if block_start[0] != 0:
        _fail(src, bs.offset, f"{bslabel}: entry 0 is {block_start[0]}, expected 0")
    bsl = block_start.tolist()
    for b in range(blocks):
        if bsl[b + 1] <= bsl[b] or bsl[b + 1] > segments:
            _fail(src, bs.offset + 4 * (b + 1), f"{bslabel}: entry {b + 1} is {bsl[b + 1]}, expected above {bsl[b]} "
                                                f"and at most {segments}")
    if bsl[blocks] != segments:
        _fail(src, bs.offset + 4 * blocks, f"{bslabel}: last entry is {bsl[blocks]}, expected the segment count "
                                           f"{segments}")
    block_segments = sec.array(bseg, segments, "<i4", "block segments")
    seen = np.zeros(segments, dtype=bool)
    previous_lead = -1
    bsegl = block_segments.tolist()
    for b in range(blocks):
        for k in range(bsl[b], bsl[b + 1]):
            sg = bsegl[k]
            problem = None
            if sg < 0 or sg >= segments:
                problem = "is not a segment"
            elif seen[sg]:
                problem = "appears in a second place"
            elif k > bsl[b] and sg <= bsegl[k - 1]:
                problem = "is not above the previous segment of its block"
            elif k == bsl[b] and sg <= previous_lead:
                problem = "leads its block but is not above the previous block's lead"
            if problem:
                _fail(src, bseg.offset + 4 * k, f"{sec.label(0x0207, 'block segments')}: entry {k} (block {b}) is "
                                                f"segment {sg}, which {problem}")
            seen[sg] = True
            if k == bsl[b]:
                previous_lead = sg

    _check_entries(c, counted)
    c.field = FIELDS[field]
    c.value_type = VALUE_TYPES[value_type]
    c.summary = dict(value_type=c.value_type, field=c.field, threshold=threshold, segments=segments, blocks=blocks,
                     version=version, nonzeros=nonzeros)
    c.arrays = dict(segment_row_starts=first_row, offset_starts=offset_start, offsets=offsets, values=values,
                    value_starts=value_start, block_starts=block_start, block_segments=block_segments, **rem)
    row = np.concatenate([slot_row[kept], rem_rows])
    col = np.concatenate([slot_col[kept], rem_cols])
    val = np.concatenate([v64[kept], rem_vals])
    order = np.lexsort((col, row))
    c._entries = (row[order], col[order], val[order])


def _read_segdia_remainder(c, sec, field, vdtype, first_row, seg_rows, offset_start, offsets):
    src = sec.source
    segments = seg_rows.size
    starts_s = sec.require(0x0208, "remainder starts")
    rowst_s = sec.require(0x0209, "remainder row starts")
    cols_s = sec.require(0x020A, "remainder columns")
    vals_s = sec.require(0x020B, "remainder values")
    starts_label = sec.label(0x0208, "remainder starts")
    rowst_label = sec.label(0x0209, "remainder row starts")
    cols_label = sec.label(0x020A, "remainder columns")
    vals_label = sec.label(0x020B, "remainder values")
    starts, entries = sec.segment_starts(starts_s, "remainder starts", cols_s, "remainder columns", "columns", segments)
    sl = starts.tolist()
    rows_py = seg_rows.tolist()
    row_start_base = [0] * (segments + 1)
    for s in range(segments):
        start, nxt = sl[s], sl[s + 1]
        if nxt < start or nxt > entries or nxt - start > _INT32_MAX:
            _fail(src, starts_s.offset + 8 * (s + 1), f"{starts_label}: entry {s + 1} is {nxt}, expected {start} to "
                                                      f"{min(entries, start + _INT32_MAX)} (the columns section "
                                                      f"holds {entries} entries)")
        row_start_base[s + 1] = row_start_base[s] + (rows_py[s] + 1 if nxt > start else 0)
    if sl[segments] != entries:
        _fail(src, starts_s.offset + 8 * segments, f"{starts_label}: last entry is {sl[segments]}, the {cols_label} "
                                                   f"holds {entries}")
    row_start_count = row_start_base[segments]
    if rowst_s.size != row_start_count * 4:
        _fail(src, rowst_s.offset, f"{rowst_label}: holds {rowst_s.size} bytes, expected {row_start_count} row starts "
                                   "of 4 bytes (rows + 1 per segment with a remainder)")
    row_starts = np.frombuffer(rowst_s.data, dtype="<i4", count=row_start_count)
    vb = vdtype.itemsize
    if vals_s.size != entries * vb:
        _fail(src, vals_s.offset, f"{vals_label}: holds {vals_s.size} bytes, expected {entries} entries of {vb} bytes")
    columns = np.frombuffer(cols_s.data, dtype="<i4", count=entries)
    values = np.frombuffer(vals_s.data, dtype=vdtype, count=entries)
    all_rows, all_cols, all_vals = [], [], []
    for s in range(segments):
        start, count = sl[s], sl[s + 1] - sl[s]
        if count == 0:
            continue
        base, h = row_start_base[s], rows_py[s]
        rst = row_starts[base:base + h + 1].astype(np.int64)
        # Row starts: from 0, never decreasing, inside the segment's entries, ending at its count.
        bad = np.zeros(h + 1, dtype=bool)
        bad[0] = rst[0] != 0
        if h > 0:
            bad[1:] = (rst[1:] < rst[:-1]) | (rst[1:] > count)
            bad[h] |= rst[h] != count
        i = _first(bad)
        if i is not None:
            text = f"{rowst_label}: entry {base + i} (segment {s}, local row {i}) is {rst[i]}"
            if i == 0:
                text += ", expected 0"
            else:
                text += f", expected {rst[i - 1]} to {count}" + (" and the segment's entry count at its end"
                                                                  if i == h else "")
            _fail(src, rowst_s.offset + 4 * (base + i), text)
        at = np.arange(start, start + count, dtype=np.int64)
        local = np.repeat(np.arange(h, dtype=np.int64), np.diff(rst))
        row = int(first_row[s]) + local
        col = columns[start:start + count].astype(np.int64)
        outside = (col < 0) | (col >= c.cols)
        row_first = np.zeros(count, dtype=bool)
        row_first[rst[:-1][np.diff(rst) > 0]] = True
        not_above = np.zeros(count, dtype=bool)
        not_above[1:] = col[1:] <= col[:-1]
        not_above &= ~row_first
        seg_offsets = offsets[offset_start[s]:offset_start[s + 1]].astype(np.int64)
        on_dia = np.isin(col - row, seg_offsets)
        v = values[start:start + count].astype(np.float64)
        vbad, why = _field_violation(v, field)
        vbad = vbad | (v == 0)
        col_bad = outside | not_above | on_dia
        k = _first(col_bad | vbad)
        if k is not None:
            if col_bad[k]:
                problem = ("lies outside the matrix" if outside[k] else "is not above the previous column of its row"
                           if not_above[k] else "lies on a diagonal the segment stores as DIA (a nonzero stored twice)")
                _fail(src, cols_s.offset + 4 * int(at[k]), f"{cols_label}: entry {at[k]} (segment {s}, row {row[k]}) "
                                                           f"is column {col[k]}, which {problem}")
            problem = "is 0 (the remainder holds only nonzeros)" if v[k] == 0 else why
            _fail(src, vals_s.offset + int(at[k]) * vb, f"{vals_label}: entry {at[k]} (row {row[k]}, column {col[k]}) "
                                                        f"{problem}")
        all_rows.append(row)
        all_cols.append(col)
        all_vals.append(v)
    cat = (lambda parts, dtype: np.concatenate(parts) if parts else np.zeros(0, dtype=dtype))
    arrays = dict(remainder_starts=starts, remainder_row_starts=row_starts, remainder_columns=columns,
                  remainder_values=values)
    return arrays, cat(all_rows, np.int64), cat(all_cols, np.int64), cat(all_vals, np.float64)


# ----------------------------------------------------------------------------------------------
# Bit-flag (encoding 3)


_POPCOUNT8 = np.array([bin(b).count("1") for b in range(256)], dtype=np.int64)


def _read_bitflag(c, sec):
    src = sec.source
    summary, slabel, value_type, field = sec.fixed_summary(0x0301, 32, 0, "0 (implied ones)", "no values")
    sd, so = summary.data, summary.offset
    order, flags = _u32(sd, 8), _u32(sd, 12)
    word_bits, words_per_line, nonzeros = _u32(sd, 16), _u32(sd, 20), _i64(sd, 24)
    if order > 1:
        _fail(src, so + 8, f"{slabel}: field 'order' is {order}, expected 0 (row-major) or 1 (column-major)")
    if flags & ~1:
        _fail(src, so + 12, f"{slabel}: field 'flags' has unknown bits set")
    with_prefix = bool(flags & 1)
    line_length = c.cols if order == 0 else c.rows
    lines = c.rows if order == 0 else c.cols
    expected_bits = 32 if line_length <= 32 else 64
    expected_words = 1 if line_length <= 32 else (line_length + 63) // 64
    if word_bits != expected_bits:
        _fail(src, so + 16, f"{slabel}: field 'word bits' is {word_bits}, lines of {line_length} elements use "
                            f"{expected_bits}")
    if words_per_line != expected_words:
        _fail(src, so + 20, f"{slabel}: field 'words per line' is {words_per_line}, lines of {line_length} elements "
                            f"use {expected_words}")
    if nonzeros < 0:
        _fail(src, so + 24, f"{slabel}: field 'nonzeros' (S) is negative")
    words = lines * words_per_line
    wdtype = np.dtype("<u4") if word_bits == 32 else np.dtype("<u8")
    fs = sec.require(0x0302, "flags")
    flag_words = sec.array(fs, words, wdtype, "flags").reshape(lines, words_per_line)
    used = line_length - (words_per_line - 1) * word_bits
    if used < word_bits and lines:
        last = flag_words[:, -1].astype(np.uint64)
        line = _first((last >> np.uint64(used)) != 0)
        if line is not None:
            _fail(src, fs.offset + (line * words_per_line + words_per_line - 1) * (word_bits // 8),
                  f"{sec.label(0x0302, 'flags')}: line {line} has bits set past its {line_length} elements")

    # Bits per word (popcount through a byte table) and per line.
    word_counts = _POPCOUNT8[flag_words.reshape(-1).view(np.uint8)].reshape(lines, words_per_line, word_bits // 8)
    word_counts = word_counts.sum(axis=2)
    line_counts = word_counts.sum(axis=1) if lines else np.zeros(0, dtype=np.int64)
    ls = sec.require(0x0303, "line starts P")
    line_starts = sec.array(ls, lines + 1, "<i8", "line starts P")
    plabel = sec.label(0x0303, "line starts P")
    if line_starts[0] != 0:
        _fail(src, ls.offset, f"{plabel}: P[0] is {line_starts[0]}, expected 0")
    # P[l + 1] must be P[l] + count(l): the first line where it is not, in Python integers (no overflow).
    expected = np.concatenate([[0], np.cumsum(line_counts)])
    line = _first(line_starts != expected)
    if line is not None:
        line -= 1
        exp = int(line_starts[line]) + int(line_counts[line])
        _fail(src, ls.offset + 8 * (line + 1), f"{plabel}: P[{line + 1}] is {line_starts[line + 1]}, expected {exp} "
                                               f"(line {line} has {line_counts[line]} flags set)")
    if int(line_starts[lines]) != nonzeros:
        _fail(src, so + 24, f"{slabel}: field 'nonzeros' (S) is {nonzeros}, the flags hold {line_starts[lines]}")
    vs = sec.require(0x0304, "values M")
    mlabel = sec.label(0x0304, "values M")
    if value_type == 0:
        if vs.size != 0:
            _fail(src, vs.offset, f"{mlabel}: a pattern stores no values, the section holds {vs.size} bytes")
        values = np.zeros(0, dtype=np.float64)
        v64 = np.ones(nonzeros, dtype=np.float64)
    else:
        values = sec.array(vs, nonzeros, _VALUE_DTYPES[value_type], "values M")
        v64 = values.astype(np.float64)
    if field == 1:
        k = _first(~_is_whole(v64))
        if k is not None:
            _fail(src, vs.offset + k * (4 if value_type == 2 else 8),
                  f"{mlabel}: M[{k}] is not a whole number (integer field)")
    prefix = sec.find(0x0305)
    prefix_label = sec.label(0x0305, "prefix counts")
    prefix_counts = None
    if prefix is not None and not with_prefix:
        _fail(src, prefix.offset, f"{prefix_label}: present, but the summary's flags say there are none")
    if with_prefix:
        if prefix is None:
            _fail(src, so + 12, f"{prefix_label}: missing, the summary's flags announce it")
        prefix_counts = sec.array(prefix, words, "<u4", "prefix counts").reshape(lines, words_per_line)
        before = np.cumsum(word_counts, axis=1) - word_counts
        at = _first((prefix_counts != before).reshape(-1))
        if at is not None:
            line, w = divmod(at, words_per_line)
            _fail(src, prefix.offset + 4 * at, f"{prefix_label}: line {line} word {w} says "
                                               f"{prefix_counts[line, w]} flags before it, the flags say "
                                               f"{before[line, w]}")

    _check_entries(c, nonzeros)
    c.field = FIELDS[field]
    c.value_type = VALUE_TYPES[value_type]
    c.summary = dict(value_type=c.value_type, field=c.field, order="row-major" if order == 0 else "column-major",
                     prefix_counts=with_prefix, word_bits=word_bits, words_per_line=words_per_line, nonzeros=nonzeros)
    c.arrays = dict(flags=flag_words, line_starts=line_starts, values=values)
    if prefix_counts is not None:
        c.arrays["prefix_counts"] = prefix_counts
    # Flagged elements in storage order: line by line, ascending position (the order of M). Bit k of
    # word w is element w x word_bits + k; unpacked a few million bits at a time.
    line_of, pos_of = [], []
    chunk = max(1, (1 << 24) // max(1, words_per_line * word_bits))
    for first in range(0, lines, chunk):
        block = np.ascontiguousarray(flag_words[first:first + chunk])
        bits = np.unpackbits(block.view(np.uint8).reshape(block.shape[0], -1), axis=1, bitorder="little")
        lin, pos = np.nonzero(bits[:, :line_length] if line_length else bits[:, :0])
        line_of.append(lin + first)
        pos_of.append(pos)
    line_of = np.concatenate(line_of).astype(np.int64) if line_of else np.zeros(0, np.int64)
    pos_of = np.concatenate(pos_of).astype(np.int64) if pos_of else np.zeros(0, np.int64)
    if order == 0:
        c._entries = (line_of, pos_of, v64)
    else:
        o = np.lexsort((line_of, pos_of))
        c._entries = (pos_of[o], line_of[o], v64[o])


# ----------------------------------------------------------------------------------------------
# Hybrid, binary (encoding 1)


def _read_hybrid_binary(c, sec):
    src = sec.source
    rows, cols = c.rows, c.cols
    summary = sec.require(0x0101, "summary")
    for vid in (0x0107, 0x0108):
        s = sec.find(vid)
        if s is not None:
            _fail(src, s.offset, "hybrid container: a binary (pattern) file holds a value section")
    sd = summary.data
    if summary.size < 8 or _u32(sd, 4) != summary.size - 8 or _u32(sd, 0) > 1:
        _fail(src, summary.offset, "hybrid container: malformed summary section")
    fallback = _u32(sd, 0) == 1
    reason = bytes(sd[8:]).decode("utf-8", errors="replace")

    regions_s = sec.require(0x0102, "regions")
    if regions_s.size % 32 != 0:
        _fail(src, regions_s.offset, "hybrid container: region section is not a whole number of 32-byte records")
    count = regions_s.size // 32
    zrp_s = sec.require(0x0103, "zero row pointers")
    regions, spans = [], []
    row_ptr_count = zero_count = 0
    for b in range(count):
        r = _check_region(sec, regions_s, b, rows, cols)
        row_ptr_count += r.height + 1
        if row_ptr_count * 4 > zrp_s.size:
            _fail(src, zrp_s.offset, f"hybrid container: zero row pointer section holds {zrp_s.size // 4} entries, "
                                     "the regions need more")
        sp = (r.row_begin,) + r.spans()
        cells = int((sp[2] - sp[1]).sum())
        if r.zeros > cells:
            _fail(src, regions_s.offset + 32 * b + 28, f"hybrid container: region {b} claims more zeros than it has "
                                                       "elements")
        zero_count += r.zeros
        regions.append(r)
        spans.append(sp)
    zero_row_ptr = sec.array(zrp_s, row_ptr_count, "<u4", "zero row pointers")
    zero_offsets = sec.array(sec.require(0x0104, "zero offsets"), zero_count, "<u2", "zero offsets")
    rp_s = sec.require(0x0105, "residual row pointers")
    residual_ptr = sec.array(rp_s, rows + 1, "<i8", "residual row pointers")
    rc_s = sec.require(0x0106, "residual columns")
    nnz = int(residual_ptr[-1])
    if nnz < 0 or nnz * 4 != rc_s.size:
        _fail(src, rp_s.offset + 8 * rows, f"hybrid container: residual row pointers end at {nnz}, the column section "
                                           f"holds {rc_s.size // 4}")
    residual_cols = sec.array(rc_s, nnz, "<i4", "residual columns")

    # validateHybrid, in its order; its errors are reported at the regions section.
    def invalid(text):
        _fail(src, regions_s.offset, "hybrid container: hybrid matrix: " + text)

    if residual_ptr[0] != 0:
        invalid("residual row pointers do not span the residual entries")
    ptr_at = zero_at = 0
    zero_cells = []  # per region: the local row and the offset of each zero
    boxes = _boxes(regions)
    for b, r in enumerate(regions):
        a = _first_overlapping_earlier(regions, spans, boxes, b)
        if a is not None:
            invalid(f"block {b}: overlaps block {a}")
        h = r.height
        zrp = zero_row_ptr[ptr_at:ptr_at + h + 1].astype(np.int64)
        zoff = zero_offsets[zero_at:zero_at + r.zeros].astype(np.int64)
        ptr_at += h + 1
        zero_at += r.zeros
        if zrp[0] != 0 or zrp[-1] != r.zeros:
            invalid(f"block {b}: zero row pointers do not span its zeros")
        bad_rows = (zrp[:-1] > zrp[1:]) | (zrp[1:] > r.zeros)
        local = _first(bad_rows)
        # Rows before the first bad one have good pointers: their zeros are checked first, in order.
        good_end = int(zrp[local]) if local is not None else r.zeros
        zrow = np.repeat(np.arange(h if local is None else local, dtype=np.int64),
                         np.diff(zrp[:(h if local is None else local) + 1]))
        lengths = spans[b][2] - spans[b][1]
        span_size = lengths[zrow]
        z = zoff[:good_end]
        row_first = np.ones(good_end, dtype=bool)
        if good_end > 1:
            row_first[1:] = zrow[1:] != zrow[:-1]
        past = z >= span_size
        not_increasing = np.zeros(good_end, dtype=bool)
        if good_end > 1:
            not_increasing[1:] = (z[1:] <= z[:-1]) & ~row_first[1:]
        _fail_first(invalid, (past, lambda k: f"block {b}: zero {k} lies past its row's span"),
                    (not_increasing, lambda k: f"block {b}: zeros of row {zrow[k]} are not strictly increasing"))
        if local is not None:
            invalid(f"block {b}: zero row pointers out of order at row {local}")
        zero_cells.append((zrow, z))
    _check_residual_binary(residual_ptr, residual_cols, rows, cols, regions, spans, invalid)
    if fallback != (count == 0):
        _fail(src, summary.offset, "hybrid container: fallback flag disagrees with the region count")
    # Ones are implied: counted (cells - zeros) before any is expanded.
    _check_entries(c, nnz + sum(int((sp[2] - sp[1]).sum()) - r.zeros for r, sp in zip(regions, spans)))
    region_rows, region_cols = [], []
    for sp, (zrow, z) in zip(spans, zero_cells):
        lengths = sp[2] - sp[1]
        cell_rows, cell_cols = _region_cells(sp)
        keep = np.ones(cell_rows.size, dtype=bool)
        keep[(np.cumsum(lengths) - lengths)[zrow] + z] = False
        region_rows.append(cell_rows[keep])
        region_cols.append(cell_cols[keep])

    c.field = "pattern"
    c.summary = dict(valued=False, fallback=fallback, reason=reason)
    c.regions = regions
    c.arrays = dict(regions=np.frombuffer(regions_s.data, dtype=REGION_DTYPE, count=count),
                    zero_row_pointers=zero_row_ptr, zero_offsets=zero_offsets, residual_row_pointers=residual_ptr,
                    residual_columns=residual_cols)
    row = np.concatenate([_csr_rows(residual_ptr, rows)] + region_rows)
    col = np.concatenate([residual_cols.astype(np.int64)] + region_cols)
    order = np.lexsort((col, row))
    c._entries = (row[order], col[order], np.ones(row.size, dtype=np.float64))


def _check_residual_binary(ptr, columns, rows, cols, regions, spans, invalid):
    """validateHybrid's residual loop: per row its pointers, then its entries (range, order, blocks)."""
    nnz = columns.size
    p = ptr.astype(np.int64)
    bad_row = _first((p[:-1] > p[1:]) | (p[1:] > nnz))
    limit = int(p[bad_row]) if bad_row is not None else nnz
    good_rows = bad_row if bad_row is not None else rows
    entry_row = _csr_rows(p[:good_rows + 1], good_rows)
    col = columns[:limit].astype(np.int64)
    row_first = np.zeros(limit, dtype=bool)
    row_first[p[:good_rows][np.diff(p[:good_rows + 1]) > 0]] = True
    out_of_order = (col < 0) | (col >= cols)
    if limit > 1:
        out_of_order[1:] |= (col[1:] <= col[:-1]) & ~row_first[1:]
    holder = _inside_regions(regions, spans, entry_row, col)
    _fail_first(invalid,
                (out_of_order, lambda k: f"residual column {col[k]} in row {entry_row[k]} is out of range or out of order"),
                (holder >= 0, lambda k: f"residual entry ({entry_row[k]}, {col[k]}) lies inside block {holder[k]}"))
    if bad_row is not None:
        invalid(f"residual row pointers out of order at row {bad_row}")


# ----------------------------------------------------------------------------------------------
# Hybrid, valued (encoding 1, summary flag bit 1)


def _read_hybrid_valued(c, sec):
    src = sec.source
    rows, cols = c.rows, c.cols
    summary = sec.require(0x0101, "summary")
    sd, so = summary.data, summary.offset
    if summary.size < 16 or _u32(sd, 4) != summary.size - 16 or (_u32(sd, 0) & ~3):
        _fail(src, so, "valued hybrid container: malformed summary section")
    fallback = bool(_u32(sd, 0) & 1)
    reason_length = _u32(sd, 4)
    reason = bytes(sd[8:8 + reason_length]).decode("utf-8", errors="replace")
    value_type = _u32(sd, 8 + reason_length)
    field = _u32(sd, 12 + reason_length)
    if value_type not in (2, 3):
        _fail(src, so + 8 + reason_length, f"valued hybrid container: value type {value_type} is not f32 (2) or f64 (3)")
    if field > 1:
        _fail(src, so + 12 + reason_length, f"valued hybrid container: field {field} is not real (0) or integer (1)")
    vdtype = _VALUE_DTYPES[value_type]
    width = vdtype.itemsize
    for zid in (0x0103, 0x0104):
        s = sec.find(zid)
        if s is not None:
            _fail(src, s.offset, "valued hybrid container: holds a zero-position section of the binary form")
    regions_s = sec.require(0x0102, "regions")
    if regions_s.size % 32 != 0:
        _fail(src, regions_s.offset, "valued hybrid container: region section is not a whole number of 32-byte "
                                     "records")
    values_s = sec.require(0x0107, "region values")
    if values_s.size % width != 0:
        _fail(src, values_s.offset, f"valued hybrid container: region values are not a whole number of {width}-byte "
                                    "values")
    value_count = values_s.size // width
    all_values = np.frombuffer(values_s.data, dtype=vdtype, count=value_count)
    count = regions_s.size // 32
    regions, spans, region_values = [], [], []
    used = 0
    for b in range(count):
        r = _check_region(sec, regions_s, b, rows, cols)
        record_offset = regions_s.offset + 32 * b
        first, last = r.rows_with_cells()
        need_more = f"valued hybrid container: region values hold {value_count} values, the regions need more"
        if last > first and last - first > value_count - used:
            _fail(src, values_s.offset, need_more)
        begin, end = r.spans(first, max(first, last))
        cells = int((end - begin).sum())
        if cells > value_count - used:
            _fail(src, values_s.offset, need_more)
        if r.zeros > cells:
            _fail(src, record_offset + 28, f"valued hybrid container: region {b} claims more zeros than it has cells")
        v = all_values[used:used + cells]
        used += cells
        zeros = int(np.count_nonzero(v == 0))
        if zeros != r.zeros:
            _fail(src, record_offset + 28, f"valued hybrid container: region {b} claims {r.zeros} zero cells, its "
                                           f"values hold {zeros}")
        regions.append(r)
        spans.append((r.row_begin + first, begin, end))
        region_values.append(v)
    if used != value_count:
        _fail(src, values_s.offset, f"valued hybrid container: region values hold {value_count} values, the regions "
                                    f"have {used} cells")
    rp_s = sec.require(0x0105, "residual row pointers")
    residual_ptr = sec.array(rp_s, rows + 1, "<i8", "residual row pointers")
    rc_s = sec.require(0x0106, "residual columns")
    rv_s = sec.require(0x0108, "residual values")
    nnz = int(residual_ptr[-1])
    if nnz < 0 or nnz * 4 != rc_s.size:
        _fail(src, rp_s.offset + 8 * rows, f"valued hybrid container: residual row pointers end at {nnz}, the column "
                                           f"section holds {rc_s.size // 4}")
    if rv_s.size != nnz * width:
        _fail(src, rv_s.offset, f"valued hybrid container: residual values hold {rv_s.size} bytes, expected {nnz} "
                                f"values of {width} bytes")
    residual_cols = sec.array(rc_s, nnz, "<i4", "residual columns")
    residual_values = np.frombuffer(rv_s.data, dtype=vdtype, count=nnz)
    if field == 1:
        for what, parts in (("region", region_values), ("residual", [residual_values])):
            for v in parts:
                k = _first(~_is_whole(v))
                if k is not None:
                    _fail(src, so, f"valued hybrid container: {what} value {k} ({float(v[k]):f}) is not a whole "
                                   "number; field integer")

    def invalid(text):
        _fail(src, regions_s.offset, "valued hybrid container: valued hybrid matrix: " + text)

    p = residual_ptr.astype(np.int64)
    if p[0] != 0:
        invalid("residual: row pointers, columns and values do not agree")
    row = _first(p[:-1] > p[1:])
    if row is not None:
        invalid(f"residual: row pointers decrease at row {row}")
    entry_row = _csr_rows(p, rows)
    col = residual_cols.astype(np.int64)
    bad = (col < 0) | (col >= cols)
    if nnz > 1:
        row_first = np.zeros(nnz, dtype=bool)
        row_first[p[:-1][np.diff(p) > 0]] = True
        bad[1:] |= (col[1:] <= col[:-1]) & ~row_first[1:]
    k = _first(bad)
    if k is not None:
        invalid(f"residual: column {col[k]} in row {entry_row[k]} is out of range, repeated or out of order")
    overlap = _first_overlap(regions, spans)
    if overlap is not None:
        invalid(f"block {overlap[0]}: overlaps block {overlap[1]}")
    holder = _inside_regions(regions, spans, entry_row, col)
    k = _first(holder >= 0)
    if k is not None:
        invalid(f"residual entry ({entry_row[k]}, {col[k]}) lies inside block {holder[k]}")
    if fallback != (count == 0):
        _fail(src, so, "valued hybrid container: fallback flag disagrees with the region count")
    _check_entries(c, nnz + sum(v.size - r.zeros for r, v in zip(regions, region_values)))

    c.field = FIELDS[field]
    c.value_type = VALUE_TYPES[value_type]
    c.summary = dict(valued=True, fallback=fallback, reason=reason, value_type=c.value_type, field=c.field)
    c.regions = regions
    c.arrays = dict(regions=np.frombuffer(regions_s.data, dtype=REGION_DTYPE, count=count),
                    region_values=all_values, residual_row_pointers=residual_ptr, residual_columns=residual_cols,
                    residual_values=residual_values)
    rows_out, cols_out, vals_out = [entry_row], [col], [residual_values.astype(np.float64)]
    for sp, v in zip(spans, region_values):
        cr, cc = _region_cells(sp)
        v = v.astype(np.float64)
        keep = v != 0
        rows_out.append(cr[keep])
        cols_out.append(cc[keep])
        vals_out.append(v[keep])
    row_all, col_all, val_all = (np.concatenate(x) for x in (rows_out, cols_out, vals_out))
    order = np.lexsort((col_all, row_all))
    c._entries = (row_all[order], col_all[order], val_all[order])
