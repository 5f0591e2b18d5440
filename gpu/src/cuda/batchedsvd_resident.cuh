#pragma once
// Method C kernel, variant RegisterResident: the whole matrix (W and V) stays in the registers of a
// group of L lanes, K rows each, for every sweep; each lane takes part in every pair of a step.
//
// Why: RegisterGroups keeps W and V in shared memory and gives each pair of a step its own lanes, so
// every step pays the loads and stores of both columns, a block barrier, and one pair's rotation
// angle on the critical path of each lane. Here a lane computes the Gram entries of all H pairs of a
// step over its K rows (H independent chains), the group sums them by xor shuffles, each lane works
// out the angles of H / L pairs and hands them round, and every lane rotates its rows of all pairs:
// no shared memory, no barrier, and H pairs of independent work between shuffles.
//
// The columns sit in Brent-Luk's top and bottom rows (BrentLukOrdering): pair k of a step is
// (top[k], bottom[k]); after each step the registers move one place round the ring (column 0 stays),
// so the pairs are the same as every other variant's, in the same steps. A group ends its sweeps
// when its matrix has converged; the warp goes on while any of its groups has not (a converged
// sweep rotates nothing, so the extra sweeps leave W and V as they are).
#include "batchedsvd_block.cuh"  // pairRotationRefinedRoots, and the status and layout conventions
#include "spyglass/batchedsvd.h"

namespace spyglass::cuda::svd {

constexpr int kResidentThreads = 128;

// Status of a matrix this kernel hands over to the block kernels: a column of W ended with zero (or
// no finite reciprocal) norm, whose U column needs the serial completion of finishBlockMatrix.
constexpr int kResidentHandOver = -2;

template <typename S, int H, int K, int L, int MinBlocks>
__global__ void __launch_bounds__(kResidentThreads, MinBlocks)
jacobiSvdResidentKernel(const S* __restrict__ a, S* __restrict__ u, RealOf<S>* __restrict__ sigma, S* __restrict__ v,
                        int* __restrict__ status, int* __restrict__ sweepsOut, RealOf<S>* __restrict__ offOut, int m,
                        int n, long long count, RealOf<S> tol, int maxSweeps) {
    using R = RealOf<S>;
    static_assert(H % L == 0, "the pairs of a step share out evenly over the lanes");
    constexpr int kMine = H / L;                          // pairs whose angle this lane works out
    constexpr int kParts = sizeof(S) == sizeof(R) ? 3 : 4;  // reals in (pa, pb, pc)
    const long long b = (static_cast<long long>(blockIdx.x) * kResidentThreads + threadIdx.x) / L;
    const int lane = threadIdx.x % L;
    const bool valid = b < count;
    const S* const w = a + (valid ? b : 0) * m * n;

    // Rows lane + L*r; columns 2k (top) and 2k+1 (bottom) at the start, as BrentLukOrdering.
    S top[H][K], bot[H][K], vTop[H][K], vBot[H][K];
    int colTop[H], colBot[H];
    bool finite = true;
#pragma unroll
    for (int k = 0; k < H; ++k) {
        colTop[k] = 2 * k;
        colBot[k] = 2 * k + 1;
#pragma unroll
        for (int r = 0; r < K; ++r) {
            const int row = lane + L * r;
            top[k][r] = zero<S>();
            bot[k][r] = zero<S>();
            if (valid && row < m && 2 * k < n) top[k][r] = w[(2 * k) * m + row];
            if (valid && row < m && 2 * k + 1 < n) bot[k][r] = w[(2 * k + 1) * m + row];
            finite &= finiteScalar(top[k][r]) && finiteScalar(bot[k][r]);
            vTop[k][r] = (row == 2 * k && row < n) ? one<S>() : zero<S>();
            vBot[k][r] = (row == 2 * k + 1 && row < n) ? one<S>() : zero<S>();
        }
    }
    int bad = finite ? 0 : 1;
#pragma unroll
    for (int mask = L / 2; mask > 0; mask /= 2) bad |= __shfl_xor_sync(0xffffffffu, bad, mask, L);
    if (bad) {
        // Sweep over zeros (no rotation), so that the warp's shuffles stay together; NaN at the end.
#pragma unroll
        for (int k = 0; k < H; ++k)
#pragma unroll
            for (int r = 0; r < K; ++r) top[k][r] = bot[k][r] = zero<S>();
    }

    int sweeps = 0;
    R sweepMax = 0;
    bool converged = false, done = !valid || bad;
    while (__any_sync(0xffffffffu, !done)) {
        R myMax = 0;
#pragma unroll 1
        for (int step = 0; step < 2 * H - 1; ++step) {
            // Gram entries of every pair over this lane's rows: re(pa), re(pb), then pc's parts.
            R g[H][kParts];
#pragma unroll
            for (int k = 0; k < H; ++k) {
                R pa = 0, pb = 0;
                S pc = zero<S>();
#pragma unroll
                for (int r = 0; r < K; ++r) {
                    pa += squaredMagnitude(top[k][r]);
                    pb += squaredMagnitude(bot[k][r]);
                    accumulateConjProduct(pc, top[k][r], bot[k][r]);
                }
                g[k][0] = pa;
                g[k][1] = pb;
                g[k][2] = realPart(pc);
                if (kParts == 4) g[k][kParts - 1] = imagPart(pc);
            }
            // Summed over the group by halving exchanges (a reduce-scatter): at each level a lane keeps
            // half of its pairs and adds its partner's share of them, so that lane l ends with the sums
            // of pairs l*H/L .. (l+1)*H/L - 1 after log2(L) levels and H - H/L shuffles per part
            // (an all-reduce of every pair would take H log2(L)): the shuffle unit set the pace.
#pragma unroll
            for (int mask = L / 2, half = H / 2; mask > 0; mask /= 2, half /= 2) {
                const bool upper = (lane & mask) != 0;
#pragma unroll
                for (int k = 0; k < half; ++k)
#pragma unroll
                    for (int part = 0; part < kParts; ++part) {
                        const R keep = upper ? g[k + half][part] : g[k][part];
                        const R give = upper ? g[k][part] : g[k + half][part];
                        g[k][part] = keep + __shfl_xor_sync(0xffffffffu, give, mask, L);
                    }
            }
            // This lane's pairs' angles, then every pair's angle fetched from the lane that has it.
            R myCs[kMine], mySn[kMine];
            S myE[kMine];
#pragma unroll
            for (int j = 0; j < kMine; ++j) {
                myCs[j] = 1;
                mySn[j] = 0;
                myE[j] = one<S>();
                R cs, sn;
                S e;
                if (pairRotationRefinedRoots(true, g[j][0], g[j][1], FromParts<S>::make(g[j][2], g[j][kParts - 1]), tol, myMax, cs, sn, e)) {
                    myCs[j] = cs;
                    mySn[j] = kParts == 4 ? sn : sn * realPart(e);
                    myE[j] = e;
                }
            }
#pragma unroll
            for (int k = 0; k < H; ++k) {
                const R cs = __shfl_sync(0xffffffffu, myCs[k % kMine], k / kMine, L);
                const R sn = __shfl_sync(0xffffffffu, mySn[k % kMine], k / kMine, L);
                // A real e is the sign of c, already folded into sn: one shuffle fewer per pair.
                S e = one<S>();
                if constexpr (kParts == 4) e = groupShuffle(myE[k % kMine], k / kMine, L);
                if (sn != R(0)) {
#pragma unroll
                    for (int r = 0; r < K; ++r) {
                        rotate(top[k][r], bot[k][r], cs, sn, e);
                        rotate(vTop[k][r], vBot[k][r], cs, sn, e);
                    }
                }
            }
            // One place round the ring: top[0] stays, bottom[0] goes up to top[1], the top row moves
            // right, the bottom row left, and the last top goes down.
            if (H > 1) {
                const int keepTop = colTop[H - 1];
#pragma unroll
                for (int r = 0; r < K; ++r) {
                    const S t = top[H - 1][r], vt = vTop[H - 1][r];
#pragma unroll
                    for (int k = H - 1; k >= 2; --k) {
                        top[k][r] = top[k - 1][r];
                        vTop[k][r] = vTop[k - 1][r];
                    }
                    top[1][r] = bot[0][r];
                    vTop[1][r] = vBot[0][r];
#pragma unroll
                    for (int k = 0; k + 1 < H; ++k) {
                        bot[k][r] = bot[k + 1][r];
                        vBot[k][r] = vBot[k + 1][r];
                    }
                    bot[H - 1][r] = t;
                    vBot[H - 1][r] = vt;
                }
#pragma unroll
                for (int k = H - 1; k >= 2; --k) colTop[k] = colTop[k - 1];
                colTop[1] = colBot[0];
#pragma unroll
                for (int k = 0; k + 1 < H; ++k) colBot[k] = colBot[k + 1];
                colBot[H - 1] = keepTop;
            }
        }
#pragma unroll
        for (int mask = L / 2; mask > 0; mask /= 2) myMax = max(myMax, __shfl_xor_sync(0xffffffffu, myMax, mask, L));
        if (!done) {
            ++sweeps;
            sweepMax = myMax;
            if (sweepMax <= tol) converged = done = true;
            else if (sweeps >= maxSweeps) done = true;
        }
    }
    if (!valid) return;
    const std::size_t mn = static_cast<std::size_t>(m) * n, nn = static_cast<std::size_t>(n) * n;
    if (bad) {
        for (int idx = lane; idx < m * n; idx += L) u[b * mn + idx] = scalarNaN<S>();
        for (int idx = lane; idx < n * n; idx += L) v[b * nn + idx] = scalarNaN<S>();
        for (int idx = lane; idx < n; idx += L) sigma[b * n + idx] = realNaN<R>();
        if (lane == 0) {
            status[b] = static_cast<int>(SvdStatus::NonFiniteInput);
            sweepsOut[b] = 0;
            offOut[b] = realNaN<R>();
        }
        return;
    }
    // Column norms over the group; the rank of each column in descending, index-stable order.
    R normTop[H], normBot[H];
#pragma unroll
    for (int k = 0; k < H; ++k) {
        R st = 0, sb = 0;
#pragma unroll
        for (int r = 0; r < K; ++r) {
            st += squaredMagnitude(top[k][r]);
            sb += squaredMagnitude(bot[k][r]);
        }
#pragma unroll
        for (int mask = L / 2; mask > 0; mask /= 2) {
            st += __shfl_xor_sync(0xffffffffu, st, mask, L);
            sb += __shfl_xor_sync(0xffffffffu, sb, mask, L);
        }
        normTop[k] = sqrt(st);
        normBot[k] = sqrt(sb);
    }
    bool handOver = false;
    auto rankOf = [&](R norm, int col) {
        int rank = 0;
#pragma unroll
        for (int q = 0; q < H; ++q) {
            rank += (normTop[q] > norm || (normTop[q] == norm && colTop[q] < col)) && colTop[q] < n;
            rank += (normBot[q] > norm || (normBot[q] == norm && colBot[q] < col)) && colBot[q] < n;
        }
        return rank;
    };
    auto store = [&](const S (&col)[K], const S (&vcol)[K], R norm, int index) {
        if (index >= n) return;  // the phantom column of an odd n
        if (!(norm > R(0)) || !isfinite(R(1) / norm)) {
            handOver = true;
            return;
        }
        const int rank = rankOf(norm, index);
        const R scale = R(1) / norm;
#pragma unroll
        for (int r = 0; r < K; ++r) {
            const int row = lane + L * r;
            if (row < m) u[b * mn + static_cast<std::size_t>(rank) * m + row] = scaleBy(col[r], scale);
            if (row < n) v[b * nn + static_cast<std::size_t>(rank) * n + row] = vcol[r];
        }
        if (lane == 0) sigma[b * n + rank] = norm;
    };
#pragma unroll
    for (int k = 0; k < H; ++k) {
        store(top[k], vTop[k], normTop[k], colTop[k]);
        store(bot[k], vBot[k], normBot[k], colBot[k]);
    }
    if (lane == 0) {
        // A zero column is the same in every lane of the group (the norms are the group's): the
        // whole matrix goes to the block kernel, which overwrites what was stored above.
        status[b] = handOver ? kResidentHandOver : static_cast<int>(converged ? SvdStatus::Converged : SvdStatus::NotConverged);
        sweepsOut[b] = sweeps;
        offOut[b] = sweepMax;
    }
}

} // namespace spyglass::cuda::svd
