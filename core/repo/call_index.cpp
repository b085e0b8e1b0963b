#include "core/repo/call_index.h"

#include <unordered_set>

namespace mine {
namespace {

bool identifier_start(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool identifier_char(char c) { return identifier_start(c) || (c >= '0' && c <= '9'); }

}  // namespace

std::vector<std::string> CallIndex::called_names(const std::string& text) {
  std::vector<std::string> out;
  std::unordered_set<std::string> seen;
  const size_t n = text.size();
  for (size_t i = 0; i < n;) {
    if (!identifier_start(text[i]) || (i > 0 && identifier_char(text[i - 1]))) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < n && identifier_char(text[end])) ++end;
    size_t after = end;
    while (after < n && (text[after] == ' ' || text[after] == '\t')) ++after;
    if (after < n && text[after] == '(') {
      std::string name = text.substr(i, end - i);
      if (seen.insert(name).second) out.push_back(std::move(name));
    }
    i = end;
  }
  return out;
}

std::vector<std::string> CallIndex::files_calling(const std::string& name, const ReadText& read) const {
  std::call_once(built_, [&] {
    for (uint32_t i = 0; i < paths_.size(); ++i) {
      std::optional<std::string> text = read(paths_[i]);
      if (!text) continue;
      for (auto& called : called_names(*text)) callers_[called].push_back(i);
    }
  });
  std::vector<std::string> out;
  auto it = callers_.find(name);
  if (it != callers_.end())
    for (uint32_t i : it->second) out.push_back(paths_[i]);
  return out;
}

}  // namespace mine
