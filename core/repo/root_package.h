#pragma once
// A repository whose root is itself a package (`__init__.py` beside `setup.py`): its own modules
// import it by the name it is installed or cloned as (`from fast_moe.kernels.utils import f` in
// fast_moe's `kernels/x.py`). That name is read from the packaging files and the repository's
// own name; the module index then resolves such imports inside the tree.
#include <functional>
#include <optional>
#include <set>
#include <string>

namespace mine {

// Names the repository root may be imported as: the distribution name of `pyproject.toml`
// (`[project]` or `[tool.poetry]`), `setup.cfg` or `setup.py` and the top-level entries of a
// `packages` list there, and the last part of `repo_name` (`owner/fast_moe`), each with `-` and
// `.` read as `_`. Only identifiers. `read` gives a root file's text, or nullopt.
std::set<std::string> root_package_names(const std::function<std::optional<std::string>(const std::string&)>& read,
                                         const std::string& repo_name);

}  // namespace mine
