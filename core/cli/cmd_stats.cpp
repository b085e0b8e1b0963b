#include <iostream>

#include "core/cli/command.h"
#include "core/cli/options.h"
#include "core/report/corpus_report.h"
#include "core/report/html_escape.h"
#include "corpus/corpus.h"
#include "corpus/stats_store.h"

namespace mine::cli {
namespace {

size_t width(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// Terminal text: one line per cell, long names cut so the table stays readable.
std::string terminal_cell(const nlohmann::json& v) {
  std::string s;
  for (char c : report::cell_text(v)) s += (c == '\n' || c == '\t' || c == '\r') ? ' ' : c;
  return report::truncate_utf8(s, 60);
}

void print_section(const StatsSection& s) {
  std::cout << s.query->title << "\n";
  if (!s.available) {
    std::cout << "  (not available: " << s.unavailable_reason << ")\n\n";
    return;
  }
  const QueryResult& r = s.result;
  if (r.rows.empty()) {
    std::cout << "  (none yet" << (s.query->when_empty.empty() ? "" : ": " + s.query->when_empty) << ")\n\n";
    return;
  }
  if (s.query->id == "overview") {
    for (size_t i = 0; i < r.columns.size(); ++i)
      std::cout << "  " << r.columns[i] << ": " << terminal_cell(r.rows[0][i]) << "\n";
    std::cout << "\n";
    return;
  }
  std::vector<std::vector<std::string>> lines{r.columns};
  for (const auto& row : r.rows) {
    std::vector<std::string> line;
    for (const auto& v : row) line.push_back(terminal_cell(v));
    lines.push_back(std::move(line));
  }
  std::vector<size_t> widths(r.columns.size(), 0);
  for (const auto& line : lines)
    for (size_t i = 0; i < line.size(); ++i) widths[i] = std::max(widths[i], width(line[i]));
  for (const auto& line : lines) {
    std::cout << " ";
    for (size_t i = 0; i < line.size(); ++i) {
      bool numeric = i > 0;  // the first column names the row; the others are counts
      std::string pad(widths[i] - width(line[i]), ' ');
      std::cout << " " << (numeric ? pad + line[i] : line[i] + (i + 1 < line.size() ? pad : ""));
    }
    std::cout << "\n";
  }
  std::cout << "\n";
}

nlohmann::ordered_json section_json(const StatsSection& s) {
  nlohmann::ordered_json out;
  out["title"] = s.query->title;
  if (!s.available) {
    out["unavailable"] = s.unavailable_reason;
    return out;
  }
  out["rows"] = nlohmann::ordered_json::array();
  for (const auto& row : s.result.rows) {
    nlohmann::ordered_json obj = nlohmann::ordered_json::object();
    for (size_t i = 0; i < row.size(); ++i) obj[s.result.columns[i]] = row[i];
    out["rows"].push_back(std::move(obj));
  }
  out["sql"] = s.query->sql;
  return out;
}

int run_stats(const std::vector<std::string>& args) {
  po::options_description options("mine stats options");
  std::string db, format;
  options.add_options()
      ("db", po::value(&db)->default_value(default_db_path()), "corpus file")
      ("format,f", po::value(&format)->default_value("table"), "table | json");
  po::variables_map vm;
  if (!parse_options(args, options, {}, vm, "mine stats [--db corpus.db] [--format table|json]",
                     "mine stats --db corpus.db --format json | jq '.sections.top_repositories.rows[:5]'"))
    return kExitOk;
  if (format != "table" && format != "json") throw UsageError{"unknown --format '" + format + "' (use table or json)"};
  auto corpus = Corpus::open(db, Corpus::Access::ReadOnly);
  std::vector<StatsSection> sections = corpus_stats(*corpus);
  if (format == "json") {
    nlohmann::ordered_json out;
    out["corpus"] = db;
    out["schema_version"] = stats_schema_version(*corpus);
    out["sections"] = nlohmann::ordered_json::object();
    for (const auto& s : sections) out["sections"][s.query->id] = section_json(s);
    std::cout << out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return kExitOk;
  }
  std::cout << "corpus " << db << " (schema " << stats_schema_version(*corpus) << ")\n\n";
  for (const auto& s : sections) print_section(s);
  return kExitOk;
}

RegisterCommand reg({"stats", "summarize the corpus: repositories, kernels, duplicates, checks, licenses", run_stats,
                     70});

}  // namespace
}  // namespace mine::cli
