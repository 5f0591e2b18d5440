// Step 3 of the seed: reconstruction by iterative merging, for load balance between thread blocks.
//
// The seed: sort the segments by operand count, descending, into P; repeat: take the minimum and
// the maximum of P; if max > 2 x min, take the second smallest; if max > 2 x second smallest too,
// merge the smallest into it ... (the text breaks off there).
//
// The rule written down here, completing it:
//   while there are at least two blocks and max > 2 x min:
//     merge the smallest block into the second smallest one (ties broken by lower lead segment).
//   The step is labelled TwoSmallest when max > 2 x second smallest (the seed's case: both are
//   small, and their sum, at most 2 x second smallest, stays below max, so max never grows), and
//   SmallestIntoNext otherwise (only the smallest lags; joining the second smallest makes the
//   smallest block that can be made, which may become the new max).
// Invariant on exit: max <= 2 x min over all blocks (or a single block). It terminates because each
// step removes one block. Work is the seed's operand count, diagonals x rows, plus the nonzeros of
// the segment's CSR remainder where the builder made one.
#include "spyglass/segdia.h"

#include <algorithm>
#include <set>
#include <utility>

namespace spyglass {

std::vector<std::vector<Index>> mergeSegmentsByWork(const std::vector<Count>& segmentWork,
                                                    std::vector<DiaMergeStep>* steps) {
    const Index count = static_cast<Index>(segmentWork.size());
    // A block lives at the slot of its lead segment; absorbed slots are emptied.
    std::vector<std::vector<Index>> members(count);
    std::vector<Count> work(segmentWork);
    std::set<std::pair<Count, Index>> byWork;  // (work, lead): begin = smallest, rbegin = largest
    for (Index s = 0; s < count; ++s) {
        members[s] = {s};
        byWork.emplace(work[s], s);
    }
    while (byWork.size() >= 2) {
        const auto smallest = *byWork.begin();
        const auto largest = *byWork.rbegin();
        if (largest.first <= 2 * smallest.first) break;
        const auto second = *std::next(byWork.begin());
        const DiaMergeRule rule =
            largest.first > 2 * second.first ? DiaMergeRule::TwoSmallest : DiaMergeRule::SmallestIntoNext;
        byWork.erase(byWork.begin());
        byWork.erase(byWork.begin());
        const Index lead = std::min(smallest.second, second.second);
        const Index other = lead == smallest.second ? second.second : smallest.second;
        // Append the shorter list to the longer one so that long merge chains stay O(n log n).
        if (members[lead].size() < members[other].size()) std::swap(members[lead], members[other]);
        members[lead].insert(members[lead].end(), members[other].begin(), members[other].end());
        members[other].clear();
        work[lead] = smallest.first + second.first;
        byWork.emplace(work[lead], lead);
        if (steps) {
            DiaMergeStep step;
            step.rule = rule;
            step.absorbedLead = smallest.second;
            step.intoLead = second.second;
            step.absorbedWork = smallest.first;
            step.intoWork = second.first;
            step.maxWork = largest.first;
            step.blocksAfter = static_cast<Count>(byWork.size());
            steps->push_back(step);
        }
    }
    std::vector<std::vector<Index>> blocks;
    blocks.reserve(byWork.size());
    for (Index s = 0; s < count; ++s) {
        if (members[s].empty()) continue;
        std::sort(members[s].begin(), members[s].end());
        blocks.push_back(std::move(members[s]));
    }
    return blocks;
}

} // namespace spyglass
