// License detection against the embedded SPDX texts: every known text is recognised as itself,
// copies that differ the way real LICENSE files do (filled-in holders, markdown titles, British
// spelling, a missing appendix) still match, close relatives stay apart, and prose does not match.
#include <catch2/catch.hpp>

#include <string>

#include "core/license/license_detector.h"
#include "core/license/license_texts.h"

using namespace mine;

namespace {

std::string text_of(const std::string& id) {
  for (const auto& t : license_texts())
    if (id == t.spdx_id) return t.text;
  FAIL("no embedded text for " << id);
  return "";
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  return s;
}

}  // namespace

TEST_CASE("every embedded SPDX text is recognised as itself", "[license]") {
  REQUIRE(license_texts().size() >= 30);
  for (const auto& t : license_texts()) {
    INFO(t.spdx_id);
    LicenseMatch m = license_detector().detect(t.text);
    CHECK(m.spdx_id == t.spdx_id);
    CHECK(m.confidence == Approx(1.0));
  }
}

TEST_CASE("real copies of a license match despite holders, titles and spelling", "[license]") {
  std::string mit = "# The MIT Licence\n\n" +
                    replace_all(replace_all(text_of("MIT"), "<year> <copyright holders>", "2021-2024 Jane Doe and contributors"),
                                "license", "licence") +
                    "\nAll rights reserved.\n";
  LicenseMatch m = license_detector().detect(mit);
  CHECK(m.spdx_id == "MIT");
  CHECK(m.confidence > 0.95);

  // Most Apache-2.0 LICENSE files stop at END OF TERMS AND CONDITIONS, before the appendix.
  std::string apache = text_of("Apache-2.0");
  apache = apache.substr(0, apache.find("APPENDIX"));
  CHECK(license_detector().detect(apache).spdx_id == "Apache-2.0");

  std::string bsd3 = replace_all(text_of("BSD-3-Clause"), "<year> <owner>", "2023, Example Labs");
  CHECK(license_detector().detect(bsd3).spdx_id == "BSD-3-Clause");
  std::string bsd2 = replace_all(text_of("BSD-2-Clause"), "<year> <owner>", "2023, Example Labs");
  CHECK(license_detector().detect(bsd2).spdx_id == "BSD-2-Clause");
}

TEST_CASE("text that is no license matches nothing", "[license]") {
  LicenseMatch m = license_detector().detect(
      "This project is released for research use. Contact the authors before using it in a product.\n"
      "See the paper for details on the kernels and how to cite them.\n");
  CHECK(m.spdx_id.empty());
  CHECK(m.confidence < LicenseDetector::kThreshold);
  CHECK(license_detector().detect("").spdx_id.empty());
  // Half of a license is not that license.
  std::string gpl = text_of("GPL-3.0");
  CHECK(license_detector().detect(gpl.substr(0, gpl.size() / 8)).spdx_id.empty());
}

TEST_CASE("license file names and SPDX headers", "[license]") {
  CHECK(is_license_file_name("LICENSE"));
  CHECK(is_license_file_name("license.md"));
  CHECK(is_license_file_name("LICENCE.txt"));
  CHECK(is_license_file_name("COPYING"));
  CHECK(is_license_file_name("LICENSE-MIT"));
  CHECK_FALSE(is_license_file_name("docs/LICENSE"));
  CHECK_FALSE(is_license_file_name("README.md"));

  CHECK(spdx_header("#!/usr/bin/env python\n# SPDX-License-Identifier: Apache-2.0\nimport triton\n") == "Apache-2.0");
  CHECK(spdx_header("/* SPDX-License-Identifier: MIT OR Apache-2.0 */\n__global__ void k() {}\n") ==
        "MIT OR Apache-2.0");
  CHECK(spdx_header("# Copyright (c) 2024, Example.\n#\n# SPDX-License-Identifier:\tBSD-3-Clause\n") == "BSD-3-Clause");
  CHECK_FALSE(spdx_header("import triton\n").has_value());
  CHECK_FALSE(spdx_header("# SPDX-License-Identifier: \n").has_value());
  std::string late(40, '\n');
  CHECK_FALSE(spdx_header(late + "# SPDX-License-Identifier: MIT\n").has_value());  // not at the top

  CHECK(spdx_header("# SPDX-License-Identifier: (MIT OR Apache-2.0) AND GPL-2.0-only WITH Classpath-exception-2.0\n") ==
        "(MIT OR Apache-2.0) AND GPL-2.0-only WITH Classpath-exception-2.0");
  // Seen in real code: a license's name where its id belongs. Not an id: the repository's license stands.
  CHECK_FALSE(spdx_header("# SPDX-License-Identifier: GNU Affero General Public License v3.0\n").has_value());
  CHECK_FALSE(spdx_header("# SPDX-License-Identifier: MIT OR\n").has_value());

  // LICENSE speaks for the repository before COPYING (a library under Apache-2.0 with an app under AGPL-3.0).
  CHECK(license_file_rank("LICENSE") < license_file_rank("LICENSE.md"));
  CHECK(license_file_rank("LICENCE") == license_file_rank("LICENSE"));
  CHECK(license_file_rank("LICENSE.txt") < license_file_rank("COPYING"));
  CHECK(license_file_rank("COPYING") < license_file_rank("COPYING.txt"));
  CHECK(license_file_rank("COPYING.txt") < license_file_rank("LICENSE-THIRD-PARTY"));
  CHECK(license_file_rank("COPYING.LESSER") == license_file_rank("LICENSE-MIT"));

  CHECK(same_license("GPL-3.0", "GPL-3.0-only"));
  CHECK(same_license("gpl-3.0-or-later", "GPL-3.0"));
  CHECK(same_license("MIT", "mit"));
  CHECK_FALSE(same_license("MIT", "MIT-0"));
  CHECK_FALSE(same_license("BSD-2-Clause", "BSD-3-Clause"));
}

TEST_CASE("license words: each word once, in order, spellings and placeholders normalised", "[license]") {
  std::vector<std::string> words = license_words(
      "Copyright (c) 2024 Someone\n"
      "Licence text: the Software & the LICENSE, see https://x.org <year> [name of owner]\n"
      "the software the software\n");
  CHECK(words == std::vector<std::string>{"and", "http", "license", "org", "see", "software", "text", "the", "x"});
  for (const auto& t : license_texts()) {
    std::vector<std::string> all = license_words(t.text);
    CHECK(std::adjacent_find(all.begin(), all.end(), std::greater_equal<>()) == all.end());
  }
}
