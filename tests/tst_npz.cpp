// SciPy's .npz and NumPy's .npy (spyglass/npz.h): files written by scipy.sparse.save_npz and
// numpy.save themselves (tests/data/npz, made by scripts/make_npz_fixtures.py) open through
// readMatrixFile as the same matrices as the Matrix Market originals, in every format and dtype;
// damaged and inconsistent archives are refused naming the member and the problem.
#include "testmatrices.h"

#include "spyglass/convert.h"
#include "spyglass/error.h"
#include "spyglass/matrixfile.h"
#include "spyglass/matrixmarket.h"
#include "spyglass/npz.h"

#include <QtTest>

#include <zlib.h>

#include <cmath>
#include <complex>
#include <fstream>
#include <sstream>

using namespace spyglass;

namespace {

using Complex = std::complex<double>;

QString fixture(const char* name) { return QStringLiteral(SPYGLASS_SOURCE_DIR "/tests/data/npz/") + QLatin1String(name); }

Matrix readFile(const QString& path) { return readMatrixFile(path.toStdString()); }

std::string bytesOf(const QString& path) {
    std::ifstream in(path.toStdString(), std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// Largest |difference| between the two matrices as dense complex arrays (small matrices only).
double denseDifference(const Matrix& a, const Matrix& b) {
    if (a.rows != b.rows || a.cols != b.cols) return 1e300;
    const DenseMatrix<Complex> da = toDense<Complex>(a), db = toDense<Complex>(b);
    double worst = 0;
    for (std::size_t k = 0; k < da.values.size(); ++k) worst = std::max(worst, std::abs(da.values[k] - db.values[k]));
    return worst;
}

// A stored (uncompressed) ZIP archive with these members, as numpy.savez would lay them out.
std::string makeZip(const std::vector<std::pair<std::string, std::string>>& members) {
    std::string out, directory;
    auto le = [](std::string& s, std::uint64_t v, int width) {
        for (int i = 0; i < width; ++i) s.push_back(char((v >> (8 * i)) & 0xFF));
    };
    for (const auto& [name, data] : members) {
        const std::uint32_t crc = static_cast<std::uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(data.data()), uInt(data.size())));
        const std::uint64_t offset = out.size();
        le(out, 0x04034b50, 4), le(out, 20, 2), le(out, 0, 2), le(out, 0, 2), le(out, 0, 2), le(out, 0, 2);
        le(out, crc, 4), le(out, data.size(), 4), le(out, data.size(), 4), le(out, name.size(), 2), le(out, 0, 2);
        out += name;
        out += data;
        le(directory, 0x02014b50, 4), le(directory, 20, 2), le(directory, 20, 2), le(directory, 0, 2), le(directory, 0, 2);
        le(directory, 0, 2), le(directory, 0, 2), le(directory, crc, 4), le(directory, data.size(), 4), le(directory, data.size(), 4);
        le(directory, name.size(), 2), le(directory, 0, 2), le(directory, 0, 2), le(directory, 0, 2), le(directory, 0, 2);
        le(directory, 0, 4), le(directory, offset, 4);
        directory += name;
    }
    const std::uint64_t directoryOffset = out.size();
    out += directory;
    le(out, 0x06054b50, 4), le(out, 0, 2), le(out, 0, 2), le(out, members.size(), 2), le(out, members.size(), 2);
    le(out, directory.size(), 4), le(out, directoryOffset, 4), le(out, 0, 2);
    return out;
}

// A version-1 .npy of raw little-endian data.
std::string npy(const std::string& descr, const std::string& shape, const std::string& data) {
    std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
    while ((10 + header.size() + 1) % 64) header.push_back(' ');
    header.push_back('\n');
    std::string out = "\x93NUMPY";
    out.push_back('\x01');
    out.push_back('\x00');
    out.push_back(char(header.size() & 0xFF));
    out.push_back(char(header.size() >> 8));
    return out + header + data;
}

template <typename T> std::string raw(std::initializer_list<T> values) {
    std::string s;
    for (T v : values) s.append(reinterpret_cast<const char*>(&v), sizeof v);
    return s;
}

// A 3 x 4 csr matrix with the given arrays (the members save_npz writes).
std::string csrNpz(const std::string& format, const std::string& indices, const std::string& indptr, const std::string& data) {
    return makeZip({{"indices.npy", indices},
                    {"indptr.npy", indptr},
                    {"format.npy", npy("|S3", "()", format)},
                    {"shape.npy", npy("<i8", "(2,)", raw<std::int64_t>({3, 4}))},
                    {"data.npy", data}});
}

} // namespace

class TestNpz : public QObject {
    Q_OBJECT

private slots:
    void sparseFilesMatchTheirOriginals_data() {
        QTest::addColumn<QString>("npz");
        QTest::addColumn<QString>("original");
        QTest::addColumn<int>("field");
        QTest::newRow("csr") << fixture("west0479_csr.npz") << sharedMatrix("west0479.mtx") << int(Field::Real);
        QTest::newRow("csc compressed") << fixture("west0479_csc_compressed.npz") << sharedMatrix("west0479.mtx") << int(Field::Real);
        QTest::newRow("coo") << fixture("west0479_coo.npz") << sharedMatrix("west0479.mtx") << int(Field::Real);
        QTest::newRow("complex csr") << fixture("young1c_csr.npz") << sharedMatrix("young1c.mtx") << int(Field::Complex);
        QTest::newRow("bool csr: a pattern") << fixture("karate_bool_csr.npz") << sharedMatrix("karate.mtx") << int(Field::Pattern);
        QTest::newRow("bsr 7x7 blocks") << fixture("pts5ldd03_bsr7.npz") << sharedMatrix("pts5ldd03.mtx") << int(Field::Real);
        QTest::newRow("dia") << fixture("olm1000_dia.npz") << sharedMatrix("olm1000.mtx") << int(Field::Real);
    }
    void sparseFilesMatchTheirOriginals() {
        QFETCH(QString, npz);
        QFETCH(QString, original);
        QFETCH(int, field);
        MatrixFileKind kind = MatrixFileKind::MatrixMarket;
        const Matrix m = readMatrixFile(npz.toStdString(), {}, &kind);
        QCOMPARE(kind, MatrixFileKind::Npz);
        QCOMPARE(int(m.field), field);
        const Matrix expected = readMatrixMarket(original.toStdString());
        QCOMPARE(denseDifference(m, expandSymmetry(expected)), 0.0);
    }

    void integerAndFloat32OfARectangularMatrix() {
        const Matrix expected = readMatrixMarket(sharedMatrix("Franz6_id1959_aug.mtx").toStdString());
        const CsrMatrix<double> want = toCsr<double>(expected);
        for (const char* name : {"franz6_int64_csr.npz", "franz6_float32_coo.npz"}) {
            const Matrix m = readFile(fixture(name));
            QCOMPARE(m.rows, 10592);
            QCOMPARE(m.cols, 3016);
            QCOMPARE(int(m.field), QByteArray(name).contains("int64") ? int(Field::Integer) : int(Field::Real));
            const CsrMatrix<double> got = toCsr<double>(m);
            QVERIFY(got.rowPtr == want.rowPtr);
            QVERIFY(got.colIndex == want.colIndex);
            QVERIFY(got.values == want.values);
        }
    }

    void denseArrays() {
        const Matrix expected = readMatrixMarket(sharedMatrix("lp_afiro.mtx").toStdString());
        for (const char* name : {"lp_afiro_dense_c.npy", "lp_afiro_dense_fortran.npy", "lp_afiro_dense_float32_be.npy"}) {
            MatrixFileKind kind = MatrixFileKind::MatrixMarket;
            const Matrix m = readMatrixFile(fixture(name).toStdString(), {}, &kind);
            QCOMPARE(kind, MatrixFileKind::Npy);
            QCOMPARE(m.layout, Layout::Array);
            QCOMPARE(m.rows, 27);
            QCOMPARE(m.cols, 51);
            // float32 rounds the LP coefficients: within float32's half ulp of values below 100.
            const double bound = QByteArray(name).contains("float32") ? 1e-5 : 0.0;
            QVERIFY2(denseDifference(m, expected) <= bound, name);
        }
        const Matrix complex = readFile(fixture("arrowc_dense_complex64.npy"));
        QCOMPARE(complex.field, Field::Complex);
        QVERIFY(denseDifference(complex, readMatrixMarket(sharedMatrix("arrowc.mtx").toStdString())) < 1e-5);
    }

    void writtenFilesReadBack_data() {
        QTest::addColumn<QString>("file");
        for (const char* name : {"west0479.mtx", "young1c.mtx", "karate.mtx", "bcsstk13.mtx", "skew_fp64.mtx", "lp_afiro.mtx", "full.mtx"})
            QTest::newRow(name) << QString::fromLatin1(name);
    }
    void writtenFilesReadBack() {
        QFETCH(QString, file);
        const Matrix original = readMatrixMarket(sharedMatrix(file.toLatin1().constData()).toStdString());
        const Matrix sparse = parseNpz(serializeNpz(original), "written.npz");
        // The full matrix comes back (SciPy has no symmetric form), in the original's field.
        QCOMPARE(sparse.symmetry, Symmetry::General);
        QCOMPARE(int(sparse.field), int(original.field == Field::Double ? Field::Real : original.field));
        QCOMPARE(sparse.stored(), expandSymmetry(original).stored());
        const double diff = denseDifference(sparse, expandSymmetry(original));
        QVERIFY2(diff == 0 || (std::isnan(diff) && file == QLatin1String("skew_fp64.mtx")), qPrintable(QString::number(diff)));
        const Matrix dense = parseNpy(serializeNpy(original), "written.npy");
        QCOMPARE(dense.layout, Layout::Array);
        const double denseDiff = denseDifference(dense, original);
        QVERIFY2(denseDiff == 0 || (std::isnan(denseDiff) && file == QLatin1String("skew_fp64.mtx")), qPrintable(QString::number(denseDiff)));
    }

    void craftedArchivesAreChecked() {
        const std::string indices = npy("<i4", "(3,)", raw<std::int32_t>({0, 3, 1}));
        const std::string indptr = npy("<i4", "(4,)", raw<std::int32_t>({0, 1, 2, 3}));
        const std::string data = npy("<f8", "(3,)", raw<double>({1.5, -2.0, 4.0}));
        const Matrix good = parseNpz(csrNpz("csr", indices, indptr, data), "good.npz");
        QCOMPARE(good.rows, 3);
        QCOMPARE(good.cols, 4);
        QCOMPARE(good.real, (std::vector<double>{1.5, -2.0, 4.0}));
        QCOMPARE(good.colIndex, (std::vector<Index>{0, 3, 1}));

        auto refused = [](const std::string& bytes, const char* words) {
            try {
                parseNpz(bytes, "bad.npz");
            } catch (const InputError& e) {
                const QString what = QString::fromUtf8(e.what());
                if (!what.contains(QLatin1String(words))) qWarning() << what;
                return what.contains(QLatin1String(words)) && what.startsWith(QLatin1String("bad.npz"));
            }
            return false;
        };
        QVERIFY(refused(csrNpz("csr", npy("<i4", "(3,)", raw<std::int32_t>({0, 4, 1})), indptr, data), "indices[1] = 4 is outside [0, 4)"));
        QVERIFY(refused(csrNpz("csr", indices, npy("<i4", "(4,)", raw<std::int32_t>({0, 2, 1, 3})), data), "indptr decreases"));
        QVERIFY(refused(csrNpz("csr", indices, npy("<i4", "(3,)", raw<std::int32_t>({0, 1, 2})), data), "indptr.npy has 3 entries"));
        QVERIFY(refused(csrNpz("lil", indices, indptr, data), "format 'lil'"));
        QVERIFY(refused(csrNpz("csr", indices, indptr, npy("<f8", "(4,)", raw<double>({1, 2, 3}))), "bytes of data"));
        QVERIFY(refused(csrNpz("csr", indices, indptr, npy("<V8", "(3,)", raw<double>({1, 2, 3}))), "not a numeric type"));
        QVERIFY(refused(makeZip({{"format.npy", npy("|S3", "()", "csr")}}), "no member shape.npy"));
        std::string archive = csrNpz("csr", indices, indptr, data);
        archive[archive.find("indptr.npy") + 40] ^= 0x55;  // inside a member: its CRC no longer matches
        QVERIFY(refused(archive, "CRC-32"));
        QVERIFY(refused(archive.substr(0, archive.size() - 30), "end-of-central-directory"));
        QVERIFY(refused("PK\x03\x04 not really", "too short"));
    }

    void damagedRealFilesAreRefused() {
        // Every truncation point of a compressed file gives an InputError (never a crash); a flipped
        // byte in its deflated data is refused too.
        const std::string bytes = bytesOf(fixture("olm1000_dia.npz"));
        for (std::size_t cut = 0; cut < bytes.size(); cut += 7)
            QVERIFY_THROWS_EXCEPTION(InputError, parseNpz(bytes.substr(0, cut), "cut.npz"));
        // The first bytes of every member's data (after its local header, whose other fields the
        // central directory overrides).
        int members = 0;
        for (std::size_t p = bytes.find("PK\x03\x04"); p != std::string::npos; p = bytes.find("PK\x03\x04", p + 4)) {
            const auto u16 = [&](std::size_t at) { return std::size_t(std::uint8_t(bytes[at])) | (std::size_t(std::uint8_t(bytes[at + 1])) << 8); };
            const std::size_t start = p + 30 + u16(p + 26) + u16(p + 28);
            ++members;
            for (std::size_t at = start; at < start + 8 && at < bytes.size(); ++at) {
                std::string flipped = bytes;
                flipped[at] = char(flipped[at] ^ 0x20);
                try {
                    parseNpz(flipped, "flipped.npz");
                    QFAIL(qPrintable(QStringLiteral("a flipped byte at %1 was accepted").arg(at)));
                } catch (const InputError&) {
                }
            }
        }
        QCOMPARE(members, 4);  // format, shape, offsets, data
        QVERIFY_THROWS_EXCEPTION(InputError, parseNpy(bytesOf(fixture("lp_afiro_dense_c.npy")).substr(0, 500), "cut.npy"));
        // The entry limit applies before anything is unpacked.
        QVERIFY_THROWS_EXCEPTION(InputError, parseNpz(bytesOf(fixture("west0479_csr.npz")), "big.npz", 100));
    }
};

QTEST_GUILESS_MAIN(TestNpz)
#include "tst_npz.moc"
