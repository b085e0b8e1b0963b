#pragma once
#include <boost/program_options.hpp>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

namespace mine::cli {

namespace po = boost::program_options;

// Parses a subcommand's arguments. Prints help (with `usage` and `example`) and returns false
// when --help was asked for.
bool parse_options(const std::vector<std::string>& args, po::options_description& options,
                   const po::positional_options_description& positional, po::variables_map& vm,
                   const std::string& usage, const std::string& example);

// While one is set, parse_options hands the command's definitions to it instead of parsing, and
// returns false, so the command returns before doing any work. This is how `mine completion`
// and `mine man` learn every command's options without each command exporting them.
using OptionsObserver = std::function<void(const po::options_description&, const po::positional_options_description&,
                                           const std::string& usage, const std::string& example)>;
void set_options_observer(OptionsObserver observer);  // an empty one clears it

}  // namespace mine::cli
