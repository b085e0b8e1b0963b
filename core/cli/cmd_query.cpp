#include <iostream>
#include <sstream>

#include "core/cli/command.h"
#include "core/cli/options.h"
#include "corpus/corpus.h"

namespace mine::cli {
namespace {

std::string cell_text(const nlohmann::json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// Width in terminal columns, counting each UTF-8 code point once.
size_t display_width(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::string table_cell(const nlohmann::json& v, size_t max_width) {
  std::string s = cell_text(v), out;
  for (char c : s) out += (c == '\n') ? std::string("\\n") : (c == '\t' ? std::string(" ") : std::string(1, c));
  if (display_width(out) <= max_width) return out;
  std::string cut;
  size_t w = 0;
  for (size_t i = 0; i < out.size() && w < max_width - 1; ++i) {
    cut += out[i];
    if ((static_cast<unsigned char>(out[i]) & 0xC0) != 0x80) ++w;
  }
  while (!cut.empty() && (static_cast<unsigned char>(cut.back()) & 0xC0) == 0xC0) cut.pop_back();
  return cut + "…";
}

void print_table(const QueryResult& r, size_t max_width) {
  std::vector<size_t> widths;
  for (const auto& c : r.columns) widths.push_back(display_width(c));
  std::vector<std::vector<std::string>> cells;
  for (const auto& row : r.rows) {
    std::vector<std::string> line;
    for (size_t i = 0; i < row.size(); ++i) {
      line.push_back(table_cell(row[i], max_width));
      widths[i] = std::max(widths[i], display_width(line.back()));
    }
    cells.push_back(std::move(line));
  }
  auto print_row = [&](const std::vector<std::string>& line) {
    for (size_t i = 0; i < line.size(); ++i) {
      std::cout << line[i];
      if (i + 1 < line.size()) std::cout << std::string(widths[i] - display_width(line[i]) + 2, ' ');
    }
    std::cout << "\n";
  };
  print_row(r.columns);
  std::vector<std::string> rule;
  for (size_t w : widths) rule.push_back(std::string(w, '-'));
  print_row(rule);
  for (const auto& line : cells) print_row(line);
  std::cout << "(" << r.rows.size() << " row" << (r.rows.size() == 1 ? "" : "s") << ")\n";
}

int run_query(const std::vector<std::string>& args) {
  po::options_description options("mine query options");
  std::string sql, db, format;
  size_t max_width = 60;
  options.add_options()
      ("sql", po::value(&sql), "one read-only SQL statement (positional)")
      ("db", po::value(&db)->default_value(default_db_path()), "corpus file")
      ("format,f", po::value(&format)->default_value("table"), "table | csv | json")
      ("max-width", po::value(&max_width)->default_value(60), "table format: cut cells longer than this");
  po::positional_options_description positional;
  positional.add("sql", 1);
  po::variables_map vm;
  if (!parse_options(args, options, positional, vm, "mine query \"SQL\" [--db corpus.db] [--format table|csv|json]",
                     "mine query \"SELECT name, path, start_line FROM kernels\" --format csv"))
    return kExitOk;
  if (sql.empty()) throw UsageError{"give the SQL to run, e.g. mine query \"SELECT count(*) FROM kernels\""};
  if (format != "table" && format != "csv" && format != "json")
    throw UsageError{"unknown --format '" + format + "' (use table, csv or json)"};
  auto corpus = Corpus::open(db, Corpus::Access::ReadOnly);
  QueryResult r = corpus->query(sql);
  if (format == "json") {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& row : r.rows) {
      nlohmann::json obj = nlohmann::json::object();
      for (size_t i = 0; i < row.size(); ++i) obj[r.columns[i]] = row[i];
      out.push_back(std::move(obj));
    }
    std::cout << out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else if (format == "csv") {
    for (size_t i = 0; i < r.columns.size(); ++i) std::cout << (i ? "," : "") << csv_field(r.columns[i]);
    std::cout << "\n";
    for (const auto& row : r.rows) {
      for (size_t i = 0; i < row.size(); ++i) std::cout << (i ? "," : "") << csv_field(cell_text(row[i]));
      std::cout << "\n";
    }
  } else {
    print_table(r, std::max<size_t>(max_width, 4));
  }
  return kExitOk;
}

RegisterCommand reg({"query", "run read-only SQL over the corpus (table, CSV or JSON)", run_query, 40});

}  // namespace
}  // namespace mine::cli
