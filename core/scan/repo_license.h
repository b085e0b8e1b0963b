#pragma once
#include "core/scan/source_tree.h"
#include "corpus/corpus.h"

namespace mine {

// The license a tree's own license file states: the root's LICENSE*, LICENCE* and COPYING*
// files are tried in license_file_rank order, and the first that matches a known SPDX text counts. A tree without
// one, or whose files match none, gives an empty id (the path of the file tried is kept).
RepoLicense detect_repo_license(const SourceTree& tree);

}  // namespace mine
