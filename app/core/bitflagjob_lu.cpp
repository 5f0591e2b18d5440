// LU(A) for the bit-flag panel: the seed's LU without pivoting and LU with partial pivoting, each on
// the CPU reference, Spyglass's CUDA kernels and (pivoted) cuSOLVER getrf. Every run is checked by
// its backward error |P A - L U| <= gamma_n |L| |U|; runs of the same kind are also compared with
// their CPU reference's factors.
#include "bitflagcheck.h"
#include "bitflagjob_steps.h"
#include "bitflagops.h"

#include "spyglass/convert.h"

#include <optional>

namespace spyglass::app::bitflagjob_steps {

namespace {

// P A: row i is row order[i] of A.
CsrMatrix<double> permuteRows(const CsrMatrix<double>& a, const std::vector<Index>& order) {
    CsrMatrix<double> p;
    p.rows = a.rows;
    p.cols = a.cols;
    p.rowPtr.reserve(a.rowPtr.size());
    p.rowPtr.push_back(0);
    p.colIndex.reserve(a.colIndex.size());
    p.values.reserve(a.values.size());
    for (Index i = 0; i < a.rows; ++i) {
        const Index from = order[std::size_t(i)];
        for (Count k = a.rowPtr[std::size_t(from)]; k < a.rowPtr[std::size_t(from) + 1]; ++k) {
            p.colIndex.push_back(a.colIndex[std::size_t(k)]);
            p.values.push_back(a.values[std::size_t(k)]);
        }
        p.rowPtr.push_back(Count(p.values.size()));
    }
    return p;
}

// What a run hands to the checker: the factors and the rows of A they factor.
struct Factors {
    CsrMatrix<double> lower, upper;
    std::vector<Index> rowOrder;  // empty: no pivoting
};

Factors factorsOf(const BitFlagLu<double>& lu) { return {decodeBitFlag(lu.lower), decodeBitFlag(lu.upper), {}}; }
Factors factorsOf(const BitFlagPivotedLu<double>& lu) {
    return {decodeBitFlag(lu.lower), decodeBitFlag(lu.upper), lu.rowOrder};
}

class LuChecker {
public:
    LuChecker(const CsrMatrix<double>& a, const std::atomic<bool>* cancel) : m_a(a), m_cancel(cancel) {}

    // Backward error of the run's factors; against the reference's factors when both pivoted alike.
    void check(BitFlagOpRun& run, const Factors& f, const Factors* reference) const {
        const Index n = m_a.rows;
        const double u64 = unitRoundoff64();
        run.entries = f.lower.nnz() + f.upper.nnz();
        const CsrMatrix<double> pa = f.rowOrder.empty() ? m_a : permuteRows(m_a, f.rowOrder);
        const LuCheck c = checkLu(pa, f.lower, f.upper, gamma(n, u64) + gamma(n, u64), m_cancel);
        run.residual = c.residual;
        run.worstBoundRatio = c.worstBoundRatio;
        run.agrees = c.agrees();
        run.problem = c.firstProblem;
        if (!reference) return;
        if (reference->rowOrder != f.rowOrder) {
            if (run.problem.isEmpty()) run.problem = QStringLiteral("row order differs from the CPU reference's (a near tie)");
            return;
        }
        run.maxDifference = std::max(maxRelativeDifference(f.lower, reference->lower), maxRelativeDifference(f.upper, reference->upper));
    }

private:
    const CsrMatrix<double>& m_a;
    const std::atomic<bool>* m_cancel;
};

} // namespace

BitFlagOpResult runLu(const BitFlagOpRequest& request, const Matrix& a, Reporter& report, const std::atomic<bool>* cancel) {
    BitFlagOpResult result;
    result.op = BitFlagOp::Lu;
    result.rows = a.rows;
    result.cols = a.cols;

    report.stage(QStringLiteral("Encoding A"), 0, 5);
    BitFlagOptions options;
    options.prefixCounts = request.prefixCounts;
    const BitFlagMatrix<double> bfA = encodeBitFlag(toCsr<double>(a), options);
    const CsrMatrix<double> inA = decodeBitFlag(bfA);
    const LuChecker checker(inA, cancel);
    std::optional<Factors> seedReference, pivotedReference;

    BitFlagOpRun reference;
    reference.name = QStringLiteral("CPU reference (bit-flag)");  // the seed: no pivoting
    reference.checkedAgainst = QStringLiteral("|A − LU| ≤ γn |L||U|");
    report.stage(QStringLiteral("CPU reference LU"), 5, 40);
    attempt(reference, [&] {
        BitFlagRunOptions control;
        control.cancel = cancel;
        control.progress = report.callback();
        BitFlagLu<double> lu;
        reference.timing = cpuTimed([&] { lu = luWithoutPivoting(bfA, control); });
        report.stage(QStringLiteral("Checking A = LU"), 40, 48);
        seedReference = factorsOf(lu);
        checker.check(reference, *seedReference, nullptr);
        result.lower = std::make_shared<const CsrMatrix<double>>(seedReference->lower);
        result.upper = std::make_shared<const CsrMatrix<double>>(seedReference->upper);
    });
    result.runs << reference;

    BitFlagOpRun pivoted;
    pivoted.name = QStringLiteral("CPU reference, partial pivoting");
    pivoted.checkedAgainst = QStringLiteral("|PA − LU| ≤ γn |L||U|");
    report.stage(QStringLiteral("CPU reference LU with partial pivoting"), 48, 70);
    attempt(pivoted, [&] {
        BitFlagPivotedLu<double> lu;
        pivoted.timing = cpuTimed([&] { lu = luWithPartialPivoting(bfA); });
        report.stage(QStringLiteral("Checking PA = LU"), 70, 76);
        pivotedReference = factorsOf(lu);
        checker.check(pivoted, *pivotedReference, nullptr);
    });
    result.runs << pivoted;

    // factor(options) runs one backend with the given options (measured into the run's timing).
    const auto gpuRun = [&](const QString& name, const QString& stage, double from, double to, const Factors* against,
                            auto&& factor) {
        report.stage(stage, from, to);
        BitFlagOpRun run;
        run.name = name;
        run.checkedAgainst = against ? QStringLiteral("backward error, CPU factors") : QStringLiteral("backward error");
        attempt(run, [&] {
            Factors f;
            f = factor(&run.timing);
            checker.check(run, f, against);
        });
        result.runs << run;
    };
    const Factors* seedAgainst = seedReference ? &*seedReference : nullptr;
    const Factors* pivotedAgainst = pivotedReference ? &*pivotedReference : nullptr;
    auto on = [](BitFlagBackend backend, Measurement* measured) {
        BitFlagRunOptions options;
        options.backend = backend;
        options.measured = measured;
        return options;
    };
    if (request.cuda) {
        gpuRun(QStringLiteral("CUDA bit-flag LU (shared memory, no pivoting)"), QStringLiteral("CUDA shared-memory LU"), 76, 84,
               seedAgainst, [&](Measurement* m) { return factorsOf(luWithoutPivoting(bfA, on(BitFlagBackend::Cuda, m))); });
        gpuRun(QStringLiteral("CUDA blocked LU, partial pivoting"), QStringLiteral("CUDA blocked LU"), 84, 92, pivotedAgainst,
               [&](Measurement* m) { return factorsOf(luWithPartialPivoting(bfA, on(BitFlagBackend::Cuda, m))); });
    }
    if (request.vendor)
        gpuRun(QStringLiteral("cuSOLVER getrf (fp64, dense)"), QStringLiteral("cuSOLVER getrf"), 92, 99, pivotedAgainst,
               [&](Measurement* m) { return factorsOf(luWithPartialPivoting(bfA, on(BitFlagBackend::Vendor, m))); });
    return result;
}

} // namespace spyglass::app::bitflagjob_steps
