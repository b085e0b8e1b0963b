#include "plugins/inductor/output_code_log.h"

namespace mine::inductor {
namespace {

constexpr std::string_view kMarker = "[__output_code] ";
constexpr std::string_view kStart = "Output code:";

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

bool is_log_path(std::string_view path) {
  for (std::string_view suffix : {".log", ".txt", ".out", ".err"})
    if (ends_with(path, suffix)) return true;
  return false;
}

std::vector<LoggedModule> logged_output_code(std::string_view log) {
  std::vector<LoggedModule> out;
  bool open = false;  // inside a module's record
  int line_no = 0;
  for (size_t at = 0; at < log.size();) {
    size_t eol = log.find('\n', at);
    std::string_view line = log.substr(at, eol == std::string_view::npos ? std::string_view::npos : eol - at);
    at = eol == std::string_view::npos ? log.size() : eol + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    size_t marker = line.find(kMarker);
    if (marker == std::string_view::npos) {
      open = false;  // another record (or none): the module ended
      continue;
    }
    std::string_view content = line.substr(marker + kMarker.size());
    if (content.substr(0, kStart.size()) == kStart) {
      // `Output code: ` starts a record; what follows on that line is the module's first line.
      std::string_view rest = content.substr(kStart.size());
      while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
      out.push_back({std::string(rest), line_no});
      if (!rest.empty()) out.back().text += '\n';
      else out.back().first_line = line_no + 1;
      open = true;
      continue;
    }
    if (!open) continue;  // `Output code written to: ...` and other records of the artifact
    out.back().text.append(content).push_back('\n');
  }
  return out;
}

}  // namespace mine::inductor
