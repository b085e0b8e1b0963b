#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/launch/launch_site.h"

namespace mine {

// A kernel of the repository as linking needs it.
struct LaunchTarget {
  int64_t id = 0;
  std::string name;
  std::string path;
  std::string qualname;             // `test_x.<locals>.kernel` for a kernel defined in a function
  std::vector<std::string> params;  // in order, splats excluded
  int line = 0;                     // first line of the definition
  std::vector<bool> defaulted;      // beside params: whether it has a default (empty: none has)
};

struct LinkedLaunch {
  int64_t kernel_id = 0;
  LaunchSite site;    // args carry the parameter each binds
  size_t launch = 0;  // index of the site in the launches linked
};

// Links each launch to the kernels it can launch and binds its arguments to their parameters:
// a launch whose imports named the defining file goes to the kernel of that name there; one
// matched by name alone (`self.kernel`) prefers a kernel of its own file, else every kernel of
// that name whose parameters can take the arguments. A kernel defined inside the launching
// function wins over every other; several of one name in the launch's own file (nested kernels
// of test functions) leave the launch unlinked rather than linked to the wrong one. One name
// defined twice in a file (`if triton.__version__ >= ...: def k` / `else: def k`, each branch with
// its launcher) links to the definitions the launch's arguments fit, and of those to the last one
// defined before the launch: the one its branch holds. Positional arguments bind in order,
// keywords by name; arguments no parameter takes stay unbound (param empty). Positionals after a
// spread of unknown length (`*x.stride()`) bind back from the last parameter a positional can
// take: the one before the parameters the launch names, or before defaulted ones it leaves out.
// Where defaults leave that end open, the arguments' names decide it, else they stay unbound.
std::vector<LinkedLaunch> link_launches(const std::vector<LaunchTarget>& kernels, const std::vector<LaunchSite>& launches);

}  // namespace mine
