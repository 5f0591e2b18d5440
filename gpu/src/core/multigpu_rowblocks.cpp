// The row blocks of one-process-per-GPU runs (spyglass/multigpu.h): the CSR plan's cuts, computed
// from entry counts alone, so a rank can learn its rows before it holds any entry.
#include "core/multigpu_rowbytes.h"

#include "spyglass/error.h"
#include "spyglass/multigpu.h"

#include <limits>

namespace spyglass {

std::vector<Index> csrRowBlocks(const std::vector<Count>& entriesPerRow, Index cols, int ranks, std::size_t valueBytes) {
    if (ranks < 1) throw InputError("row blocks: at least one rank is needed (got " + std::to_string(ranks) + ")");
    const auto rows = static_cast<Index>(entriesPerRow.size());
    RowCosts costs;
    costs.bytesBefore.assign(entriesPerRow.size() + 1, 0);
    for (std::size_t r = 0; r < entriesPerRow.size(); ++r)
        costs.bytesBefore[r + 1] = costs.bytesBefore[r] + csrRowBytes(entriesPerRow[r], valueBytes);
    // The columns only decide the exchange, not where the cuts fall: left empty.
    costs.colBegin.assign(entriesPerRow.size(), std::numeric_limits<Index>::max());
    costs.colEnd.assign(entriesPerRow.size(), 0);
    costs.cutAllowed.assign(entriesPerRow.size() + 1, 1);
    const PartitionPlan plan = planRowPartitions(costs, cols, ranks, PartitionFormat::Csr, valueBytes);
    std::vector<Index> starts;
    for (const RowPartition& part : plan.parts) starts.push_back(part.rowBegin);
    // Fewer rows than ranks: the plan has fewer parts, and the ranks past them hold no rows.
    while (starts.size() < std::size_t(ranks) + 1) starts.push_back(rows);
    return starts;
}

} // namespace spyglass
