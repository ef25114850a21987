// Compares a run's observation with the oracle's expectation.
#pragma once

#include <string>
#include <vector>

#include "oracle.hpp"
#include "program.hpp"
#include "runner.hpp"

namespace rp {

// One line per disagreement (at most `limit`); empty when the run matches. With `places` (the tree the
// oracle resolved the place clauses against), also the placement: every place_rec of a task was taken on
// a worker of the task's expected place with here() equal to that place, and every task that ran has
// records.
std::vector<std::string> check(const program& p, const expectation& e, const observation& o,
                               const place_view* places = nullptr, std::size_t limit = 12);

}  // namespace rp
