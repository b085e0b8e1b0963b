// LaunchMarks: the launch finder skips every subtree that spans no mark, so a launch call that
// spans none would be lost. Checked on hand-written spellings and on every Python fixture file:
// each call that has a launch's shape (`x[...](...)`, `x.run(...)`) spans a mark.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/launch/launch_marks.h"
#include "core/python/module_model.h"

namespace fs = std::filesystem;
using namespace mine;

namespace {

// Calls shaped like launches that span no mark, as "line N: text".
std::vector<std::string> unmarked_launch_calls(const std::string& source) {
  auto m = PythonModule::build("t.py", source);
  LaunchMarks marks(m->tree().text());
  std::vector<std::string> missed;
  std::vector<TSNode> stack{m->tree().root()};
  while (!stack.empty()) {
    TSNode n = stack.back();
    stack.pop_back();
    if (is_type(n, "call")) {
      TSNode fn = field(n, "function");
      bool shaped = is_type(fn, "subscript") ||
                    (is_type(fn, "attribute") && m->text_of(field(fn, "attribute")) == "run");
      if (shaped && !marks.spans(ts_node_start_byte(n), ts_node_end_byte(n)))
        missed.push_back("line " + std::to_string(first_line(n)) + ": " + m->text_of(n));
    }
    for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i) stack.push_back(ts_node_named_child(n, i));
  }
  return missed;
}

size_t marks_in(const std::string& text) { return LaunchMarks(text).offsets().size(); }

}  // namespace

TEST_CASE("launch marks: every spelling of a launch call is marked", "[launch][marks]") {
  const std::string source =
      "def f(x, grid, k, table):\n"
      "    k[grid](x)\n"
      "    k[grid] (x)\n"
      "    k[grid]\\\n"
      "        (x)\n"
      "    y = (k[grid]  # a comment between the grid and the arguments\n"
      "         (x))\n"
      "    k[(n,)](x, BLOCK=64)\n"
      "    table['add'][grid](x)\n"
      "    k[grid](x for x in y)\n"
      "    k.run(x, grid=grid)\n"
      "    k.run (x, grid=grid)\n"
      "    k . run(\n"
      "        x, grid=grid)\n"
      "    return [k[g](x) for g in grids]\n";
  CHECK(unmarked_launch_calls(source).empty());
  CHECK(marks_in(source) == 11);  // one per launch above
}

TEST_CASE("launch marks: code without a launch has none", "[launch][marks]") {
  CHECK(marks_in("x = a[0] + b[1:2]\ny = [1, 2]\nrunner = run\nz = f(a)[0]\n") == 0);
  CHECK(marks_in("s = ']'  # a bracket ] ends here\n") == 0);
  CHECK(marks_in("") == 0);
  // A `]` at the very end, or a comment that runs to the end of the file, is no call.
  CHECK(marks_in("x = a[0]") == 0);
  CHECK(marks_in("x = a[0]  # (") == 0);
}

TEST_CASE("launch marks: spans is half-open on the node's bytes", "[launch][marks]") {
  LaunchMarks marks("k[g](x)");  // the `]` is byte 3
  CHECK(marks.spans(0, 7));
  CHECK(marks.spans(3, 4));
  CHECK_FALSE(marks.spans(0, 3));
  CHECK_FALSE(marks.spans(4, 7));
}

TEST_CASE("launch marks: every launch-shaped call of the Python fixtures is marked", "[launch][marks]") {
  size_t files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(MINE_FIXTURES_DIR)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".py") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    std::vector<std::string> missed;
    try {
      missed = unmarked_launch_calls(text.str());
    } catch (const std::exception&) {
      continue;  // fixtures of files the scanner refuses (nesting, encodings)
    }
    ++files;
    INFO(entry.path().string());
    CHECK(missed.empty());
  }
  CHECK(files > 50);
}
