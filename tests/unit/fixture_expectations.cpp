#include "fixture_expectations.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

namespace mine::testing {
namespace {

std::set<std::string> split_names(const std::string& list) {
  std::set<std::string> out;
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) {
    size_t b = item.find_first_not_of(" \t"), e = item.find_last_not_of(" \t\r");
    if (b != std::string::npos) out.insert(item.substr(b, e - b + 1));
  }
  return out;
}

}  // namespace

FixtureExpectations read_expectations(const std::string& text) {
  static const std::regex count(R"(^(?:#|//)\s*expect:\s*kernels\s+(\d+)\s*$)");
  static const std::regex needs(R"(^(?:#|//)\s*expect:\s*kernel\s+(\S+)\s+needs\s+(.*)$)");
  static const std::regex unresolved(R"(^(?:#|//)\s*expect:\s*kernel\s+(\S+)\s+unresolved\s+(.*)$)");
  static const std::regex not_contained(R"(^(?:#|//)\s*expect:\s*kernel\s+(\S+)\s+not self-contained\s*$)");
  static const std::regex standalone(R"(^(?:#|//)\s*expect:\s*kernel\s+(\S+)\s+standalone\s+(has|lacks)\s+(.*\S)\s*$)");
  static const std::regex orders(R"(^(?:#|//)\s*expect:\s*kernel\s+(\S+)\s+standalone\s+orders\s+(.*\S)\s+before\s+(.*\S)\s*$)");
  static const std::regex meta(R"(^(?:#|//)\s*expect:\s*kernel\s+(\S+)\s+meta\s+(\S+)\s+(.*\S)\s*$)");
  static const std::regex absent(R"(^(?:#|//)\s*expect:\s*no kernel\s+(\S+)\s*$)");
  FixtureExpectations out;
  std::stringstream in(text);
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_match(line, m, count)) {
      out.kernel_count = std::stoi(m[1]);
    } else if (std::regex_match(line, m, needs)) {
      auto& k = out.kernels[m[1]];
      k.has_needs = true;
      k.needs = split_names(m[2]);
    } else if (std::regex_match(line, m, unresolved)) {
      auto& k = out.kernels[m[1]];
      k.has_unresolved = true;
      k.unresolved = split_names(m[2]);
    } else if (std::regex_match(line, m, not_contained)) {
      out.kernels[m[1]].not_self_contained = true;
    } else if (std::regex_match(line, m, orders)) {
      out.kernels[m[1]].standalone_orders.emplace_back(m[2], m[3]);
    } else if (std::regex_match(line, m, standalone)) {
      auto& k = out.kernels[m[1]];
      (m[2] == "has" ? k.standalone_has : k.standalone_lacks).push_back(m[3]);
    } else if (std::regex_match(line, m, meta)) {
      out.kernels[m[1]].meta[m[2]] = m[3];
    } else if (std::regex_match(line, m, absent)) {
      out.absent.insert(m[1]);
    }
  }
  return out;
}

std::string read_fixture(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> fixture_files(const std::string& dir, const std::string& extension) {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == extension) files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace mine::testing
