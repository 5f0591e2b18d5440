#include "batchshare.h"

namespace spyglass::app {
namespace {

// floor(batch * k / worldSize) for 0 <= k <= worldSize: batch = q W + s, so it is q k + floor(s k / W),
// where s k < W^2 fits in 64 bits.
qint64 cut(qint64 batch, qint64 k, qint64 worldSize) {
    return batch / worldSize * k + batch % worldSize * k / worldSize;
}

} // namespace

BatchShare batchShare(qint64 batch, int rank, int worldSize) {
    return {cut(batch, rank, worldSize), cut(batch, qint64(rank) + 1, worldSize)};
}

} // namespace spyglass::app
