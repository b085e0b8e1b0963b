#pragma once
// What a scanned tree's kernels are checked against: the `expect:` comments of its fixtures
// (fixture_expectations.h), shared by every plugin's fixture test.
#include <string>

#include "core/scan/scanner.h"
#include "fixture_expectations.h"

namespace mine::testing {

// The kernels `plugin` found in `snap` against `expected`: their count, the absent ones, and for
// each expected kernel its dependencies, unresolved names, meta, standalone lines and whether it
// is self-contained.
void check_snapshot(const std::string& plugin, const RepoSnapshot& snap, const FixtureExpectations& expected);

}  // namespace mine::testing
