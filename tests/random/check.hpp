// Compares a run's observation with the oracle's expectation.
#pragma once

#include <string>
#include <vector>

#include "oracle.hpp"
#include "program.hpp"
#include "runner.hpp"

namespace rp {

// One line per disagreement (at most `limit`); empty when the run matches.
std::vector<std::string> check(const program& p, const expectation& e, const observation& o, std::size_t limit = 12);

}  // namespace rp
