#pragma once
#include <cstdint>
#include <istream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace mine::check {

// One autotune candidate of a result row.
struct ConfigTiming {
  nlohmann::json config;          // {constexprs, options}
  std::optional<double> time_ms;  // median of do_bench; nullopt when the config failed
  bool is_best = false;
  std::string status, error_class;  // empty when the harness did not say
  nlohmann::json details;           // the rest: compile_ms, n_regs, n_spills, run_ms, message, ...
};

// One line of run_bundle.py's results file, validated.
struct CheckResultRow {
  int line = 0;
  int64_t kernel_id = 0;
  std::string stage_requested, stage_reached, status, error_class, message;
  std::optional<double> compile_ms, run_ms;
  std::optional<int64_t> n_regs, n_spills, shared_bytes;
  std::string arch, triton_version, torch_version, driver_version, gpu;
  nlohmann::json grid, constexprs, guessed;     // null when absent
  nlohmann::json extra = nlohmann::json::object();
  std::vector<ConfigTiming> configs;
  // Which module was checked: standalone | kernel_only | ported (the row's `module_checked`).
  std::string form = "standalone";
  nlohmann::json rewrites = nlohmann::json::array();  // ported rows: [{move, old, new, count}]
  // Ported rows: {of, rewrites, source} as the harness reported it (stored in kernel_ports).
  nlohmann::json port;
};

// Reads a results file (JSON Lines; blank lines ignored). The whole file is validated before
// anything is returned: a bad line throws mine::Error naming `source` and the line number, so a
// half-written or foreign file never reaches the corpus in part. A failure without an
// error_class is classified from its message. A row that was retried on a ported module
// (it carries `unported`, the first outcome) becomes two rows: the first outcome, then the
// ported one, so both are kept.
std::vector<CheckResultRow> read_check_results(std::istream& in, const std::string& source);

}  // namespace mine::check
