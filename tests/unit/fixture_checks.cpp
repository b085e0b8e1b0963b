#include "fixture_checks.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

namespace mine::testing {
namespace {

std::string joined(const std::set<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// The standalone's lines, trimmed, in order, as `standalone has/lacks/orders` name them.
std::vector<std::string> trimmed_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    size_t b = line.find_first_not_of(" \t"), e = line.find_last_not_of(" \t\r");
    if (b != std::string::npos) lines.push_back(line.substr(b, e - b + 1));
  }
  return lines;
}

}  // namespace

void check_snapshot(const std::string& plugin, const RepoSnapshot& snap, const FixtureExpectations& expected) {
  std::map<std::string, const ExtractedKernel*> found;
  for (const auto& rec : snap.kernels)
    if (rec.plugin == plugin) found[rec.kernel.qualname] = &rec.kernel;
  std::set<std::string> found_names;
  for (const auto& [q, _] : found) found_names.insert(q);
  INFO("kernels found: " << joined(found_names));
  CHECK(static_cast<int>(found.size()) == expected.kernel_count);

  for (const auto& name : expected.absent) CHECK(found.count(name) == 0);
  for (const auto& [qualname, want] : expected.kernels) {
    INFO("kernel " << qualname);
    REQUIRE(found.count(qualname) == 1);
    const ExtractedKernel& k = *found[qualname];
    std::set<std::string> needs, unresolved;
    for (const auto& d : k.dependencies) (d.kind == "unresolved" ? unresolved : needs).insert(d.name);
    if (want.has_needs) CHECK(joined(needs) == joined(want.needs));
    if (want.has_unresolved) CHECK(joined(unresolved) == joined(want.unresolved));
    for (const auto& [key, value] : want.meta) {
      INFO("meta " << key << " in " << k.meta.dump());
      if (value == "absent") CHECK_FALSE(k.meta.contains(key));
      else CHECK(k.meta.value(key, nlohmann::json()) == nlohmann::json::parse(value));
    }
    std::vector<std::string> ordered = trimmed_lines(k.standalone);
    std::set<std::string> lines(ordered.begin(), ordered.end());
    for (const auto& text : want.standalone_has) CHECK(lines.count(text) == 1);
    for (const auto& text : want.standalone_lacks) CHECK(lines.count(text) == 0);
    for (const auto& [first, second] : want.standalone_orders) {
      INFO("standalone orders " << first << " before " << second);
      auto a = std::find(ordered.begin(), ordered.end(), first), b = std::find(ordered.begin(), ordered.end(), second);
      REQUIRE(a != ordered.end());
      REQUIRE(b != ordered.end());
      CHECK(a < b);
    }
    if (want.not_self_contained) {
      CHECK_FALSE(k.self_contained);
    } else {
      CHECK(unresolved.empty());
      CHECK(k.self_contained);
    }
  }
}

}  // namespace mine::testing
