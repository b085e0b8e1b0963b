#pragma once
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "corpus/check_store.h"

namespace mine::check {

// Packages a bundle's kernels import from outside their own repository that another repository
// of the corpus has (`from fla.ops.utils import ...` in a kernel of GatedDeltaNet, with
// flash-linear-attention crawled too): their Python files are copied from that repository's
// commit into BUNDLE_DIR/lib/, which the harness puts last on sys.path, so an installed package
// still wins. Returns bundle.json's "libraries" object ({path, packages: {name: {repo, commit,
// dir, files}}}), or null when no package was copied. Files that cannot be read are skipped and
// named in `problems`.
nlohmann::json write_bundle_libraries(const std::string& bundle_dir, const std::vector<LibraryPackage>& packages,
                                      std::vector<std::string>& problems);

}  // namespace mine::check
