#pragma once
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/launch/launch_site.h"

namespace mine::check {

// What one launch site says about one parameter of its kernel: the first fact source of the
// signature resolver (signature_inference.h), before annotations and defaults, decorators and
// body usage.
struct LaunchFact {
  std::string role;            // as in LaunchArgument: tensor | descriptor | int | float | bool | str | none | dtype | tuple
  std::string dtype;           // tensors: the element type the launcher gives it, or empty
  nlohmann::json value;        // scalars and constexprs: the nominal value
  nlohmann::json shape;        // tensors: nominal shape or null; descriptors: the block they load
  std::string text;            // the argument as written, for the corpus's `why`
  bool nominal = false;        // follows from the nominal sizes the launcher was evaluated with
  bool ratio = false;          // a ratio of sizes, which the nominal sizes make 1 whatever it is
  bool sizes = false;          // ... that a tensor of the launch is shaped with
  bool autocast = false;       // tensors: dtype is autocast's, which integer tensors do not take
};

// The launch the check follows: the one binding the most parameters (complete launches first,
// then by file and line). nullopt when the kernel has none.
std::optional<size_t> preferred_launch(const std::vector<LaunchSite>& launches);

// Facts by parameter of one launch (unbound and unknown arguments left out).
std::map<std::string, LaunchFact> launch_facts(const LaunchSite& launch);

// The launch grid: grid_value when the scan could evaluate it, else the stored grid expression
// evaluated again with its grid_env and `constexprs` for a `lambda META: ...`. nullopt when it
// still cannot be.
std::optional<nlohmann::json> launch_grid(const LaunchSite& launch, const nlohmann::json& constexprs);

}  // namespace mine::check
