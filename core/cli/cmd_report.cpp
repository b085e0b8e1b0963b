#include <ctime>
#include <iostream>

#include "core/cli/command.h"
#include "core/cli/options.h"
#include "core/export/atomic_file.h"
#include "core/report/corpus_report.h"
#include "corpus/corpus.h"
#include "corpus/stats_store.h"
#include "core/utc_time.h"

namespace mine::cli {
namespace {

int run_report(const std::vector<std::string>& args) {
  po::options_description options("mine report options");
  std::string db, out;
  options.add_options()
      ("db", po::value(&db)->default_value(default_db_path()), "corpus file")
      ("out,o", po::value(&out)->default_value("report.html"), "HTML file to write (replaced whole, never half-written)")
      ("quiet,q", "print nothing but errors");
  po::variables_map vm;
  if (!parse_options(args, options, {}, vm, "mine report [--db corpus.db] [--out report.html]",
                     "mine report --db corpus.db --out report.html && xdg-open report.html"))
    return kExitOk;
  if (out.empty()) throw UsageError{"--out needs a file name, e.g. --out report.html"};
  auto corpus = Corpus::open(db, Corpus::Access::ReadOnly);
  report::ReportInfo info{db, stats_schema_version(*corpus), utc_now()};
  std::string html = report::corpus_report_html(corpus_stats(*corpus), info);
  AtomicFile file(out);
  file.write(html);
  file.commit();
  if (!vm.count("quiet")) std::cout << "report: wrote " << out << " (" << html.size() << " bytes)\n";
  return kExitOk;
}

RegisterCommand reg({"report", "write a self-contained HTML report with charts of the corpus", run_report, 75});

}  // namespace
}  // namespace mine::cli
