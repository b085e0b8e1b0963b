// Output code printed by TORCH_LOGS="output_code": the modules a log holds, every line behind
// the log record's header, give the kernels their output_code.py gives (the real debug folder's
// modules, written into a log here), at the log's own lines; a log without such records is left
// to the other plugins.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "plugins/inductor/output_code_log.h"
#include "test_inductor_corpus.h"

namespace fs = std::filesystem;
using namespace mine;

namespace {

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::vector<fs::path> debug_modules() {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(MINE_SHARED_DIR) / "fixtures" / "inductor"))
    if (e.path().filename() == "output_code.py") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// `module` as torch's log formatter prints it: one header per line, the first saying `Output code:`.
std::string logged(const std::string& module, int graph) {
  std::string header = "V1127 04:00:0" + std::to_string(graph) + ".123000 4242 torch/_inductor/graph.py:2045] [" +
                       std::to_string(graph) + "/0] [__output_code] ";
  std::ostringstream out;
  out << header << "Output code: \n";
  std::istringstream lines(module);
  for (std::string line; std::getline(lines, line);) out << header << line << "\n";
  return out.str();
}

std::map<std::string, std::string> kernels_by_name(testing::ScannedCorpus& c) {
  std::map<std::string, std::string> out;
  for (const auto& r : c.query("SELECT name, standalone_sha256 FROM kernels WHERE plugin = 'inductor'").rows)
    out[r[0].get<std::string>()] = r[1].get<std::string>();
  return out;
}

}  // namespace

TEST_CASE("a TORCH_LOGS output_code log gives the kernels its modules hold", "[inductor][logs]") {
  auto modules = debug_modules();
  REQUIRE(modules.size() >= 2);
  fs::path dir = fs::temp_directory_path() / ("mine_logs_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "debug" / "a");
  fs::create_directories(dir / "debug" / "b");
  fs::create_directories(dir / "log");
  std::string log = "I1127 04:00:00.000000 4242 torch/_dynamo/eval_frame.py:10] [0/0] compiling model\n";
  for (size_t i = 0; i < 2; ++i) {
    fs::copy_file(modules[i], dir / "debug" / (i ? "b" : "a") / "output_code.py");
    log += logged(read_text(modules[i]), static_cast<int>(i));
    log += "V1127 04:00:09.000000 4242 torch/_inductor/graph.py:2050] [0/0] [__output_code] Output code written to: "
           "/tmp/torchinductor_root/xy/cxy.py\n";
  }
  std::ofstream(dir / "log" / "compile.log", std::ios::binary) << log;

  testing::ScannedCorpus from_debug, from_log;
  from_debug.scan((dir / "debug").string(), all_plugins());
  from_log.scan((dir / "log").string(), all_plugins());
  auto want = kernels_by_name(from_debug);
  REQUIRE(want.size() > 3);
  CHECK(kernels_by_name(from_log) == want);  // the same kernels, standalone for standalone
  CHECK(from_log.count("SELECT count(*) FROM kernels WHERE plugin <> 'inductor'") == 0);
  CHECK(from_log.count("SELECT count(*) FROM scan_errors") == 0);
  // Each kernel sits at the log line its call is printed on, in a graph named for the log.
  auto rows = from_log.query("SELECT o.graph, o.start_line FROM kernel_occurrences o ORDER BY o.start_line").rows;
  REQUIRE(!rows.empty());
  CHECK(rows.front()[0].get<std::string>() == "compile#1");
  int line = static_cast<int>(rows.front()[1].get<int64_t>());
  std::istringstream in(log);
  std::string text;
  for (int i = 0; i < line && std::getline(in, text);) ++i;
  CHECK(text.find("async_compile.triton(") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("log records are read apart from their headers", "[inductor][logs]") {
  std::string log =
      "V1127 x] [__output_code] Output code: \n"
      "V1127 x] [__output_code] import torch\n"
      "V1127 x] [__output_code] \n"
      "V1127 x] [__output_code] x = 1\n"
      "I1127 y] [0/0] something else\n"
      "V1127 x] [__output_code] Output code written to: /tmp/a.py\n"
      "V1127 z] [__output_code] Output code: from a import b\n"
      "V1127 z] [__output_code] c = b\n";
  auto modules = inductor::logged_output_code(log);
  REQUIRE(modules.size() == 2);
  CHECK(modules[0].text == "import torch\n\nx = 1\n");
  CHECK(modules[0].first_line == 2);
  CHECK(modules[1].text == "from a import b\nc = b\n");
  CHECK(modules[1].first_line == 7);
  CHECK(inductor::logged_output_code("plain text\nno records\n").empty());
  CHECK(inductor::is_log_path("runs/compile.log"));
  CHECK_FALSE(inductor::is_log_path("pkg/ops.py"));
}
