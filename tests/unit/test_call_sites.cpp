// The parts of cross-file call sites that need no scan: the lexical call index and the check that
// a resolved name is a given file's class.
#include <catch2/catch.hpp>

#include <atomic>
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
