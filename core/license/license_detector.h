#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mine {

// What a license file says, as an SPDX id.
struct LicenseMatch {
  std::string spdx_id;      // empty when no known license matched
  double confidence = 0;    // Dice coefficient of the best candidate, 0..1
  std::string best_guess;   // the best candidate's id even when under the threshold (for messages)
};

// Recognises license texts the way GitHub's detector (licensee) does: both texts are normalized
// (case, punctuation, markup, copyright lines, template placeholders, spelling variants such as
// licence/license), reduced to their sets of words, and compared with the Dice coefficient
// 2|A∩B| / (|A|+|B|); the best candidate counts when it reaches `threshold`. No detector for C++
// is maintained (licensee is Ruby, askalono Rust, ScanCode Python), and the method is a page of
// code over the SPDX texts, which scripts/setup.sh fetches.
class LicenseDetector {
 public:
  static constexpr double kThreshold = 0.90;
  LicenseDetector();  // normalizes the embedded texts once
  LicenseMatch detect(std::string_view text, double threshold = kThreshold) const;

 private:
  struct Known {
    std::string spdx_id;
    std::vector<std::string> words;  // sorted, unique
  };
  std::vector<Known> known_;
};

// The process-wide detector (built on first use; thread-safe).
const LicenseDetector& license_detector();

// The words `text` is compared by: sorted and unique, after normalization.
std::vector<std::string> license_words(std::string_view text);

// Whether `path` (repository-relative) names a license file at the repository's root:
// LICENSE*, LICENCE*, COPYING* in any case (LICENSE, LICENSE.md, COPYING.txt, LICENSE-MIT...).
bool is_license_file_name(std::string_view path);
// Which license file speaks for the repository when it has several, lowest first: LICENSE before
// LICENSE.md before COPYING before COPYING.txt before LICENSE-THIRD-PARTY or COPYING.LESSER.
// (A repository with LICENSE and COPYING, e.g. Apache-2.0 for the library and AGPL-3.0 for a
// bundled app, is known by its LICENSE, as GitHub knows it.)
int license_file_rank(std::string_view path);

// The value of an `SPDX-License-Identifier:` tag in the first lines of a source file
// (a comment in any language), e.g. "Apache-2.0" or "MIT OR Apache-2.0"; nullopt when none, or
// when the value is no SPDX expression (`GNU Affero General Public License v3.0`).
std::optional<std::string> spdx_header(std::string_view text);

// Whether two SPDX ids name the same license, whatever spelling each side uses
// ("GPL-3.0" and "GPL-3.0-only", case).
bool same_license(const std::string& a, const std::string& b);

}  // namespace mine
