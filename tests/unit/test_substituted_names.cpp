// SubstitutedNames (plugins/triton/written_to_fail.h): the names a file quotes as a dict key or as
// what `.replace(` replaces, read once per file, stand in for the search source_placeholders made
// per name read. A kernel spelling none of them skips its walks, so the set must hold every name
// the per-name search accepted. Checked against that search on random texts of quotes, colons,
// blanks, parentheses and `replace`; a kernel's text holds one only as a whole word.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "plugins/triton/written_to_fail.h"

using namespace mine;

namespace {

// The per-name search source_placeholders made before SubstitutedNames (once written_to_fail.cpp's
// `substituted`), kept here as the oracle the set is compared with.
bool substituted_by_search(std::string_view text, std::string_view name) {
  for (char q : {'\'', '"'}) {
    std::string quoted = std::string(1, q) + std::string(name) + q;
    for (size_t at = text.find(quoted); at != std::string_view::npos; at = text.find(quoted, at + 1)) {
      size_t after = text.find_first_not_of(" \t", at + quoted.size());
      if (after != std::string_view::npos && text[after] == ':') return true;
      size_t before = text.find_last_not_of(" \t", at == 0 ? 0 : at - 1);
      if (at >= 1 && before != std::string_view::npos && text[before] == '(' && before >= 7 &&
          text.substr(before - 7, 7) == "replace")
        return true;
    }
  }
  return false;
}

// Whether `names` holds `name`: found in code that spells it alone.
bool holds(const SubstitutedNames& names, std::string_view name) {
  std::string code = " " + std::string(name) + " ";
  auto found = names.found_in(code);
  return std::find(found.begin(), found.end(), name) != found.end();
}

}  // namespace

TEST_CASE("SubstitutedNames: dict keys and replaced names, not other strings") {
  std::string text =
      "patch_kernel(kernel, {'GENERATE_TEST_HERE': expr, \"SHAPE\" : 4})\n"
      "src = src.replace( 'OP', op)\n"
      "x = 'NOT_A_KEY'\n"
      "y = {'two words': 1, 'len': 2}\n";
  SubstitutedNames names(text);
  CHECK(holds(names, "GENERATE_TEST_HERE"));
  CHECK(holds(names, "SHAPE"));
  CHECK(holds(names, "OP"));
  CHECK_FALSE(holds(names, "NOT_A_KEY"));
  CHECK_FALSE(holds(names, "two words"));  // no name
  CHECK_FALSE(holds(names, "len"));        // a builtin Triton takes: never a placeholder
  CHECK(names.found_in("def k(x):\n    return x\n").empty());
  CHECK(names.found_in("    y = SHAPE * 2\n") == std::vector<std::string_view>{"SHAPE"});
  // Whole words only: a longer name holding one is no read of it.
  CHECK(names.found_in("    y = SHAPE_2 + OPS + xOP\n").empty());
  CHECK(names.found_in("    y = x[OP]\n") == std::vector<std::string_view>{"OP"});
  CHECK(names.found_in("    y = x.SHAPE + 'OP'\n").empty());  // an attribute, a string
  CHECK(names.found_in("    y = SHAPE.x\n") == std::vector<std::string_view>{"SHAPE"});
}

TEST_CASE("SubstitutedNames: every name the per-name search accepts, on random texts") {
  const std::vector<std::string> pieces = {"A",     "B",     "AB",     "_",   "1",          "'",     "\"",
                                           ":",     " ",     "\t",     "(",   "replace",    "x.replace", "{",
                                           "}",     ",",     "\n",     "B1",  "A_B",        "'A'",   "\"AB\"",
                                           "'B1'", "'1A'", "replace(", "':", "\"A_B\" :", "'AB'"};
  const std::vector<std::string> names = {"A", "B", "AB", "_", "A_B", "B1", "AB1", "replace", "A1", "BA", "1A"};
  std::mt19937 rng(21);
  int accepted = 0;
  for (int round = 0; round < 4000; ++round) {
    std::string text;
    int length = 1 + static_cast<int>(rng() % 24);
    for (int i = 0; i < length; ++i) text += pieces[rng() % pieces.size()];
    SubstitutedNames set(text);
    for (const std::string& name : names) {
      bool searched = substituted_by_search(text, name) && !(name[0] >= '0' && name[0] <= '9');
      INFO("text: " << text << " name: " << name);
      CHECK(holds(set, name) == searched);
      accepted += searched;
    }
  }
  CHECK(accepted > 500);  // the texts do exercise both answers
}
