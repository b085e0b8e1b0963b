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

TEST_CASE("launch marks: the searches find the marks a byte-by-byte reading finds", "[launch_marks]") {
  // The reading LaunchMarks did before it searched: every `]` and every `run` that a `(` follows.
  auto byte_by_byte = [](const std::string& text) {
    auto call_follows = [&](size_t i) {
      while (i < text.size()) {
        char c = text[i];
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\\') {
          ++i;
        } else if (c == '#') {
          size_t eol = text.find('\n', i);
          if (eol == std::string::npos) return false;
          i = eol + 1;
        } else {
          return c == '(';
        }
      }
      return false;
    };
    std::vector<uint32_t> out;
    for (size_t i = 0; i < text.size(); ++i)
      if ((text[i] == ']' && call_follows(i + 1)) ||
          (text[i] == 'r' && text.compare(i, 3, "run") == 0 && call_follows(i + 3)))
        out.push_back(static_cast<uint32_t>(i));
    return out;
  };
  const std::string alphabet = "]]run(( \n#\\xr";
  uint32_t seed = 12345;
  for (int round = 0; round < 3000; ++round) {
    std::string text;
    size_t length = round % 60;
    for (size_t i = 0; i < length; ++i) {
      seed = seed * 1103515245u + 12345u;
      text += alphabet[(seed >> 16) % alphabet.size()];
    }
    CHECK(LaunchMarks(text).offsets() == byte_by_byte(text));
  }
  CHECK(LaunchMarks("k[g](x); runrun(1); k.run (2)").offsets() == std::vector<uint32_t>{3, 12, 22});
}
