// MATLAB .mat files (spyglass/matfile.h): files written by scipy.io.savemat (version 5) and laid out
// as MATLAB writes version 7.3 (tests/data/mat, made by scripts/make_mat_fixtures.py) open through
// readMatrixFile as the same matrices as the Matrix Market originals; a variable is chosen by name
// (FILE.mat:VAR) or found (the only one, Problem.A); ambiguous, missing, non-matrix, damaged and
// oversized input is refused with InputError naming the file; writing reads back exactly, and
// spyglass-cli info / convert handle .mat as a user runs them.
#include "testmatrices.h"

#include "core/matrixloader.h"
#include "../gpu/src/io/matfile_inprocess.h"

#include "spyglass/convert.h"
#include "spyglass/error.h"
#include "spyglass/matfile.h"
#include "spyglass/matrixfile.h"
#include "spyglass/matrixmarket.h"

#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <malloc.h>

#include <complex>
#include <fstream>
#include <sstream>

using namespace spyglass;

namespace {

using Complex = std::complex<double>;

std::string fixture(const char* name) { return SPYGLASS_SOURCE_DIR "/tests/data/mat/" + std::string(name); }
Matrix original(const char* name) { return readMatrixMarket(sharedMatrix(name).toStdString()); }

std::string bytesOf(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void writeBytes(const std::string& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), std::streamsize(bytes.size()));
}

// The full matrix (mirrors written out, duplicates summed) as dense complex values, column-major.
std::vector<Complex> dense(const Matrix& m) { return toDense<Complex>(m).values; }

// The message of the InputError `read` throws ("" when it throws none or another kind).
template <typename Read> std::string inputErrorOf(Read read) {
    try {
        read();
    } catch (const InputError& e) {
        return e.what();
    } catch (...) {
        return "<another exception>";
    }
    return "";
}

// The value a float file holds for x. Through a volatile float: written inline in the test loop, the
// double -> float -> double round trip left x unrounded with GCC 12 (seen at -O0 and -O2, not explained).
double roundedToFloat(double x) {
    volatile float f = static_cast<float>(x);
    return f;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

} // namespace

class TestMatFile : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::string path(const char* name) const { return m_dir.filePath(QLatin1String(name)).toStdString(); }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void fixturesMatchTheirOriginals_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("original");
        QTest::addColumn<int>("field");
        QTest::addColumn<int>("layout");
        QTest::addColumn<int>("single");  // values rounded to float by the file
        const int coordinate = int(Layout::Coordinate), array = int(Layout::Array);
        QTest::newRow("v5 sparse") << "west0479_sparse.mat" << "west0479.mtx" << int(Field::Real) << coordinate << 0;
        QTest::newRow("v5 sparse compressed") << "west0479_sparse_compressed.mat" << "west0479.mtx" << int(Field::Real) << coordinate << 0;
        QTest::newRow("v5 complex sparse") << "arrowc_complex_sparse.mat" << "arrowc.mtx" << int(Field::Complex) << coordinate << 0;
        QTest::newRow("v5 logical sparse: a pattern") << "karate_logical_sparse.mat" << "karate.mtx" << int(Field::Pattern) << coordinate << 0;
        QTest::newRow("v5 dense double") << "afiro_dense_double.mat" << "lp_afiro.mtx" << int(Field::Real) << array << 0;
        QTest::newRow("v5 dense single compressed") << "afiro_dense_single.mat" << "lp_afiro.mtx" << int(Field::Real) << array << 1;
        QTest::newRow("v5 dense int32") << "karate_dense_int32.mat" << "karate.mtx" << int(Field::Integer) << array << 0;
        QTest::newRow("v5 Problem.A") << "bcsstk02_problem.mat" << "bcsstk02.mtx" << int(Field::Real) << coordinate << 0;
        QTest::newRow("v7.3 sparse") << "west0479_v73.mat" << "west0479.mtx" << int(Field::Real) << coordinate << 0;
        QTest::newRow("v7.3 complex sparse") << "arrowc_complex_v73.mat" << "arrowc.mtx" << int(Field::Complex) << coordinate << 0;
        QTest::newRow("v7.3 dense double") << "afiro_dense_v73.mat" << "lp_afiro.mtx" << int(Field::Real) << array << 0;
        QTest::newRow("v7.3 Problem.A") << "bcsstk02_problem_v73.mat" << "bcsstk02.mtx" << int(Field::Real) << coordinate << 0;
    }
    void fixturesMatchTheirOriginals() {
        QFETCH(QString, file);
        QFETCH(QString, original);
        QFETCH(int, field);
        QFETCH(int, layout);
        QFETCH(int, single);
        const std::string path = fixture(file.toLatin1().constData());
        MatrixFileKind kind = MatrixFileKind::MatrixMarket;
        const Matrix m = readMatrixFile(path, {}, &kind);
        QCOMPARE(int(kind), int(MatrixFileKind::Mat));
        QCOMPARE(int(matrixFileKind(path)), int(MatrixFileKind::Mat));
        QCOMPARE(int(m.field), field);
        QCOMPARE(int(m.layout), layout);
        const Matrix expected = readMatrixMarket(sharedMatrix(original.toLatin1().constData()).toStdString());
        QCOMPARE(m.rows, expected.rows);
        QCOMPARE(m.cols, expected.cols);
        if (m.layout == Layout::Coordinate) QCOMPARE(m.stored(), expandSymmetry(expected).stored());
        else QCOMPARE(m.stored(), Count(m.rows) * m.cols);
        std::vector<Complex> want = dense(expected);
        if (single)
            for (Complex& v : want) v = Complex(roundedToFloat(v.real()), roundedToFloat(v.imag()));
        const std::vector<Complex> got = dense(m);
        QCOMPARE(got.size(), want.size());
        for (std::size_t k = 0; k < got.size(); ++k)  // exact: the files hold the originals' values
            if (got[k] != want[k])
                QFAIL(qPrintable(QStringLiteral("value %1: %2 instead of %3").arg(k).arg(got[k].real(), 0, 'g', 17).arg(want[k].real(), 0, 'g', 17)));
    }

    void variablesAreListedForChoosing() {
        const std::vector<MatVariable> several = listMatVariables(fixture("several.mat"));
        QCOMPARE(several.size(), std::size_t(2));  // the string "note" is not a matrix
        QCOMPARE(QString::fromStdString(several[0].name), QStringLiteral("west0479"));
        QVERIFY(several[0].sparse);
        QCOMPARE(QString::fromStdString(several[0].matlabClass), QStringLiteral("double"));
        QCOMPARE(several[0].rows, 479);
        QCOMPARE(several[0].cols, 479);
        QCOMPARE(QString::fromStdString(several[1].name), QStringLiteral("afiro"));
        QVERIFY(!several[1].sparse);
        QCOMPARE(several[1].rows, 27);
        QCOMPARE(several[1].cols, 51);

        for (const char* file : {"bcsstk02_problem.mat", "bcsstk02_problem_v73.mat"}) {
            const std::vector<MatVariable> problem = listMatVariables(fixture(file));
            QCOMPARE(problem.size(), std::size_t(1));
            QCOMPARE(QString::fromStdString(problem[0].name), QStringLiteral("Problem.A"));
            QVERIFY(problem[0].sparse);
            QCOMPARE(problem[0].rows, 66);
        }
        const std::vector<MatVariable> complexOne = listMatVariables(fixture("arrowc_complex_sparse.mat"));
        QCOMPARE(complexOne.size(), std::size_t(1));
        QVERIFY(complexOne[0].complex);
        QCOMPARE(QString::fromStdString(listMatVariables(fixture("karate_dense_int32.mat"))[0].matlabClass), QStringLiteral("int32"));
        QVERIFY(listMatVariables(fixture("no_matrix.mat")).empty());
    }

    void aVariableIsChosenByName() {
        const std::string several = fixture("several.mat");
        QVERIFY(dense(readMatFile(several, "west0479")) == dense(original("west0479.mtx")));
        QVERIFY(dense(readMatFile(several, "afiro")) == dense(original("lp_afiro.mtx")));
        // FILE.mat:VAR wherever a path is read.
        QVERIFY(dense(readMatrixFile(several + ":afiro")) == dense(original("lp_afiro.mtx")));
        QCOMPARE(int(matrixFileKind(several + ":afiro")), int(MatrixFileKind::Mat));
        QVERIFY(dense(readMatrixFile(fixture("bcsstk02_problem.mat") + ":Problem.A")) == dense(original("bcsstk02.mtx")));
        QVERIFY(dense(readMatrixFile(fixture("west0479_v73.mat") + ":west0479")) == dense(original("west0479.mtx")));
    }

    void anAmbiguousFileNamesItsMatrixVariables() {
        const std::string message = inputErrorOf([&] { readMatrixFile(fixture("several.mat")); });
        QVERIFY2(contains(message, fixture("several.mat")), message.c_str());
        QVERIFY2(contains(message, "west0479") && contains(message, "afiro"), message.c_str());
        QVERIFY2(!contains(message, "note"), message.c_str());
    }

    void aMissingVariableIsRefusedNamingWhatIsThere() {
        const std::string message = inputErrorOf([&] { readMatrixFile(fixture("several.mat") + ":nothere"); });
        QVERIFY2(contains(message, fixture("several.mat")) && contains(message, "nothere"), message.c_str());
        QVERIFY2(contains(message, "afiro") && contains(message, "note"), message.c_str());
        const std::string field = inputErrorOf([&] { readMatFile(fixture("bcsstk02_problem.mat"), "Problem.B"); });
        QVERIFY2(contains(field, "Problem") && contains(field, "'B'"), field.c_str());
    }

    void aNonMatrixVariableIsRefused() {
        const std::string charMessage = inputErrorOf([&] { readMatFile(fixture("several.mat"), "note"); });
        QVERIFY2(contains(charMessage, "note") && contains(charMessage, "char"), charMessage.c_str());
        const std::string cellMessage = inputErrorOf([&] { readMatFile(fixture("no_matrix.mat"), "things"); });
        QVERIFY2(contains(cellMessage, "things") && contains(cellMessage, "cell"), cellMessage.c_str());
        const std::string structField = inputErrorOf([&] { readMatFile(fixture("bcsstk02_problem.mat"), "Problem.name"); });
        QVERIFY2(contains(structField, "char"), structField.c_str());
        const std::string none = inputErrorOf([&] { readMatrixFile(fixture("no_matrix.mat")); });
        QVERIFY2(contains(none, fixture("no_matrix.mat")) && contains(none, "no matrix variable"), none.c_str());
    }

    void aLogicalSparse73VariableIsRefusedClearly() {
        // matio 1.5.23 cannot read a 7.3 logical sparse variable: the reader says so, naming it.
        const std::string path = fixture("karate_logical_v73.mat");
        const std::string message = inputErrorOf([&] { readMatrixFile(path); });
        QVERIFY2(contains(message, path) && contains(message, "karate"), message.c_str());
    }

    void truncatedFilesAreRefusedNamingTheFile() {
        for (const char* name : {"west0479_sparse.mat", "west0479_sparse_compressed.mat", "arrowc_complex_sparse.mat",
                                 "afiro_dense_single.mat", "west0479_v73.mat", "bcsstk02_problem.mat"}) {
            const std::string bytes = bytesOf(fixture(name));
            const std::string cut = path("cut.mat");
            const std::size_t step = std::max<std::size_t>(1, bytes.size() / 97);
            for (std::size_t size = 0; size < bytes.size(); size += step) {
                writeBytes(cut, bytes.substr(0, size));
                const std::string message = inputErrorOf([&] { readMatrixFile(cut); });
                // A file cut inside its header is no longer a .mat and reads as Matrix Market, which
                // refuses it as well; every message names the file.
                QVERIFY2(contains(message, cut), (std::string(name) + " cut at " + std::to_string(size) + ": " + message).c_str());
            }
        }
    }

    void aFileWithoutTheVersion5Or73HeaderIsRefused() {
        // matio would read it as version 4 (no header, any bytes a matrix: the fuzzer's 2 GB
        // allocation); the reader refuses it first, also when called directly.
        std::string bytes = bytesOf(fixture("karate_logical_sparse.mat"));
        bytes[0] = 'X';
        const std::string damaged = path("headerless.mat");
        writeBytes(damaged, bytes);
        const std::string message = inputErrorOf([&] { readMatFile(damaged); });
        QVERIFY2(contains(message, damaged) && contains(message, "version 5 or 7.3"), message.c_str());
        QVERIFY(!inputErrorOf([&] { listMatVariables(damaged); }).empty());
    }

    // matio picks the parser by the header's version field, not its text: the text, the field and the
    // endian indicator must agree, or a file could reach matio's version 5 parser without the framing
    // check (a 7.3 text over 0x0100) or its header-less version 4 one (any other field).
    void aHeaderWhoseTextAndVersionFieldDisagreeIsRefused_data() {
        QTest::addColumn<int>("offset");
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("part");
        // The sparse-without-values finding (470 MB in matio) under a 7.3 text: without the check it
        // went to matio's version 5 parser unchecked.
        QTest::newRow("7.3 text, 0x0100") << 0 << QByteArray("MATLAB 7.3 MAT-file")
                                          << "the header's text says version 7.3 but its version field (bytes 124-125) is 0x0100 (0x0200 expected)";
        QTest::newRow("5.0 text, 0x0300") << 124 << QByteArray("\x00\x03", 2)
                                          << "the header's text says version 5 but its version field (bytes 124-125) is 0x0300 (0x0100 expected)";
        QTest::newRow("endian") << 126 << QByteArray("XY") << "endian indicator (bytes 126-127) is neither";
    }
    void aHeaderWhoseTextAndVersionFieldDisagreeIsRefused() {
        QFETCH(int, offset);
        QFETCH(QByteArray, bytes);
        QFETCH(QString, part);
        std::string file = bytesOf(fixture("fuzz_sparse_without_values_470mb.mat"));
        file.replace(std::size_t(offset), std::size_t(bytes.size()), bytes.toStdString());
        const std::string damaged = path("header_disagrees.mat");
        writeBytes(damaged, file);
        for (const std::string& message : {inputErrorOf([&] { readMatrixFile(damaged); }), inputErrorOf([&] { listMatVariables(damaged); })})
            QVERIFY2(contains(message, damaged) && contains(message, part.toStdString()), message.c_str());
    }

    // The fuzzer's findings (fuzz_matfile): a tag or header matio trusted and allocated by before
    // reading. The framing check refuses each, naming the file and what is wrong.
    void anElementDeclaringMoreThanItsFileHoldsIsRefusedBeforeMatio_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QStringList>("parts");  // what the message must name besides the file
        // karate's row index tag declares 2332033648 bytes in a 1136-byte file.
        QTest::newRow("declares 2 GB") << "fuzz_ir_declares_2gb.mat" << QStringList{"declares 2332033648 bytes", "byte 192"};
        // The row index tag's type became 0, which the format does not have; matio then took a row
        // index (4194238466) for a byte count and allocated 4 GB.
        QTest::newRow("unknown type") << "fuzz_unknown_type_4gb.mat" << QStringList{"unknown type 0 (byte 192)"};
        // The row index tag's type became 17 (UTF-16 text); matio read the indices at the wrong width
        // and allocated 1 GB.
        QTest::newRow("utf-16 indices") << "fuzz_ir_utf16_1gb.mat"
                                        << QStringList{"holds an element of type 17 where 32-bit indices belong"};
        // Type 4 (16-bit integers) there: matio allocated 4 GB. Indices are 32-bit.
        QTest::newRow("16-bit indices") << "fuzz_ir_uint16_4gb.mat"
                                        << QStringList{"holds an element of type 4 where 32-bit indices belong"};
        // The class byte became 16 (a function handle, which Spyglass never reads) with dimensions
        // 34 x 536870946: matio sized it by the dimensions and asked for 146 GB.
        // (Its array flags' tag also declares 0 bytes; that is found first since the flags are checked.)
        QTest::newRow("function handle") << "fuzz_function_class_146gb.mat"
                                         << QStringList{"array flags are not 8 bytes of 32-bit unsigned integers", "byte 152"};
        // A compressed sparse matrix that ends after its row indices: matio read on past its end for the
        // column pointers and values, took the next tag's 469762048 bytes for them and asked for 470 MB
        // (the fuzzer found variants asking up to 2 GB).
        QTest::newRow("sparse without values") << "fuzz_sparse_without_values_470mb.mat"
                                               << QStringList{"class 5 holds 1 sub-elements after its name, too few for its row indices, column pointers and values",
                                                              "byte 5576 of a compressed element"};
        // Dimensions stored as one 8-bit integer: matio read them as 32-bit integers, took the padding
        // after them for the name's length and asked for 1 GB while listing the file's variables.
        // A variable's matrix element of 0 bytes (an empty cell's placeholder, at the top level): matio
        // read the small elements after it as its flags, dimensions and name and asked for 1 GB.
        QTest::newRow("empty variable") << "fuzz_empty_variable_1gb.mat" << QStringList{"a variable's matrix element is empty (0 bytes) (byte 136)"};
        // A 1 x 2 function handle holding one matrix and then a text element: matio read the matrix,
        // failed on the text and dropped what it had read without freeing it (a leak, not an allocation).
        QTest::newRow("function handle short of matrices")
            << "fuzz_function_handle_partial_leak.mat" << QStringList{"a function handle of 2 elements holds 1 matrices (byte 408)"};
        QTest::newRow("8-bit dimensions") << "fuzz_int8_dimensions_1gb.mat"
                                          << QStringList{"dimensions are not two or more 32-bit integers (type 1, 1 bytes)", "byte 240"};
    }
    void anElementDeclaringMoreThanItsFileHoldsIsRefusedBeforeMatio() {
        QFETCH(QString, file);
        QFETCH(QStringList, parts);
        const std::string path = fixture(qPrintable(file));
        const std::string message = inputErrorOf([&] { readMatrixFile(path); });
        QVERIFY2(contains(message, path), message.c_str());
        for (const QString& part : parts) QVERIFY2(contains(message, part.toStdString()), message.c_str());
    }

    // The function handle finding with its array flags repaired: the dimensions (34 x 536870946) still
    // promise more elements than the bytes that follow can hold.
    void anUnreadClassSizedPastItsBytesIsRefused() {
        std::string bytes = bytesOf(fixture("fuzz_function_class_146gb.mat"));
        QCOMPARE(int(bytes[0x8C]), 0);
        bytes[0x8C] = 8;  // the array flags' byte count
        const std::string damaged = path("function_flags_repaired.mat");
        writeBytes(damaged, bytes);
        const std::string message = inputErrorOf([&] { readMatrixFile(damaged); });
        QVERIFY2(contains(message, damaged) && contains(message, "an array of 18253612164 elements has"), message.c_str());
    }

    // A valid file's elements changed so that a container holds fewer sub-elements than its class
    // needs, or a small element declares more bytes than its tag holds: matio would read past the
    // container for the rest. Each is refused, naming the file.
    void aContainerShortOfItsSubElementsIsRefused_data() {
        QTest::addColumn<int>("offset");  // of the 32-bit little-endian word changed in no_matrix.mat
        QTest::addColumn<quint32>("value");
        QTest::addColumn<QString>("part");
        // The cell "things" (1 x 2, two matrices) declared 1 x 3.
        QTest::newRow("cell") << 244 << quint32(3) << "a cell of 3 elements holds 2 matrices";
        // The double 2 x 2 inside it declared 40 bytes instead of 80: its flags, dimensions and name,
        // its values left outside it.
        QTest::newRow("numeric") << 324 << quint32(40) << "class 6 holds 0 sub-elements after its name, too few for its values";
        // The char array "a" (a small element of 1 byte) declared a small element of 61 bytes.
        QTest::newRow("small element") << 312 << quint32(0x003D0010) << "a small element declares 61 bytes, its tag holds 4";
        // ... or a small element of type 14: a matrix cannot fit in a tag.
        QTest::newRow("small matrix") << 312 << quint32(0x0001000E) << "a small element of type 14 (a matrix or compressed element cannot fit in a tag)";
    }
    void aContainerShortOfItsSubElementsIsRefused() {
        QFETCH(int, offset);
        QFETCH(quint32, value);
        QFETCH(QString, part);
        std::string bytes = bytesOf(fixture("no_matrix.mat"));
        for (int k = 0; k < 4; ++k) bytes[std::size_t(offset + k)] = char((value >> (8 * k)) & 0xFF);
        const std::string damaged = path("short_container.mat");
        writeBytes(damaged, bytes);
        const std::string message = inputErrorOf([&] { listMatVariables(damaged); });
        QVERIFY2(contains(message, damaged) && contains(message, part.toStdString()), message.c_str());
    }

    // matio's Mat_VarFree leaves a function handle's contents allocated (the fuzzer's finding: a cell
    // whose class byte became 16, 644 bytes lost a listing by ASan's count); the reader frees them.
    // Run in this process, not the sandbox's child (which ends without a leak check): the heap must
    // not grow with repeated listings here, and the sanitizer build's leak check (scripts/sanitize)
    // sees any loss.
    void aFunctionHandleIsListedWithoutLeaking() {
        const std::string path = fixture("fuzz_function_handle_leak.mat");
        const auto list = [&] {
            for (int k = 0; k < 500; ++k) QVERIFY(spyglass::matfile::listVariablesInProcess(path).empty());
        };
        list();  // matio's and the C library's own first-use allocations
        const std::size_t before = mallinfo2().uordblks;
        list();
        const std::size_t after = mallinfo2().uordblks;
        // With the leak the heap grew by 240000 bytes over these 500 (glibc's count).
        QVERIFY2(after < before + 32 * 1024, qPrintable(QStringLiteral("the heap grew by %1 bytes over 500 listings").arg(qlonglong(after) - qlonglong(before))));
    }

    void corruptedFilesNeverCrash() {
        // Flipped bytes: either a matrix of the declared shape or an InputError naming the file.
        for (const char* name : {"west0479_sparse.mat", "west0479_sparse_compressed.mat", "karate_dense_int32.mat", "west0479_v73.mat"}) {
            const std::string bytes = bytesOf(fixture(name));
            const std::string damaged = path("damaged.mat");
            const std::size_t step = std::max<std::size_t>(1, bytes.size() / 211);
            int refused = 0;
            for (std::size_t at = 128; at < bytes.size(); at += step) {
                std::string copy = bytes;
                copy[at] = char(copy[at] ^ 0x5A);
                writeBytes(damaged, copy);
                try {
                    const Matrix m = readMatrixFile(damaged);
                    QVERIFY(m.rowIndex.size() == m.colIndex.size());
                    for (std::size_t k = 0; k < m.rowIndex.size(); ++k)
                        QVERIFY(m.rowIndex[k] >= 0 && m.rowIndex[k] < m.rows && m.colIndex[k] >= 0 && m.colIndex[k] < m.cols);
                } catch (const InputError& e) {
                    QVERIFY2(contains(e.what(), damaged), e.what());
                    ++refused;
                }
            }
            QVERIFY2(refused > 0, name);
        }
    }

    void maxEntriesIsRefusedBeforeReading() {
        ReadOptions options;
        options.maxEntries = 1000;
        for (const char* name : {"west0479_sparse.mat", "west0479_sparse_compressed.mat", "afiro_dense_double.mat", "west0479_v73.mat",
                                 "afiro_dense_v73.mat", "bcsstk02_problem.mat"}) {
            const std::string message = inputErrorOf([&] { readMatrixFile(fixture(name), options); });
            QVERIFY2(contains(message, fixture(name)) && contains(message, "limit of 1000"), message.c_str());
        }
        options.maxEntries = 1910;  // exactly west0479's entries
        QCOMPARE(readMatrixFile(fixture("west0479_sparse.mat"), options).stored(), Count(1910));
    }

    void cancelStopsReading() {
        std::atomic<bool> cancel{true};
        ReadOptions options;
        options.cancel = &cancel;
        QVERIFY_THROWS_EXCEPTION(CancelledError, readMatrixFile(fixture("west0479_sparse.mat"), options));
    }

    void writingReadsBackExactly_data() {
        QTest::addColumn<QString>("original");
        QTest::addColumn<int>("field");
        QTest::newRow("real") << "west0479.mtx" << int(Field::Real);
        QTest::newRow("complex") << "arrowc.mtx" << int(Field::Complex);
        QTest::newRow("pattern symmetric: logical, written out") << "karate.mtx" << int(Field::Pattern);
        QTest::newRow("real symmetric") << "bcsstk02.mtx" << int(Field::Real);
        QTest::newRow("integer: double") << "Franz6_id1959_aug.mtx" << int(Field::Real);
        QTest::newRow("skew-symmetric") << "skew_fp64.mtx" << int(Field::Real);
    }
    void writingReadsBackExactly() {
        QFETCH(QString, original);
        QFETCH(int, field);
        const Matrix source = readMatrixMarket(sharedMatrix(original.toLatin1().constData()).toStdString());
        const std::string out = path("written.mat");
        writeMatFile(out, source, "M");
        const std::vector<MatVariable> list = listMatVariables(out);
        QCOMPARE(list.size(), std::size_t(1));
        QCOMPARE(QString::fromStdString(list[0].name), QStringLiteral("M"));
        QVERIFY(list[0].sparse);
        const Matrix back = readMatrixFile(out);
        QCOMPARE(int(back.field), field);
        QCOMPARE(back.rows, source.rows);
        QCOMPARE(back.cols, source.cols);
        const CsrMatrix<Complex> want = toCsr<Complex>(expandSymmetry(source)), got = toCsr<Complex>(back);
        QVERIFY(want.rowPtr == got.rowPtr);
        QVERIFY(want.colIndex == got.colIndex);
        QVERIFY(want.values == got.values);
    }

    void writingRefusesABadNameAndKeepsTheOldFile() {
        const std::string out = path("kept.mat");
        writeMatFile(out, original("karate.mtx"));
        const std::string before = bytesOf(out);
        for (const char* bad : {"", "1A", "has space", "a.b"})
            QVERIFY(!inputErrorOf([&] { writeMatFile(out, original("west0479.mtx"), bad); }).empty());
        QVERIFY(bytesOf(out) == before);
        QCOMPARE(QString::fromStdString(listMatVariables(out)[0].name), QStringLiteral("A"));
        QVERIFY(QDir(m_dir.path()).entryList(QDir::Files).filter(QStringLiteral("matio")).isEmpty());  // no scratch left
    }

    void theLoaderAsksWhichVariableOfSeveral() {
        // The GUI's loader (off the GUI thread): several matrices -> a choice, not a document; the
        // chosen FILE.mat:NAME then loads; Problem.A and a single matrix load without asking.
        app::MatrixLoader loader;
        QSignalSpy choice(&loader, &app::MatrixLoader::variableChoiceNeeded);
        QSignalSpy finished(&loader, &app::MatrixLoader::loadFinished);
        QSignalSpy failed(&loader, &app::MatrixLoader::loadFailed);
        const QString several = QString::fromStdString(fixture("several.mat"));
        loader.load(several);
        QVERIFY(choice.wait(20000));
        QCOMPARE(choice.first().at(0).toString(), several);
        QCOMPARE(choice.first().at(1).toStringList(), (QStringList{"west0479", "afiro"}));
        QCOMPARE(choice.first().at(2).toStringList(), (QStringList{"sparse double, 479 x 479", "dense double, 27 x 51"}));
        QCOMPARE(finished.size(), 0);
        loader.load(several + QStringLiteral(":afiro"));
        QVERIFY(finished.wait(20000));
        // The dense 27 x 51 array's zeros are not entries (as MATLAB's nnz): the document holds the
        // nonzeros of lp_afiro.mtx, and its statistics still count the file's 27 x 51 stored values.
        const app::MatrixDocument afiro = finished.last().at(0).value<app::MatrixDocument>();
        QCOMPARE(afiro.matrix()->stored(), original("lp_afiro.mtx").stored());
        QCOMPARE(afiro.stats().stored, Count(27 * 51));
        QCOMPARE(afiro.stats().distinct.arrayZerosDropped, Count(27 * 51) - original("lp_afiro.mtx").stored());
        for (const char* single : {"bcsstk02_problem.mat", "west0479_v73.mat"}) {
            loader.load(QString::fromStdString(fixture(single)));
            QVERIFY(finished.wait(20000));
        }
        QCOMPARE(choice.size(), 1);
        QCOMPARE(failed.size(), 0);
    }

    void theCommandLineReadsAndWritesMat() {
        const QString cli = QCoreApplication::applicationDirPath() + QStringLiteral("/../app/spyglass-cli");
        if (!QFileInfo(cli).isExecutable()) QSKIP("spyglass-cli is not built next to the tests");
        auto run = [&](const QStringList& args, QByteArray* out = nullptr) {
            QProcess process;
            process.start(cli, args);
            if (!process.waitForFinished(120000) || process.exitStatus() != QProcess::NormalExit) return -1;
            if (out) *out = process.readAllStandardOutput() + process.readAllStandardError();
            return process.exitCode();
        };
        QByteArray text;
        const QString several = QString::fromStdString(fixture("several.mat"));
        QCOMPARE(run({"info", several + ":afiro"}, &text), 0);
        QVERIFY2(text.contains("27 x 51") && text.contains("stored entries      1377"), text.constData());
        QCOMPARE(run({"info", several}, &text), 1);
        QVERIFY2(text.contains("west0479") && text.contains("afiro"), text.constData());
        QVERIFY(run({"info", several + ":nothere"}, &text) != 0);

        const QString out = m_dir.filePath(QStringLiteral("y.mat"));
        QCOMPARE(run({"convert", sharedMatrix("west0479.mtx"), out}), 0);
        QCOMPARE(QString::fromStdString(listMatVariables(out.toStdString())[0].name), QStringLiteral("A"));
        QVERIFY(dense(readMatrixFile(out.toStdString())) == dense(original("west0479.mtx")));
        QCOMPARE(run({"convert", sharedMatrix("arrowc.mtx"), out + ":Arrow"}), 0);
        QCOMPARE(QString::fromStdString(listMatVariables(out.toStdString())[0].name), QStringLiteral("Arrow"));
        QVERIFY(dense(readMatrixFile(out.toStdString() + ":Arrow")) == dense(original("arrowc.mtx")));
        // .mat in, Matrix Market out.
        const QString mtx = m_dir.filePath(QStringLiteral("back.mtx"));
        QCOMPARE(run({"convert", several + ":west0479", mtx}), 0);
        QVERIFY(dense(readMatrixMarket(mtx.toStdString())) == dense(original("west0479.mtx")));
    }
};

QTEST_GUILESS_MAIN(TestMatFile)
#include "tst_matfile.moc"
