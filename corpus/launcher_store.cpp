#include "corpus/launcher_store.h"

#include "corpus/sqlite_statement.h"

namespace mine {

std::map<int64_t, KernelLauncher> kernel_launchers(const Corpus& corpus) {
  std::map<int64_t, KernelLauncher> out;
  if (corpus.query("SELECT count(*) FROM sqlite_master WHERE name = 'kernel_launches'").rows.at(0).at(0) == 0)
    return out;  // a corpus from before launch sites, opened read-only
  // Rows in the order of preference, the first per kernel kept.
  SqliteStatement q(corpus.handle(),
                    "SELECT l.kernel_id, l.launcher, l.launcher_source, l.launcher_standalone, "
                    "l.launcher_self_contained, l.path, l.line FROM kernel_launches l "
                    "LEFT JOIN kernel_signatures s ON s.kernel_id = l.kernel_id "
                    "WHERE l.launcher_standalone IS NOT NULL "
                    "ORDER BY l.kernel_id, (l.id = s.launch_id) DESC, l.path, l.line, l.id");
  while (q.step()) {
    int64_t id = q.column_int(0);
    if (out.count(id)) continue;
    KernelLauncher k;
    k.name = q.column_text(1);
    k.source = q.column_text(2);
    k.standalone = q.column_text(3);
    k.self_contained = q.column_int(4) != 0;
    k.path = q.column_text(5);
    k.line = static_cast<int>(q.column_int(6));
    out.emplace(id, std::move(k));
  }
  return out;
}

}  // namespace mine
