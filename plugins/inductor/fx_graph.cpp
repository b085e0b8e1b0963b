#include "plugins/inductor/fx_graph.h"

#include <cctype>

namespace mine::inductor {
namespace {

std::string_view trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

// `# File: /x/modeling_gpt2.py:569 in forward, code: inputs_embeds = self.wte(input_ids)`
nlohmann::json location_of(std::string_view comment) {
  nlohmann::json loc = nlohmann::json::object();
  size_t code = comment.find(", code: ");
  std::string_view head = comment.substr(0, code);
  if (code != std::string_view::npos) loc["code"] = std::string(trim(comment.substr(code + 8)));
  size_t in = head.rfind(" in ");
  if (in != std::string_view::npos) {
    loc["function"] = std::string(trim(head.substr(in + 4)));
    head = head.substr(0, in);
  }
  size_t colon = head.rfind(':');
  bool numbered = colon != std::string_view::npos && colon + 1 < head.size() && head.size() - colon <= 10;
  for (size_t i = colon + 1; numbered && i < head.size(); ++i) numbered = std::isdigit(static_cast<unsigned char>(head[i]));
  if (numbered) {
    loc["file"] = std::string(trim(head.substr(0, colon)));
    loc["line"] = std::stoi(std::string(head.substr(colon + 1)));
  } else {
    loc["file"] = std::string(trim(head));
  }
  return loc;
}

}  // namespace

nlohmann::json read_fx_graph(std::string_view text) {
  nlohmann::json locations = nlohmann::json::array();
  nlohmann::json nodes = nlohmann::json::object();
  int current = -1;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = trim(text.substr(start, end - start));
    start = end + 1;
    if (line.empty()) {
      current = -1;  // a blank line closes the group one File comment covers
      continue;
    }
    if (line.substr(0, 8) == "# File: ") {
      locations.push_back(location_of(line.substr(8)));
      current = static_cast<int>(locations.size()) - 1;
      continue;
    }
    if (current < 0 || line[0] == '#') continue;
    size_t n = 0;
    while (n < line.size() && (std::isalnum(static_cast<unsigned char>(line[n])) || line[n] == '_')) ++n;
    if (n == 0 || n == line.size() || (line[n] != ':' && line[n] != ' ')) continue;
    std::string_view rest = trim(line.substr(n));
    if (rest[0] == ':' || (rest[0] == '=' && rest.substr(0, 2) != "==")) nodes[std::string(line.substr(0, n))] = current;
  }
  return {{"locations", std::move(locations)}, {"nodes", std::move(nodes)}};
}

}  // namespace mine::inductor
