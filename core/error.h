#pragma once
#include <stdexcept>
#include <string>

namespace mine {

// The one exception type of mine. `what()` is a complete message for a user: it names the
// file, line, repository or option that was wrong. Caught at the CLI boundary.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
  // Prefixes context, e.g. Error::in("corpus.db", "database is locked") -> "corpus.db: database is locked".
  static Error in(const std::string& where, const std::string& message) {
    return Error(where + ": " + message);
  }
};

}  // namespace mine
