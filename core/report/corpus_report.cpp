#include "core/report/corpus_report.h"

#include <optional>

#include "core/report/html_escape.h"
#include "core/report/html_page.h"
#include "core/report/svg_chart.h"

namespace mine::report {
namespace {

enum class Shape { Bars, Histogram };

struct ChartSpec {
  const char* id;
  const char* title;  // the chart's own title; the section title names the figure
  Shape shape;
  const char* label_column;
  const char* value_column;
  const char* color;
};

constexpr ChartSpec kCharts[] = {
    {"top_repositories", "Kernels per repository (top 20)", Shape::Bars, "repository", "kernels", "#4c78a8"},
    {"kernels_by_plugin", "Kernels by plugin and category", Shape::Bars, "plugin", "kernels", "#72b7b2"},
    {"kernel_sizes", "Kernel size distribution (lines)", Shape::Histogram, "lines", "kernels", "#54a24b"},
    {"check_pass_rate", "Check pass rate by stage", Shape::Bars, "stage", "pass_pct", "#54a24b"},
    {"check_error_classes", "Check failures by error class", Shape::Bars, "error_class", "kernels", "#e45756"},
    {"autotune_speedups", "Autotune speedups", Shape::Histogram, "speedup", "kernels", "#f58518"},
    {"dedup_funnel", "Deduplication funnel", Shape::Bars, "step", "kernels", "#b279a2"},
    {"repos_by_state", "Repositories by crawl state", Shape::Bars, "state", "repositories", "#9d755d"},
    {"license_mix", "Kernels by license / where it comes from", Shape::Bars, "license", "kernels", "#bab0ac"},
    {"license_sources", "Kernels by license source", Shape::Bars, "source", "kernels", "#bab0ac"},
};

// The page's order: charts first, then the tables.
constexpr const char* kOrder[] = {"top_repositories", "kernels_by_plugin", "kernel_sizes",   "check_pass_rate",
                                  "check_error_classes", "autotune_speedups", "dedup_funnel", "repos_by_state",
                                  "license_mix", "license_sources", "license_disagreements", "dup_clusters",
                                  "check_outcomes", "check_by_triton", "ports_by_move", "scan_problems"};

const ChartSpec* chart_for(const std::string& id) {
  for (const auto& c : kCharts)
    if (id == c.id) return &c;
  return nullptr;
}

std::optional<size_t> column(const QueryResult& r, const std::string& name) {
  for (size_t i = 0; i < r.columns.size(); ++i)
    if (r.columns[i] == name) return i;
  return std::nullopt;
}

double number(const nlohmann::json& v) { return v.is_number() ? v.get<double>() : 0; }

std::vector<ChartBar> bars_of(const StatsSection& s, const ChartSpec& spec) {
  const QueryResult& r = s.result;
  auto li = column(r, spec.label_column), vi = column(r, spec.value_column);
  std::vector<ChartBar> bars;
  if (!li || !vi) return bars;
  auto category = column(r, "category");
  if (!category && spec.label_column != std::string("source")) category = column(r, "source");
  auto attempted = column(r, "attempted"), passed = column(r, "passed");
  for (const auto& row : r.rows) {
    ChartBar b;
    b.label = cell_text(row[*li]);
    if (category && !cell_text(row[*category]).empty()) b.label += " / " + cell_text(row[*category]);
    b.value = number(row[*vi]);
    if (attempted && passed)
      b.value_text = format_number(b.value) + "% (" + cell_text(row[*passed]) + " of " + cell_text(row[*attempted]) + ")";
    bars.push_back(std::move(b));
  }
  return bars;
}

std::string table_of(const QueryResult& r) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& row : r.rows) {
    std::vector<std::string> cells;
    for (const auto& v : row) cells.push_back(cell_text(v));
    rows.push_back(std::move(cells));
  }
  return html_table(r.columns, rows);
}

std::string overview_cards(const StatsSection& s) {
  if (!s.available || s.result.rows.empty()) return "";
  static const std::pair<const char*, const char*> shown[] = {
      {"repositories", "repositories"}, {"files", "files"},           {"kernels", "kernels"},
      {"self_contained_pct", "% self-contained"}, {"scan_problems", "scan problems"}};
  std::string out = "<div class=\"cards\" id=\"overview\">";
  for (const auto& [col, caption] : shown) {
    auto i = column(s.result, col);
    if (!i) continue;
    out += "<div class=\"card\"><b>" + html_escape(cell_text(s.result.rows[0][*i])) + "</b><span>" + caption +
           "</span></div>";
  }
  return out + "</div>";
}

PageBlock block_of(const StatsSection& s) {
  PageBlock b;
  b.id = s.query->id;
  b.title = s.query->title;
  if (!s.available) {
    b.note = s.unavailable_reason;
    return b;
  }
  b.sql = s.query->sql;
  if (s.result.rows.empty()) {
    b.note = "Nothing yet" + (s.query->when_empty.empty() ? std::string(".") : ": " + s.query->when_empty + ".");
    return b;
  }
  if (const ChartSpec* spec = chart_for(b.id)) {
    ChartOptions options;
    options.title = spec->title;
    options.color = spec->color;
    if (std::string(spec->value_column) == "pass_pct") options.max_value = 100;
    auto bars = bars_of(s, *spec);
    b.body_html = spec->shape == Shape::Bars ? horizontal_bars_svg(bars, options) : histogram_svg(bars, options);
    b.body_html += "\n<details><summary>Data</summary>" + table_of(s.result) + "</details>";
  } else {
    b.body_html = table_of(s.result);
  }
  return b;
}

}  // namespace

std::string cell_text(const nlohmann::json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) return format_number(v.get<double>());
  return v.dump();
}

std::string corpus_report_html(const std::vector<StatsSection>& sections, const ReportInfo& info) {
  Page page;
  page.title = "mine corpus report";
  page.subtitle = info.corpus_path + " · schema " + std::to_string(info.schema_version) + " · generated " +
                  info.generated_at;
  for (const auto& s : sections)
    if (s.query->id == "overview") page.intro_html = overview_cards(s);
  for (const char* id : kOrder)
    for (const auto& s : sections)
      if (s.query->id == id) page.blocks.push_back(block_of(s));
  return render_page(page);
}

}  // namespace mine::report
