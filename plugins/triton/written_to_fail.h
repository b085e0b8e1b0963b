#pragma once
// Kernels a repository writes to fail or to be completed at run time, read from the file that
// defines them. Their check results would say nothing about the kernel mined: `mine check`
// leaves them out of its bundles and `kernels.meta` tells why (README, "Kernels left unchecked").
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "plugins/sdk/python_file.h"

namespace mine {

// Names the kernel's body reads that nothing binds, while the file substitutes them into source
// text, quoted as a dict key or as what `.replace(` replaces: placeholders a test fills in
// before it compiles (`patch_kernel(kernel, {'GENERATE_TEST_HERE': expr})`, `src.replace("OP", op)`).
std::vector<std::string> source_placeholders(const sdk::PythonFile& file, const mine_python_function& kernel);

// What a file quotes as a dict key or as what `.replace(` replaces and could be a name
// (identifier characters only, no builtin Triton takes): the only names source_placeholders can
// answer. Read once per file: a kernel whose text spells none of them (but as its parameters or
// names the module binds) has no placeholder, and its body need not be walked (the walks were a
// tenth of a scan's instructions on FlagGems).
class SubstitutedNames {
 public:
  explicit SubstitutedNames(std::string_view text);
  // The names `code` spells as a whole word (a superset of the names it reads).
  std::vector<std::string_view> found_in(std::string_view code) const;
  // Whether the file substitutes `name` (a name, quoted as a dict key or a `.replace(` target).
  bool holds(std::string_view name) const { return std::binary_search(names_.begin(), names_.end(), name); }

 private:
  std::vector<std::string_view> names_;  // distinct, views into the file's text
};
// The same answer as above, for a file whose SubstitutedNames are at hand.
std::vector<std::string> source_placeholders(const sdk::PythonFile& file, const mine_python_function& kernel,
                                             const SubstitutedNames& substituted);

// True when the kernel's name is used in the scope that defines it and every use lies inside a
// block that expects an exception (`with pytest.raises(...)`, `self.assertRaises(...)`):
// the repository compiles or launches it only to see it fail.
bool used_only_where_errors_expected(const sdk::PythonFile& file, const mine_python_function& kernel);

}  // namespace mine
