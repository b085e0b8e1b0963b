#pragma once
#include <boost/program_options.hpp>
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

}  // namespace mine::cli
