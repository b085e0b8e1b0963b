#include "core/export/kernel_language.h"

namespace mine {

std::string kernel_language(const std::string& plugin, const nlohmann::json& meta) {
  if (meta.is_object()) {
    auto declared = meta.find("language");
    if (declared != meta.end() && declared->is_string() && is_known_language(declared->get<std::string>()))
      return declared->get<std::string>();
  }
  return plugin == "cuda" ? "cuda" : "python";
}

bool is_known_language(const std::string& language) { return language == "python" || language == "cuda"; }

std::string fenced(const std::string& code, const std::string& language) {
  std::string body = code;
  while (!body.empty() && (body.back() == '\n' || body.back() == ' ')) body.pop_back();
  return "```" + language + "\n" + body + "\n```";
}

}  // namespace mine
