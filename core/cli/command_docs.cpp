#include "core/cli/command_docs.h"

#include <iostream>
#include <set>
#include <sstream>

#include "core/cli/command.h"
#include "core/cli/options.h"

namespace mine::cli {
namespace {

docs::OptionDoc option_doc(const po::option_description& o, const std::set<std::string>& positional) {
  docs::OptionDoc d;
  d.long_name = o.long_name();
  std::string shown = o.format_name();  // "-f [ --format ]" or "--db"
  if (shown.size() >= 2 && shown[0] == '-' && shown[1] != '-') d.short_name = shown.substr(1, 1);
  d.takes_value = o.semantic()->max_tokens() > 0;
  std::string parameter = o.format_parameter();  // "arg (=table)"
  if (auto at = parameter.find("(="); at != std::string::npos && parameter.back() == ')')
    d.default_value = parameter.substr(at + 2, parameter.size() - at - 3);
  d.description = o.description();
  d.positional = positional.count(d.long_name) > 0;
  return d;
}

}  // namespace

std::vector<docs::CommandDoc> describe_commands() {
  std::vector<docs::CommandDoc> out;
  for (const auto& c : commands()) {
    docs::CommandDoc doc{c.name, c.summary, "", "", {}};
    set_options_observer([&](const po::options_description& options, const po::positional_options_description& pos,
                             const std::string& usage, const std::string& example) {
      std::set<std::string> positional;
      for (unsigned i = 0; i < std::min(pos.max_total_count(), 8u); ++i) positional.insert(pos.name_for_position(i));
      for (const auto& o : options.options()) doc.options.push_back(option_doc(*o, positional));
      doc.usage = usage;
      doc.example = example;
    });
    // A command that parses its arguments some other way must not print into the script.
    std::ostringstream discard;
    std::streambuf* saved = std::cout.rdbuf(discard.rdbuf());
    try {
      c.run({"--help"});
    } catch (...) {
      // Describing is best effort: such a command is still completed by name.
    }
    std::cout.rdbuf(saved);
    set_options_observer(nullptr);
    out.push_back(std::move(doc));
  }
  return out;
}

}  // namespace mine::cli
