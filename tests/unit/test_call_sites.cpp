// The parts of cross-file call sites that need no scan: the lexical call index and the check that
// a resolved name is a given file's class.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <map>
#include <thread>

#include "core/repo/call_index.h"
#include "plugins/torch_module/call_sites.h"

using namespace mine;

TEST_CASE("the call index names what a text calls, once each", "[call_sites]") {
  auto names = CallIndex::called_names("m = models.Net (3)\nclass Block(nn.Module):\n  x = Net(1)\n  y = ANet\n");
  CHECK(names == std::vector<std::string>{"Net", "Block"});
}

TEST_CASE("the call index reads every file once and answers in path order", "[call_sites]") {
  std::map<std::string, std::string> texts = {{"a.py", "Net(1)"}, {"b.py", "x = Net"}, {"c/d.py", "y = m.Net(2)"}};
  std::atomic<int> reads{0};
  CallIndex index({"a.py", "b.py", "c/d.py", "gone.py"});
  auto read = [&](const std::string& p) -> std::optional<std::string> {
    ++reads;
    auto it = texts.find(p);
    return it == texts.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) threads.emplace_back([&] { CHECK(index.files_calling("Net", read) == std::vector<std::string>{"a.py", "c/d.py"}); });
  for (auto& t : threads) t.join();
  CHECK(reads == 4);
  CHECK(index.files_calling("Block", read).empty());
}

// The index finds calls from each `(` backwards; it must find what a forward reading finds (each
// run of identifier characters starting with a letter or `_`, then blanks, then `(`), on texts
// of identifiers, digits, blanks, dots, newlines, non-ASCII bytes and parentheses.
TEST_CASE("calls found backwards from each parenthesis are those a forward reading finds", "[call_sites]") {
  auto forward = [](const std::string& text) {
    auto start = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; };
    auto inner = [&](char c) { return start(c) || (c >= '0' && c <= '9'); };
    std::vector<std::string> out;
    for (size_t i = 0; i < text.size();) {
      if (!start(text[i]) || (i > 0 && inner(text[i - 1]))) {
        ++i;
        continue;
      }
      size_t end = i;
      while (end < text.size() && inner(text[end])) ++end;
      size_t after = end;
      while (after < text.size() && (text[after] == ' ' || text[after] == '\t')) ++after;
      if (after < text.size() && text[after] == '(') {
        std::string name = text.substr(i, end - i);
        if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
      }
      i = end;
    }
    return out;
  };
  const std::string alphabet = "ab_Z09 \t.(()\n\xc3\xa9:";
  uint64_t state = 12345;
  for (int round = 0; round < 3000; ++round) {
    std::string text;
    size_t length = round % 40;
    for (size_t i = 0; i < length; ++i) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      text += alphabet[(state >> 33) % alphabet.size()];
    }
    REQUIRE(CallIndex::called_names(text) == forward(text));
  }
  CHECK(CallIndex::called_names("(x(\t(  9a(b9 (\xc3\xa9" "c( _( ") == std::vector<std::string>{"x", "b9", "c", "_"});
}

// The scan records the texts its workers read; the first question reads only the others, and
// answers as an index that read them all would, in path order, whichever thread recorded what.
TEST_CASE("the call index takes recorded texts and reads only the rest", "[call_sites]") {
  std::map<std::string, std::string> texts = {{"a.py", "Net(1)\nNet (2)"}, {"b.py", "x = Net"},
                                              {"c/d.py", "y = m.Net(2); Other()"}, {"e.py", "2Net(3); _Net(4)"}};
  std::vector<std::string> paths{"a.py", "b.py", "c/d.py", "e.py", "gone.py"};
  std::atomic<int> reads{0};
  auto read = [&](const std::string& p) -> std::optional<std::string> {
    ++reads;
    auto it = texts.find(p);
    return it == texts.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
  CallIndex all(paths);
  CallIndex recorded(paths);
  std::vector<std::thread> threads;
  for (const char* p : {"c/d.py", "a.py", "elsewhere.py"})
    threads.emplace_back([&, p] { recorded.record(p, texts.count(p) ? texts.at(p) : "Net()"); });
  for (auto& t : threads) t.join();
  for (const std::string name : {"Net", "Other", "_Net", "m", "x"}) {
    CHECK(recorded.files_calling(name, read) == all.files_calling(name, read));
  }
  CHECK(recorded.files_calling("Net", read) == std::vector<std::string>{"a.py", "c/d.py"});
  CHECK(recorded.files_calling("_Net", read) == std::vector<std::string>{"e.py"});
  CHECK(reads == 3 + 5);  // b.py, e.py and gone.py for `recorded`, every path for `all`
  recorded.record("b.py", "Late()");  // after the first question: dropped
  CHECK(recorded.files_calling("Late", read).empty());
}

TEST_CASE("a resolved name is the class of the file it leads to", "[call_sites]") {
  using torch_module::imported_from;
  // absolute, from the root or from below it (src/), and through a package re-exporting it
  CHECK(imported_from("models.net.Net", "Net", "train.py", "models/net.py"));
  CHECK(imported_from("models.net.Net", "Net", "train.py", "src/models/net.py"));
  CHECK(imported_from("models.Net", "Net", "train.py", "src/models/net.py"));
  CHECK(imported_from("models.Net", "Net", "train.py", "src/models/__init__.py"));
  // relative: one dot is the importer's own package, two its parent
  CHECK(imported_from(".net.Head", "Head", "src/models/zoo.py", "src/models/net.py"));
  CHECK(imported_from("..models.net.Head", "Head", "src/tools/zoo.py", "src/models/net.py"));
  CHECK_FALSE(imported_from(".net.Head", "Head", "src/tools/zoo.py", "src/models/net.py"));
  // another package's class of the same name, or another name
  CHECK_FALSE(imported_from("timm.layers.Head", "Head", "eval.py", "src/models/net.py"));
  CHECK_FALSE(imported_from("other.head.Head", "Head", "eval.py", "src/models/net.py"));
  CHECK_FALSE(imported_from("torch.nn.Linear", "Linear", "eval.py", "mylib/nn/linear.py"));
  CHECK_FALSE(imported_from("models.net.NetV2", "Net", "train.py", "models/net.py"));
  CHECK_FALSE(imported_from("Net", "Net", "train.py", "Net.py"));
}

// Workers that ask while the first question's reading is under way read the rest with it, each
// through its own `read` (its own blob reader), instead of waiting: the answers are those of one
// thread reading every file, and each file is read once.
TEST_CASE("threads asking while the call index is built read their share of the files", "[call_sites]") {
  std::vector<std::string> paths;
  std::map<std::string, std::string> texts;
  for (int i = 0; i < 200; ++i) {
    std::string p = "m" + std::to_string(1000 + i) + ".py";
    paths.push_back(p);
    texts[p] = "f" + std::to_string(i % 7) + "(x)\n" + (i % 3 ? "Net(1)" : "y = Net");
  }
  auto lookup = [&](const std::string& p) -> std::optional<std::string> { return texts.at(p); };
  CallIndex alone(paths);
  std::map<std::string, std::vector<std::string>> expected;
  for (const std::string name : {"Net", "f0", "f3", "f6", "x"}) expected[name] = alone.files_calling(name, lookup);

  CallIndex shared(paths);
  std::atomic<int> reads_by[2] = {{0}, {0}};
  std::map<std::string, int> times_read;
  std::mutex times_mutex;
  // Neither thread reads everything before the other comes: the first thread's first read waits
  // (up to 5 s) until the second has read a file, the second's later reads until the first has.
  auto wait_for = [](const std::atomic<int>& other) {
    for (int waited = 0; other == 0 && waited < 5000; ++waited) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  };
  auto reader_for = [&](int thread) {
    return [&, thread](const std::string& p) -> std::optional<std::string> {
      if (thread == 0 && reads_by[0] == 0) wait_for(reads_by[1]);
      if (thread == 1 && reads_by[1] > 0) wait_for(reads_by[0]);
      {
        std::lock_guard<std::mutex> lock(times_mutex);
        ++times_read[p];
      }
      ++reads_by[thread];
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      return lookup(p);
    };
  };
  std::vector<std::vector<std::string>> answers(2);
  std::thread first([&] { answers[0] = shared.files_calling("Net", reader_for(0)); });
  std::thread second([&] { answers[1] = shared.files_calling("f3", reader_for(1)); });
  first.join();
  second.join();
  CHECK(answers[0] == expected["Net"]);
  CHECK(answers[1] == expected["f3"]);
  for (const auto& [name, files] : expected) CHECK(shared.files_calling(name, lookup) == files);
  CHECK(reads_by[0] > 0);
  CHECK(reads_by[1] > 0);
  CHECK(times_read.size() == paths.size());
  for (const auto& [path, times] : times_read) CHECK(times == 1);
}
