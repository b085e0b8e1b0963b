#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "plugins/sdk/python_file.h"

namespace mine {

// What a Python expression evaluates to as far as its file fixes it, without running it: the
// values a build script hands the compiler (`f"-DTmax={T_MAX}"`, `sources=["cuda/k.cu"]`).
struct StaticValue {
  enum class Known {
    fixed,     // the code gives this value whatever runs it: literals, constants, arithmetic on them
    stand_in,  // the code gives it unless the caller or the environment says otherwise: a
               // parameter's default, `os.environ.get("X", "64")`'s default, one of several assignments
    unknown,   // nothing in the file says: `os.environ["X"]`, a parameter without a default, `self.n`
  };
  Known known = Known::unknown;
  // As Python's str() would give it. Parts nothing fixes are kUnknownPart, so that the fixed rest
  // of an f-string (`-DN=` in `f"-DN={args.n}"`) can still be read.
  std::string text;
  std::string why;  // for stand-ins and unknowns: what was read (`os.environ['X'] has no default`)
  bool number = false;
  bool rooted = false;  // a path from `__file__`: text is repository-relative, after a leading '/'
  bool pattern = false;  // a glob pattern (`glob.glob("csrc/*.cu")`): matches paths, names none

  static constexpr char kUnknownPart = '\x01';
};

// One element of a list the code builds (`flags = [...]`, `flags.append(...)`, `a + b`).
using StaticList = std::vector<StaticValue>;

// The value the calls of `function` pass for its parameter `parameter` (at `position` among its
// parameters): asked for a parameter without a default, so that `def load(head_size): ...
// f"-D_C_={head_size}"` takes the `load(128)` of a test. None when no call says.
using ArgumentSource =
    std::function<std::optional<StaticValue>(const std::string& function, const std::string& parameter, size_t position)>;

// The value of `expression` in `file`, following names to their assignments in the enclosing
// functions and at module level, parameters to their defaults (else to what `arguments` finds
// the callers pass), and a few standard calls: int/str/float, os.environ.get/os.getenv,
// os.path.join/dirname/abspath, `__file__`.
StaticValue static_value(const sdk::PythonFile& file, TSNode expression, const ArgumentSource* arguments = nullptr);

// The elements of a list-valued expression: a list or tuple, a name bound to one (with the
// `.append`/`.extend`/`+=` the same scope makes to it), `a + b`, `glob.glob(pattern)` (one
// pattern element). `complete` turns false when some part could not be read.
StaticList static_list(const sdk::PythonFile& file, TSNode expression, bool& complete,
                       const ArgumentSource* arguments = nullptr);

// The value for key `key` of a dict-valued expression (a dict literal, `dict(key=...)`, a name
// bound to one); a null node when there is none.
TSNode static_dict_entry(const sdk::PythonFile& file, TSNode expression, const std::string& key);

}  // namespace mine
