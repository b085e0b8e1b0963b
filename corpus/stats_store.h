#pragma once
#include <string>
#include <vector>

#include "corpus/corpus.h"

namespace mine {

// One figure about the corpus, as the SQL that computes it. `mine stats` prints these and
// `mine report` draws them and shows the SQL beside each chart, so a reader can re-run it with
// `mine query`.
struct StatsQuery {
  std::string id;     // stable key, e.g. "repos_by_state" (JSON output, chart lookup)
  std::string title;
  std::string sql;
  // "table" or "table.column" that must exist: corpora made by an older mine lack some.
  std::vector<std::string> needs;
  std::string when_missing;  // what to do to get the figure when `needs` is not there
  std::string when_empty;    // what to do when the query returns no rows
};

struct StatsSection {
  const StatsQuery* query = nullptr;
  bool available = true;
  std::string unavailable_reason;  // set when !available
  QueryResult result;
};

// Every figure, in the order `mine stats` prints them.
const std::vector<StatsQuery>& stats_queries();
const StatsQuery& stats_query(const std::string& id);  // throws mine::Error for an unknown id

// Runs one figure; a missing table or column makes the section unavailable instead of failing.
StatsSection run_stats_query(const Corpus& corpus, const StatsQuery& query);
std::vector<StatsSection> corpus_stats(const Corpus& corpus);

// The corpus's schema version, also on a read-only connection (where Corpus::schema_version's
// PRAGMA is refused); 0 when it cannot be read.
int stats_schema_version(const Corpus& corpus);

}  // namespace mine
