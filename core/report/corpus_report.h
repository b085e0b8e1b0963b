#pragma once
#include <string>
#include <vector>

#include "corpus/stats_store.h"

namespace mine::report {

struct ReportInfo {
  std::string corpus_path;
  int schema_version = 0;
  std::string generated_at;  // UTC, ISO 8601
};

// The `mine report` page: the overview as figures, charts for the sections that have one, a table
// for the rest, each with the SQL that made it.
std::string corpus_report_html(const std::vector<StatsSection>& sections, const ReportInfo& info);

// A cell of a stats result as text (NULL is empty).
std::string cell_text(const nlohmann::json& value);

}  // namespace mine::report
