#include "core/docs/command_doc.h"

#include <cctype>

namespace mine::docs {
namespace {

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.'; }

std::string trim_quotes(std::string w) {
  while (!w.empty() && (w.back() == '\'' || w.back() == '"' || w.back() == ',')) w.pop_back();
  while (!w.empty() && (w.front() == '\'' || w.front() == '"')) w.erase(w.begin());
  return w;
}

bool is_word(const std::string& w) {
  if (w.empty()) return false;
  for (char c : w)
    if (!word_char(c)) return false;
  return true;
}

}  // namespace

std::vector<std::string> value_choices(const std::string& description) {
  std::vector<std::string> parts;
  for (size_t from = 0;;) {
    size_t bar = description.find(" | ", from);
    parts.push_back(description.substr(from, bar == std::string::npos ? std::string::npos : bar - from));
    if (bar == std::string::npos) break;
    from = bar + 3;
  }
  if (parts.size() < 2) return {};
  // The values are the words touching the bars: the last word before the first bar, the first
  // word after each bar ("none | exact (identical ...) | near (MinHash ...)").
  std::vector<std::string> choices;
  for (size_t i = 0; i < parts.size(); ++i) {
    const std::string& p = parts[i];
    std::string w;
    if (i == 0) {
      size_t space = p.find_last_of(' ');
      w = space == std::string::npos ? p : p.substr(space + 1);
    } else {
      w = p.substr(0, p.find(' '));
    }
    w = trim_quotes(w);
    if (!is_word(w)) return {};
    choices.push_back(w);
  }
  return choices;
}

}  // namespace mine::docs
