#include <chrono>
#include <filesystem>
#include <iostream>

#include "core/cli/command.h"
#include "core/cli/options.h"
#include "core/error.h"
#include "core/plugin_loader/plugin_set.h"
#include "core/python/name_scopes.h"
#include "core/crawl/secret_redaction.h"
#include "core/scan/repo_identity.h"
#include "core/scan/scanner.h"
#include "core/shard/shard_spec.h"
#include "corpus/corpus.h"
#include "corpus/repo_writer.h"
#include "plugins/inductor/inductor_plugin.h"

namespace mine::cli {
namespace {

int run_scan(const std::vector<std::string>& args) {
  po::options_description options("mine scan options");
  std::vector<std::string> paths;
  std::string db;
  int jobs = 0;
  int64_t max_file_mb = 20;
  int max_nesting_levels = kDefaultMaxNesting;
  std::vector<std::string> plugin_dirs;
  std::string shard_text;
  std::vector<std::string> inductor_cache;
  options.add_options()
      ("path", po::value(&paths)->multitoken(), "folders, files or git repositories to scan (positional)")
      ("db", po::value(&db)->default_value(default_db_path()), "corpus file (created if missing)")
      ("jobs,j", po::value(&jobs)->default_value(0), "parser threads (0 = all cores)")
      ("max-file-size", po::value(&max_file_mb)->default_value(20), "skip files larger than this many MB")
      ("max-nesting", po::value(&max_nesting_levels)->default_value(kDefaultMaxNesting),
       "refuse files nesting expressions or blocks deeper than this (8..2000; module-level blocks: a quarter of it)")
      ("plugin-dir", po::value(&plugin_dirs)->composing(), "also load plugins from this folder (repeatable; see also $MINE_PLUGIN_PATH)")
      ("shard", po::value(&shard_text), "scan only the PATHs of shard K/N (by a stable hash of each PATH as written; "
                                       "default $MINE_SHARD); N runs with K=0..N-1 cover every PATH once")
      ("inductor-cache", po::value(&inductor_cache)->composing(),
       "a torchinductor cache folder (/tmp/torchinductor_$USER) where kernels that Inductor output names only "
       "by a '# kernel path:' comment are read (repeatable; default: the ':'-separated $MINE_INDUCTOR_CACHE)")
      ("path-names", "name git repositories by their path even when their origin remote is on GitHub "
                     "(by default such a clone is named owner/name, like a crawled repository)")
      ("verbose,v", "print every per-file problem as it is found")
      ("quiet,q", "print nothing but errors");
  po::positional_options_description positional;
  positional.add("path", -1);
  po::variables_map vm;
  if (!parse_options(args, options, positional, vm, "mine scan PATH... [--db corpus.db] [--jobs N]",
                     "mine scan ~/src/Liger-Kernel ~/src/unsloth.git --db corpus.db"))
    return kExitOk;
  if (paths.empty()) throw UsageError{"give at least one PATH to scan"};
  if (max_file_mb < 1 || max_file_mb > (int64_t{1} << 20)) throw UsageError{"--max-file-size must be 1..1048576 (MB)"};
  if (max_nesting_levels < 8 || max_nesting_levels > kMaxMaxNesting) throw UsageError{"--max-nesting must be 8..2000"};
  set_max_nesting(max_nesting_levels);
  ShardSpec shard = ShardSpec::resolve(vm.count("shard") ? &shard_text : nullptr);
  if (!shard.whole()) {
    // Inputs are the unit of work: one large input is not split (run it unsharded).
    std::vector<std::string> mine_paths;
    for (const auto& p : paths) {
      std::string_view key = p;
      while (key.size() > 1 && key.back() == '/') key.remove_suffix(1);  // "repo/" and "repo" are one input
      if (shard.owns(key)) mine_paths.push_back(p);
    }
    if (!vm.count("quiet"))
      std::cout << "shard " << shard.text() << ": " << mine_paths.size() << " of " << paths.size() << " inputs\n";
    paths = std::move(mine_paths);
  }
  bool verbose = vm.count("verbose") > 0, quiet = vm.count("quiet") > 0, path_names = vm.count("path-names") > 0;

  ScanOptions scan_options;
  scan_options.jobs = jobs;
  scan_options.max_file_bytes = max_file_mb << 20;
  if (verbose) scan_options.log = [](const std::string& line) { std::cerr << "  " << line << "\n"; };
  PluginSet plugin_set = PluginSet::load(plugin_dirs);
  std::vector<const ExtractorPlugin*> plugins = plugin_set.plugins();
  // The built-in inductor plugin reads $MINE_INDUCTOR_CACHE; folders given here replace it.
  std::unique_ptr<InductorPlugin> inductor;
  if (!inductor_cache.empty()) {
    for (const auto& dir : inductor_cache) {
      std::error_code ec;
      if (!std::filesystem::is_directory(dir, ec)) throw UsageError{"--inductor-cache " + dir + ": no such folder"};
    }
    inductor = std::make_unique<InductorPlugin>(inductor_cache);
    for (auto& p : plugins)
      if (p->name() == inductor->name()) p = inductor.get();
  }
  Scanner scanner(plugins, scan_options);

  // Stored from this thread only (Scanner::extract delivers each file here).
  auto corpus = Corpus::open(db, Corpus::Access::ReadWrite, Corpus::Threads::One);
  int64_t scan_id = corpus->begin_scan("scan", paths);
  ScanTotals totals;
  int failed_inputs = 0;
  for (const auto& path : paths) {
    auto start = std::chrono::steady_clock::now();
    try {
      auto tree = open_source_tree(path);
      std::error_code ec;
      std::string name = std::filesystem::weakly_canonical(path, ec).string();
      if (ec || name.empty()) name = path;
      // Each file is stored as soon as it is extracted, while the threads go on with the next
      // ones: the write overlaps extraction instead of following it. Still one transaction.
      RepoSnapshot header = snapshot_header(*tree, name);
      // A clone of a GitHub repository is that repository: named as a crawl names it, so local
      // and crawled corpora merge, with the folder it was read from kept beside the name.
      header.local_path = name;
      std::string origin = tree->origin_url();
      if (!origin.empty()) header.origin_url = url_without_credentials(origin);
      if (auto github = github_repo_name(origin); github && !path_names) header.name = *github;
      name = header.name;
      RepoWriter writer(*corpus, scan_id, header);
      int64_t files = 0, parsed = 0, kernels = 0, problems = 0;
      StoreOutcome stored;
      scanner.extract(*tree, name, [&](ScannedFile&& f) {
        ++files;
        parsed += f.file.parsed ? 1 : 0;
        kernels += static_cast<int64_t>(f.kernels.size());
        problems += static_cast<int64_t>(f.problems.size());
        writer.add(std::move(f));
      }, [&] {
        stored = writer.commit();
      });
      totals.files_seen += files;
      totals.files_parsed += parsed;
      totals.kernels_found += kernels;
      totals.errors += problems;
      double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (!quiet) {
        std::cout << path << (name == header.local_path ? "" : " = " + name) << " (" << tree->kind() << (header.commit_id.empty() ? "" : " " + header.commit_id.substr(0, 12))
                  << "): " << files << " files, " << parsed << " parsed, " << kernels
                  << " kernels (" << stored.kernels_added << " new, " << stored.kernels_removed << " removed), "
                  << problems << " problems, " << std::fixed;
        std::cout.precision(2);
        std::cout << secs << " s\n";
      }
    } catch (const Error& e) {
      ++failed_inputs;
      std::cerr << "mine scan: " << e.what() << "\n";
    }
  }
  corpus->finish_scan(scan_id, totals);
  if (!quiet) {
    std::cout << "scanned " << paths.size() - failed_inputs << "/" << paths.size() << " inputs: "
              << totals.kernels_found << " kernels, " << totals.errors << " file problems";
    if (totals.errors && !verbose)
      std::cout << " (see `mine query \"SELECT path, line, kind, message FROM scan_errors WHERE scan_id=" << scan_id
                << "\"` or --verbose)";
    std::cout << "\n";
  }
  return failed_inputs ? kExitFailure : kExitOk;
}

RegisterCommand reg({"scan", "extract kernels from local folders and git repositories", run_scan, 10});

}  // namespace
}  // namespace mine::cli
