#include "core/check/check_results.h"

#include <set>

#include "core/check/error_class.h"
#include "core/error.h"

namespace mine::check {
namespace {

// worker_start: the harness could not start a worker for the kernel at all.
const std::set<std::string> kStages = {"worker_start", "import", "compile", "load", "run"};
const std::set<std::string> kKnown = {"id",          "stage_requested", "stage_reached", "status",   "error_class",
                                      "message",     "compile_ms",      "run_ms",        "n_regs",   "n_spills",
                                      "shared_bytes", "arch",           "triton_version", "torch_version",
                                      "driver_version", "gpu_name",     "gpu",           "grid",     "constexprs",
                                      "guessed",     "configs",         "best_config",   "unported"};
const std::set<std::string> kForms = {"standalone", "kernel_only", "ported"};

struct LineReader {
  const std::string& source;
  int line;
  const nlohmann::json& row;

  [[noreturn]] void fail(const std::string& what) const {
    throw Error::in(source + ":" + std::to_string(line), what + " (nothing was stored)");
  }
  std::string text(const char* key, bool required = false) const {
    if (!row.contains(key) || row[key].is_null()) {
      if (required) fail(std::string("missing \"") + key + "\"");
      return "";
    }
    if (!row[key].is_string()) fail(std::string("\"") + key + "\" must be a string");
    return row[key].get<std::string>();
  }
  std::optional<double> real(const char* key) const {
    if (!row.contains(key) || row[key].is_null()) return std::nullopt;
    if (!row[key].is_number()) fail(std::string("\"") + key + "\" must be a number or null");
    return row[key].get<double>();
  }
  std::optional<int64_t> integer(const char* key) const {
    if (!row.contains(key) || row[key].is_null()) return std::nullopt;
    if (!row[key].is_number_integer()) fail(std::string("\"") + key + "\" must be an integer or null");
    return row[key].get<int64_t>();
  }
};

// Autotune candidates as run_bundle.py reports them: each with constexprs/options and bench_ms.
std::vector<ConfigTiming> configs_of(const LineReader& r) {
  std::vector<ConfigTiming> out;
  if (!r.row.contains("configs") || r.row["configs"].is_null()) return out;
  if (!r.row["configs"].is_array()) r.fail("\"configs\" must be a list");
  const nlohmann::json* best = r.row.contains("best_config") && r.row["best_config"].is_object() ? &r.row["best_config"] : nullptr;
  std::optional<size_t> fastest;
  for (const auto& c : r.row["configs"]) {
    if (!c.is_object()) r.fail("every entry of \"configs\" must be an object");
    ConfigTiming t;
    // Configs that failed carry num_warps/num_stages beside constexprs instead of in options.
    nlohmann::json options = c.contains("options") && c["options"].is_object() ? c["options"] : nlohmann::json::object();
    for (const char* key : {"num_warps", "num_stages", "num_ctas", "maxnreg"})
      if (c.contains(key) && !c[key].is_null() && !options.contains(key)) options[key] = c[key];
    t.config = {{"constexprs", c.value("constexprs", nlohmann::json::object())}, {"options", options}};
    if (c.contains("status") && c["status"].is_string()) t.status = c["status"].get<std::string>();
    if (c.contains("error_class") && c["error_class"].is_string()) t.error_class = c["error_class"].get<std::string>();
    t.details = nlohmann::json::object();
    for (const auto& [key, value] : c.items())
      if (key != "constexprs" && key != "options" && key != "status" && key != "error_class" && !options.contains(key))
        t.details[key] = value;
    for (const char* key : {"bench_ms", "time_ms"})
      if (c.contains(key) && !c[key].is_null()) {
        if (!c[key].is_number()) r.fail(std::string("configs: \"") + key + "\" must be a number or null");
        t.time_ms = c[key].get<double>();
      }
    if (t.time_ms && (!fastest || *t.time_ms < *out[*fastest].time_ms)) fastest = out.size();
    out.push_back(std::move(t));
  }
  std::optional<size_t> chosen = fastest;
  if (best) {
    for (size_t i = 0; i < out.size(); ++i)
      if (out[i].config["constexprs"] == best->value("constexprs", nlohmann::json::object()) &&
          out[i].config["options"] == best->value("options", nlohmann::json::object()) && out[i].time_ms)
        chosen = i;
  }
  if (chosen) out[*chosen].is_best = true;
  return out;
}

// The form checked and, for a ported check, the port (its source is kept out of `extra`:
// it is stored once, in kernel_ports).
void read_form(const LineReader& r, CheckResultRow& out) {
  std::string form = r.text("module_checked");
  if (!form.empty()) {
    if (!kForms.count(form)) r.fail("unknown module_checked \"" + form + "\" (standalone, kernel_only or ported)");
    out.form = form;
  }
  if (!r.row.contains("port") || r.row["port"].is_null()) return;
  const nlohmann::json& port = r.row["port"];
  if (!port.is_object() || !port.contains("source") || !port["source"].is_string())
    r.fail("\"port\" must be an object with the ported \"source\"");
  if (port.contains("rewrites") && !port["rewrites"].is_array()) r.fail("\"port\": \"rewrites\" must be a list");
  if (out.form != "ported") r.fail("a row with \"port\" must say \"module_checked\": \"ported\"");
  out.port = port;
  out.rewrites = port.value("rewrites", nlohmann::json::array());
  out.extra["port"].erase("source");
}

// The first outcome of a check that was retried on a ported module: same kernel, environment
// and request, its own stage, status, error and form; nothing measured.
CheckResultRow unported_outcome(const LineReader& r, const CheckResultRow& ported) {
  const nlohmann::json& u = r.row["unported"];
  if (!u.is_object()) r.fail("\"unported\" must be an object");
  LineReader ur{r.source, r.line, u};
  CheckResultRow first;
  first.line = ported.line;
  first.kernel_id = ported.kernel_id;
  first.stage_requested = ported.stage_requested;
  first.stage_reached = ur.text("stage_reached", true);
  if (!kStages.count(first.stage_reached)) r.fail("unported: unknown stage_reached \"" + first.stage_reached + "\"");
  first.status = ur.text("status", true);
  if (first.status != "fail") r.fail("unported: a check is retried on a ported module only after it failed");
  first.message = ur.text("message");
  first.error_class = ur.text("error_class");
  if (first.error_class.empty() || !is_error_class(first.error_class)) first.error_class = classify_error(first.message);
  first.form = ur.text("module_checked");
  if (first.form.empty()) first.form = "standalone";
  if (!kForms.count(first.form) || first.form == "ported") r.fail("unported: unknown module_checked \"" + first.form + "\"");
  first.arch = ported.arch;
  first.triton_version = ported.triton_version;
  first.torch_version = ported.torch_version;
  first.driver_version = ported.driver_version;
  first.gpu = ported.gpu;
  first.extra = {{"retried_as", "ported"}};
  if (ported.extra.contains("standalone_import")) first.extra["standalone_import"] = ported.extra["standalone_import"];
  return first;
}

}  // namespace

std::vector<CheckResultRow> read_check_results(std::istream& in, const std::string& source) {
  std::vector<CheckResultRow> rows;
  std::string text;
  int line = 0;
  while (std::getline(in, text)) {
    ++line;
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    nlohmann::json row;
    try {
      row = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
      throw Error::in(source + ":" + std::to_string(line), std::string("not JSON: ") + e.what() + " (nothing was stored)");
    }
    LineReader r{source, line, row};
    if (!row.is_object()) r.fail("a result must be a JSON object");
    CheckResultRow out;
    out.line = line;
    if (!row.contains("id") || !row["id"].is_number_integer()) r.fail("\"id\" must be the kernel's integer id");
    out.kernel_id = row["id"].get<int64_t>();
    out.stage_reached = r.text("stage_reached", true);
    if (!kStages.count(out.stage_reached))
      r.fail("unknown stage_reached \"" + out.stage_reached + "\" (worker_start, import, compile, load or run)");
    out.stage_requested = r.text("stage_requested");
    out.status = r.text("status", true);
    if (out.status != "ok" && out.status != "fail") r.fail("status must be \"ok\" or \"fail\", not \"" + out.status + "\"");
    out.message = r.text("message");
    out.error_class = r.text("error_class");
    if (out.status == "ok") {
      out.error_class.clear();
    } else if (out.error_class.empty() || !is_error_class(out.error_class)) {
      out.error_class = classify_error(out.message);
    }
    out.compile_ms = r.real("compile_ms");
    out.run_ms = r.real("run_ms");
    out.n_regs = r.integer("n_regs");
    out.n_spills = r.integer("n_spills");
    out.shared_bytes = r.integer("shared_bytes");
    out.arch = r.text("arch");
    out.triton_version = r.text("triton_version");
    out.torch_version = r.text("torch_version");
    out.driver_version = r.text("driver_version");
    out.gpu = r.text("gpu_name");
    if (out.gpu.empty()) out.gpu = r.text("gpu");
    for (const char* key : {"grid", "constexprs", "guessed"})
      if (row.contains(key)) (key[0] == 'g' ? (key[1] == 'r' ? out.grid : out.guessed) : out.constexprs) = row[key];
    out.configs = configs_of(r);
    for (const auto& [key, value] : row.items())
      if (!kKnown.count(key)) out.extra[key] = value;
    read_form(r, out);
    if (row.contains("unported") && !row["unported"].is_null()) rows.push_back(unported_outcome(r, out));
    rows.push_back(std::move(out));
  }
  return rows;
}

}  // namespace mine::check
