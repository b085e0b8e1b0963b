#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

namespace mine::testing {

// Expectations a fixture file states about itself in `# expect:` comments (`// expect:` in C-like
// fixtures):
//   # expect: kernels N                      exactly N kernels in the file
//   # expect: kernel Q needs a, b, c         the dependencies of Q (resolved ones), exactly
//   # expect: kernel Q unresolved a, b       the unresolved names of Q, exactly
//   # expect: kernel Q not self-contained    Q's standalone cannot stand alone
//   # expect: no kernel Q                    Q must not be reported
//   # expect: kernel Q standalone has TEXT   Q's standalone holds the line TEXT (trimmed)
//   # expect: kernel Q standalone lacks TEXT Q's standalone holds no line TEXT
//   # expect: kernel Q meta KEY JSON         Q's kernels.meta has KEY equal to JSON
//   # expect: kernel Q meta KEY absent       Q's kernels.meta has no KEY
struct KernelExpectation {
  bool has_needs = false;
  std::set<std::string> needs;
  bool has_unresolved = false;
  std::set<std::string> unresolved;
  bool not_self_contained = false;
  std::vector<std::string> standalone_has, standalone_lacks;
  // `standalone orders A before B`: both lines there, A's first occurrence before B's.
  std::vector<std::pair<std::string, std::string>> standalone_orders;
  std::map<std::string, std::string> meta;  // key -> JSON text, or "absent"
};

struct FixtureExpectations {
  int kernel_count = -1;
  std::map<std::string, KernelExpectation> kernels;  // by qualname
  std::set<std::string> absent;
};

FixtureExpectations read_expectations(const std::string& file_text);

// The bytes of a fixture file, as they are (fixtures may hold other encodings than UTF-8).
std::string read_fixture(const std::string& path);

// The files of a fixture folder whose extension is `extension` (".py"), sorted.
std::vector<std::string> fixture_files(const std::string& dir, const std::string& extension);

}  // namespace mine::testing
