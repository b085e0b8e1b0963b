// PEP 263: Python files that declare another encoding are decoded and stored as UTF-8, with the
// encoding recorded; undeclared invalid UTF-8 stays an error, as CPython refuses it too. Runs the
// real scanner over tests/fixtures/encoding/, whose files state their expectations in comments
// (`# expect: kernels N`, `# expect: encoding NAME`, `# expect: error KIND line N|WORD`).
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <regex>

#include "core/scan/scanner.h"
#include "core/scan/source_encoding.h"
#include "core/scan/text_checks.h"
#include "fixture_expectations.h"

namespace fs = std::filesystem;
using namespace mine;

namespace {

// What each fixture's kernel docstring must read as UTF-8 (the fixtures hold other encodings).
const std::map<std::string, std::string> kDocstrings = {
    {"latin1_declared.py", "Größe × Maß"},
    {"cp1252_vim.py", "“doubled” costs 5 €"},
    {"utf8_bom.py", "naïve"},
    {"iso8859_15.py", "10 €"},
};

}  // namespace

TEST_CASE("PEP 263 declarations are read as CPython reads them", "[encoding]") {
  CHECK(declared_encoding("# -*- coding: latin-1 -*-\nx = 1\n") == "iso-8859-1");
  CHECK(declared_encoding("#!/usr/bin/python\n# vim: set fileencoding=cp1252 :\n") == "cp1252");
  CHECK(declared_encoding("# coding=UTF_8\n") == "utf-8");
  CHECK(declared_encoding("# -*- coding: utf-8-unix -*-\n") == "utf-8");
  CHECK(declared_encoding("x = 1\n# coding: latin-1\n") == "");  // the 2nd line counts only after a comment
  CHECK(declared_encoding("x = 1  # coding: latin-1\n") == "");   // and only in a comment line
  CHECK(declared_encoding("\n\n# coding: latin-1\n") == "");      // the 3rd line never counts

  std::string text = "# coding: latin-1\ns = '\xE9'\n";
  DecodedSource d = decode_python_source(text);
  CHECK(d.error.empty());
  CHECK(d.encoding == "iso-8859-1");
  CHECK(text == "# coding: latin-1\ns = '\xC3\xA9'\n");
  CHECK(first_invalid_utf8(text) == std::string::npos);

  std::string undeclared = "s = '\xE9'\n";
  d = decode_python_source(undeclared);
  CHECK(d.error == "invalid UTF-8 at byte 5");
  CHECK(undeclared == "s = '\xE9'\n");  // left as it was

  std::string bom_latin = "\xEF\xBB\xBF# coding: latin-1\n";
  CHECK_FALSE(decode_python_source(bom_latin).error.empty());
}

TEST_CASE("encoding fixtures meet the expectations written in them", "[encoding][fixtures]") {
  static const std::regex kernels(R"(# expect: kernels (\d+))"), encoding(R"(# expect: encoding (\S+))"),
      error(R"(# expect: error (\w+) (line (\d+)|(\S+)))");
  auto files = testing::fixture_files((fs::path(MINE_FIXTURES_DIR) / "encoding").string(), ".py");
  REQUIRE(files.size() >= 7);
  Scanner scanner(all_plugins(), ScanOptions{});
  for (const auto& file : files) {
    std::string name = fs::path(file).filename().string();
    INFO("fixture " << name);
    std::string raw = testing::read_fixture(file);
    std::smatch m;
    REQUIRE(std::regex_search(raw, m, kernels));
    size_t want_kernels = std::stoul(m[1]);
    auto tree = open_source_tree(file);
    RepoSnapshot snap = scanner.extract(*tree, file);
    REQUIRE(snap.files.size() == 1);
    CHECK(snap.kernels.size() == want_kernels);
    if (std::regex_search(raw, m, encoding)) CHECK(snap.files[0].encoding == m[1].str());
    else CHECK(snap.files[0].encoding.empty());
    if (std::regex_search(raw, m, error)) {
      REQUIRE(snap.problems.size() == 1);
      CHECK(snap.problems[0].kind == m[1].str());
      if (m[3].matched) CHECK(snap.problems[0].line == std::stoi(m[3]));
      else CHECK(snap.problems[0].message.find(m[4].str()) != std::string::npos);
    } else {
      CHECK(snap.problems.empty());
    }
    auto doc = kDocstrings.find(name);
    if (doc != kDocstrings.end()) {
      REQUIRE(snap.kernels.size() == 1);
      const ExtractedKernel& k = snap.kernels[0].kernel;
      CHECK(k.source.find(doc->second) != std::string::npos);
      CHECK(k.standalone.find(doc->second) != std::string::npos);
      CHECK(first_invalid_utf8(k.standalone) == std::string::npos);
      CHECK(k.standalone.find("coding") == std::string::npos);  // no declaration that would mislead a reader of UTF-8
      CHECK(k.start_line > 1);  // lines count in the decoded text as in the file
    }
  }
}
