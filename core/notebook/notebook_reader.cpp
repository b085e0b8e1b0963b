#include "core/notebook/notebook_reader.h"

#include <nlohmann/json.hpp>
#include <re2/re2.h>

#include "core/error.h"

namespace mine {
namespace {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    pos = end + 1;
  }
  return lines;
}

std::string cell_source(const nlohmann::json& cell) {
  const nlohmann::json* source = nullptr;
  if (cell.contains("source")) source = &cell["source"];
  else if (cell.contains("input")) source = &cell["input"];  // nbformat 3
  if (!source) return "";
  if (source->is_string()) return source->get<std::string>();
  std::string out;
  if (source->is_array())
    for (const auto& part : *source)
      if (part.is_string()) out += part.get<std::string>();
  return out;
}

// Cell magics whose body is still Python.
bool python_cell_magic(const std::string& first_line) {
  static const RE2 python_magic(R"(^%%\s*(time|timeit|capture|prun|debug|writefile\s+(-a\s+)?\S+\.py)\b.*)");
  return RE2::FullMatch(first_line, python_magic);
}

std::string neutralize(const std::string& line) {
  static const RE2 shell_or_magic(R"(^(\s*)([!%].*)$)");
  static const RE2 assigned(R"(^(\s*)([A-Za-z_][A-Za-z_0-9]*)\s*=\s*[!%].*$)");
  std::string indent, name, rest;
  if (RE2::FullMatch(line, assigned, &indent, &name)) return indent + name + " = None  # " + line.substr(indent.size());
  if (RE2::FullMatch(line, shell_or_magic, &indent, &rest)) return indent + "pass  # " + rest;
  return line;
}

}  // namespace

std::pair<int, int> NotebookModule::locate(int line) const {
  for (const auto& c : cells)
    if (line >= c.first_line && line < c.first_line + c.lines) return {c.index, line - c.first_line + 1};
  return {-1, 0};
}

NotebookModule read_notebook(const std::string& json_text) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("not a notebook: ") + e.what());
  }
  const nlohmann::json* cells = nullptr;
  if (doc.is_object() && doc.contains("cells") && doc["cells"].is_array()) {
    cells = &doc["cells"];
  } else if (doc.is_object() && doc.contains("worksheets") && doc["worksheets"].is_array() &&
             !doc["worksheets"].empty() && doc["worksheets"][0].contains("cells")) {
    cells = &doc["worksheets"][0]["cells"];
  }
  if (!cells || !cells->is_array()) throw Error("not a notebook: no cells");

  NotebookModule out;
  int line = 1;
  for (size_t i = 0; i < cells->size(); ++i) {
    const nlohmann::json& cell = (*cells)[i];
    if (!cell.is_object() || cell.value("cell_type", "") != "code") continue;
    std::vector<std::string> lines = split_lines(cell_source(cell));
    if (lines.empty()) continue;
    bool other_language = lines[0].rfind("%%", 0) == 0 && !python_cell_magic(lines[0]);
    NotebookCell placed{static_cast<int>(i), line, static_cast<int>(lines.size())};
    for (size_t k = 0; k < lines.size(); ++k) {
      if (other_language) {
        out.text += "# " + lines[k];
      } else if (k == 0 && lines[0].rfind("%%", 0) == 0) {
        out.text += "pass  # " + lines[0];
      } else {
        out.text += neutralize(lines[k]);
      }
      out.text += "\n";
    }
    out.text += "\n";  // cells end their blocks
    line += static_cast<int>(lines.size()) + 1;
    out.cells.push_back(placed);
  }
  return out;
}

}  // namespace mine
