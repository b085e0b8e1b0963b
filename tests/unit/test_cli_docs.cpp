// Completion script and man page generation from plain command descriptions.
#include <catch2/catch.hpp>

#include "core/docs/bash_completion.h"
#include "core/docs/man_page.h"

using namespace mine::docs;

namespace {
std::vector<CommandDoc> sample() {
  CommandDoc stats{"stats", "summarize", "mine stats [--format table|json]", "mine stats -f json", {}};
  stats.options = {{"db", "", true, "corpus.db", "corpus file", false},
                   {"format", "f", true, "table", "table | json", false},
                   {"help", "h", false, "", "show this help", false}};
  CommandDoc comp{"completion", "completion", "mine completion bash|man", "", {}};
  comp.options = {{"shell", "", true, "", "bash | man (positional)", true}};
  CommandDoc bare{"plugins", "list plugins", "", "", {}};
  return {stats, comp, bare};
}
}  // namespace

TEST_CASE("value choices are read from descriptions that list them", "[docs]") {
  CHECK(value_choices("table | csv | json") == std::vector<std::string>{"table", "csv", "json"});
  CHECK(value_choices("--run: stop after import | compile | load | run") ==
        std::vector<std::string>{"import", "compile", "load", "run"});
  CHECK(value_choices("none | exact (identical after normalization) | near (MinHash clusters too)") ==
        std::vector<std::string>{"none", "exact", "near"});
  CHECK(value_choices("corpus file").empty());
  CHECK(value_choices("a | $(rm -rf ~)").empty());  // never a word list that is not plain words
}

TEST_CASE("bash completion covers commands, options and listed values", "[docs][completion]") {
  std::string script = bash_completion(sample());
  CHECK(script.find("compgen -W \"stats completion plugins help --help --version\"") != std::string::npos);
  CHECK(script.find("--format|-f) COMPREPLY=($(compgen -W \"table json\"") != std::string::npos);
  CHECK(script.find("--db) COMPREPLY=($(compgen -f") != std::string::npos);
  CHECK(script.find("compgen -W \"bash man\" -- \"$cur\"") != std::string::npos);  // positional choices
  CHECK(script.find("    plugins)\n      ;;") != std::string::npos);                  // completed by name only
  CHECK(script.find("complete -o filenames -F _mine mine") != std::string::npos);
}

TEST_CASE("the man page lists every option with its default in valid roff", "[docs][man]") {
  std::string page = man_page(sample(), "0.1.0");
  CHECK(page.find(".TH MINE 1") != std::string::npos);
  CHECK(page.find(".SS \"mine stats\"") != std::string::npos);
  CHECK(page.find("\\fB\\-f\\fR, \\fB\\-\\-format\\fR \\fIvalue\\fR\ntable | json (default: table)") !=
        std::string::npos);
  CHECK(page.find(".SH EXIT STATUS") != std::string::npos);
  CHECK(roff_escape(".start\n'quote \\ back-slash") == "\\&.start\n\\&'quote \\e back\\-slash");
}
