#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "core/cli/command.h"
#include "core/cli/options.h"
#include "core/crawl/crawl_clock.h"
#include "core/crawl/crawl_pipeline.h"
#include "core/crawl/discovery.h"
#include "core/crawl/github_client.h"
#include "core/crawl/repo_cloner.h"
#include "core/crawl/repo_list.h"
#include "core/crawl/repo_search.h"
#include "core/crawl/secret_redaction.h"
#include "core/error.h"
#include "core/scan/scanner.h"
#include "core/shard/shard_spec.h"
#include "corpus/corpus.h"
#include "corpus/crawl_state.h"

namespace mine::cli {
namespace {

std::atomic<bool> g_cancel{false};

void on_interrupt(int) {
  // First Ctrl-C: finish the repositories in flight and stop. Second: die at once (the corpus
  // is transactional, so even that loses nothing already stored).
  if (g_cancel.exchange(true)) std::_Exit(130);
}

std::string default_cache_dir() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/mine/repos";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/mine/repos";
  return ".mine-cache/repos";
}

// The token comes from the environment or a file, never from the command line, where `ps`
// and shell history would show it.
std::string read_token(const std::string& token_file) {
  if (!token_file.empty()) {
    std::ifstream in(token_file);
    // The path is not repeated: a token typed where the path belongs must not reach the terminal.
    if (!in) throw Error("--token-file: cannot read that file");
    std::string token;
    std::getline(in, token);
    while (!token.empty() && isspace(static_cast<unsigned char>(token.back()))) token.pop_back();
    if (token.empty()) throw Error("--token-file: the file is empty");
    return token;
  }
  const char* env = std::getenv("GITHUB_TOKEN");
  return env ? env : "";
}

// `--token VALUE` (or any abbreviation the option parser would take for --token-file) is
// refused before parsing, without repeating what followed it.
void refuse_token_argument(const std::vector<std::string>& args) {
  for (const auto& a : args) {
    if (a == "--") break;
    if (a.rfind("--tok", 0) != 0 || a == "--token-file" || a.rfind("--token-file=", 0) == 0) continue;
    throw UsageError{"the token is never taken on the command line, where `ps` and shell history show it: "
                     "export GITHUB_TOKEN or give --token-file FILE"};
  }
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : " ") + i;
  return out;
}

// What the plugins declare for discovery (include/mine/plugin.h: mine_discovery_hints).
std::vector<std::string> default_topics() {
  std::vector<std::string> out;
  for (const auto* p : all_plugins())
    for (const auto& t : p->discovery_hints().topics)
      if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
  return out;
}

std::vector<CodeQuery> default_code_queries() {
  std::vector<CodeQuery> out;
  for (const auto* p : all_plugins()) {
    DiscoveryHints h = p->discovery_hints();
    std::vector<std::string> extensions = h.code_search_extensions;
    if (extensions.empty()) extensions.push_back("");
    for (const auto& term : h.code_search_terms)
      for (const auto& ext : extensions) out.push_back({term, ext});
  }
  return out;
}

void print_discovery(std::ostream& out, const Discovery& discovery) {
  for (const auto& r : discovery.reports()) {
    out << "  " << r.name << ": ";
    if (r.note == "off" || r.note.rfind("skipped", 0) == 0) {
      out << r.note << "\n";
      continue;
    }
    out << r.found << " found (" << r.first << " first, " << r.only << " only by it), " << r.requests
        << " API requests" << (r.note.empty() ? "" : "; " + r.note) << "\n";
  }
  if (discovery.confirmations() > 0 || discovery.reused_confirmations() > 0)
    out << "  --confirm: " << discovery.confirmations() << " code searches, " << discovery.reused_confirmations()
        << " answers kept from earlier crawls (not pushed since)\n";
}

int run_crawl(const std::vector<std::string>& args) {
  refuse_token_argument(args);
  po::options_description options("mine crawl options");
  std::string db, repos_file, cache_dir, api_url, token_file, shard_text;
  std::vector<std::string> queries, topics, code_terms, strategies;
  int64_t min_stars = 100, max_repos = 0, max_repo_size_mb = 2048, max_file_mb = 20;
  int jobs = 0;
  options.add_options()
      ("db", po::value(&db)->default_value(default_db_path()), "corpus file (created if missing)")
      ("min-stars", po::value(&min_stars)->default_value(100), "only repositories with at least this many stars")
      ("query", po::value(&queries)->composing()->default_value({"triton"}, "triton"),
       "repository search: words and qualifiers, searched in name, description, topics and README "
       "unless an in: qualifier says otherwise (the star threshold is added); repeatable")
      ("topic", po::value(&topics)->composing()->default_value(default_topics(), join(default_topics())),
       "topic search: repositories with this GitHub topic; repeatable (default: the plugins' topics)")
      ("code-search", po::value(&code_terms)->composing(),
       "code search: files holding this word (default: the plugins' terms, each in the files they read); "
       "repeatable; needs a token")
      ("strategy", po::value(&strategies)->composing()->default_value({"code_search", "repo_search", "topic"},
                                                                        "code_search repo_search topic"),
       "discovery strategies to run: code_search, repo_search, topic; repeatable")
      ("confirm", "clone only repositories in which code search finds a file with a kernel's search term "
                  "(needs a token; costs one code search per repository other strategies found)")
      ("max-repos", po::value(&max_repos)->default_value(0), "stop after this many repositories (0 = all)")
      ("repos-file", po::value(&repos_file), "crawl the repositories listed in this file (owner/name per line) "
                                            "instead of searching")
      ("cache-dir", po::value(&cache_dir)->default_value(default_cache_dir()), "where bare clones are kept")
      ("jobs,j", po::value(&jobs)->default_value(0), "clone-and-mine workers (0 = all cores)")
      ("api-url", po::value(&api_url)->default_value("https://api.github.com"),
       "GitHub API base (GitHub Enterprise: https://HOST/api/v3, or a test server)")
      ("token-file", po::value(&token_file), "read the API token from this file (else $GITHUB_TOKEN; optional)")
      ("max-repo-size", po::value(&max_repo_size_mb)->default_value(2048),
       "skip repositories larger than this many MB by the API's size field (0 = no limit)")
      ("max-file-size", po::value(&max_file_mb)->default_value(20),
       "files larger than this many MB are recorded as too_large in scan_errors, not read")
      ("shard", po::value(&shard_text), "crawl only shard K/N of the repositories (by a stable hash of the lowercase "
                                       "owner/name; default $MINE_SHARD); N runs with K=0..N-1 cover each once")
      ("include-forks", "also crawl forks")
      ("include-archived", "also crawl archived repositories")
      ("always-ask-remote", "compare the remote head even when pushed_at has not changed")
      ("quiet,q", "print only the summary and errors");
  po::positional_options_description positional;
  po::variables_map vm;
  if (!parse_options(args, options, positional, vm,
                     "mine crawl [--min-stars 100] [--query Q]... [--topic T]... [--confirm] [--repos-file FILE] "
                     "[--db corpus.db] [--jobs N]",
                     "GITHUB_TOKEN=... mine crawl --min-stars 100 --query triton --query 'flash attention' --confirm"))
    return kExitOk;
  if (jobs <= 0) jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (min_stars < 0) throw UsageError{"--min-stars must be 0 or more"};
  if (max_file_mb <= 0) throw UsageError{"--max-file-size must be 1 or more"};
  ShardSpec shard = ShardSpec::resolve(vm.count("shard") ? &shard_text : nullptr);
  auto owned = [shard](const std::string& full_name) {
    std::string key = full_name;
    for (auto& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));  // GitHub names ignore case
    return shard.owns(key);
  };

  GithubClientOptions client_options;
  client_options.api_url = api_url;
  client_options.token = read_token(token_file);
  client_options.cancel = &g_cancel;  // Ctrl-C also ends a rate-limit wait
  for (const auto& st : strategies)
    if (st != kByCodeSearch && st != kByRepoSearch && st != kByTopic)
      throw UsageError{"--strategy: unknown strategy '" + st + "' (code_search, repo_search or topic)"};
  auto uses = [&](const char* st) { return std::find(strategies.begin(), strategies.end(), st) != strategies.end(); };
  const bool have_token = !client_options.token.empty();
  if (vm.count("confirm") && !have_token)
    throw UsageError{"--confirm asks code search, which answers only with a token: export GITHUB_TOKEN or give --token-file"};

  auto corpus = Corpus::open(db, Corpus::Access::ReadWrite);
  CorpusCrawlState state(*corpus);
  SystemCrawlClock clock;

  std::error_code ec;
  std::filesystem::create_directories(cache_dir, ec);
  if (ec) throw Error::in(cache_dir, "cannot create the cache directory: " + ec.message());
  RepoClonerOptions cloner_options;
  cloner_options.cache_dir = cache_dir;
  cloner_options.max_transfer_bytes = max_repo_size_mb > 0 ? max_repo_size_mb * 2 * (1 << 20) : 0;
  cloner_options.cancel = &g_cancel;
  RepoCloner cloner(cloner_options);

  // Workers mine several repositories at once, so each extraction uses one thread.
  ScanOptions scan_options;
  scan_options.jobs = 1;
  scan_options.max_file_bytes = max_file_mb << 20;
  Scanner scanner(all_plugins(), scan_options);
  std::vector<CodeQuery> code_queries = code_terms.empty() ? default_code_queries() : std::vector<CodeQuery>{};
  for (const auto& t : code_terms) code_queries.push_back({t, ""});
  nlohmann::json inputs = {{"query", queries}, {"min_stars", min_stars}, {"api_url", url_without_credentials(api_url)},
                           {"strategies", strategies}};
  if (vm.count("confirm")) inputs["confirm"] = true;
  if (!repos_file.empty()) inputs["repos_file"] = repos_file;
  if (!shard.whole()) inputs["shard"] = shard.text();
  int64_t scan_id = corpus->begin_scan("crawl", nlohmann::json::array({inputs}));

  MineFunction mine = [&](const RepoInfo& repo, const std::string& path, const std::string& commit) {
    auto tree = open_git_tree(path, commit);
    auto snap = std::make_shared<RepoSnapshot>(scanner.extract(*tree, repo.full_name));
    snap->location = url_without_credentials(repo.clone_url);
    MineResult result;
    result.kernels = static_cast<int64_t>(snap->kernels.size());
    result.store = [&corpus, scan_id, snap] { corpus->store(scan_id, *snap); };
    return result;
  };

  bool live = !vm.count("quiet") && CrawlProgress::is_terminal(STDERR_FILENO);
  std::ofstream devnull;
  CrawlProgress progress(vm.count("quiet") ? devnull : std::cerr, live);
  CrawlPipelineOptions pipeline_options;
  pipeline_options.jobs = jobs;
  pipeline_options.trust_pushed_at = !vm.count("always-ask-remote");
  pipeline_options.cancel = &g_cancel;
  CrawlPipeline pipeline(state, cloner, mine, pipeline_options, progress);
  // ETags go through the pipeline, which serialises them with its writer thread: the corpus
  // has one connection.
  GithubClient client(client_options, clock, &pipeline.etags());
  client.set_wait_listener([&](const ApiWait& w) { progress.api_wait(w.reason, w.remaining); });

  DiscoverFunction discover;
  std::unique_ptr<Discovery> discovery;
  if (!repos_file.empty()) {
    std::vector<std::string> names = read_repo_list(repos_file);
    discover = [&, names](const std::function<void(const RepoInfo&)>& emit) {
      for (const auto& name : names) {
        if (g_cancel) return;
        if (!owned(name)) continue;  // before the lookup: other shards spend their own API calls
        RepoInfo info;
        try {
          info = lookup_repo(client, name);
          info.discovered_by = kByReposFile;
        } catch (const Error& e) {
          state.mark_failed(name, e.what());
          progress.failed(name, e.what());
          continue;
        }
        emit(info);
      }
    };
  } else {
    DiscoveryOptions d;
    d.filters.min_stars = min_stars;
    d.filters.include_forks = vm.count("include-forks") > 0;
    d.filters.include_archived = vm.count("include-archived") > 0;
    d.filters.max_size_kb = max_repo_size_mb * 1024;
    if (uses(kByRepoSearch)) d.terms = queries;
    if (uses(kByTopic)) d.topics = topics;
    if (uses(kByCodeSearch)) d.code_queries = code_queries;
    d.have_token = have_token;
    d.confirm = vm.count("confirm") > 0;
    d.prior_confirmation = [&pipeline](const RepoInfo& r) { return pipeline.prior_confirmation(r); };
    d.max_repos = max_repos;
    d.wanted = owned;  // before lookups and confirmations: other shards spend their own calls
    discovery = std::make_unique<Discovery>(client, d);
    discover = [&](const std::function<void(const RepoInfo&)>& emit) {
      discovery->run([&](const RepoInfo& r) {
        if (g_cancel) throw Error("crawl interrupted");
        emit(r);
      });
    };
  }

  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
  CrawlSummary summary = pipeline.run(discover);
  progress.finish();

  ScanTotals totals;
  totals.kernels_found = summary.counts.kernels;
  totals.errors = summary.counts.failed;
  corpus->finish_scan(scan_id, totals);
  const auto& c = summary.counts;
  std::cout << "crawl " << (summary.cancelled ? "interrupted" : "done") << ": " << c.discovered << " discovered, "
            << c.cloned << " cloned, " << c.fetched << " fetched, " << c.unchanged << " unchanged, " << c.mined
            << " mined, " << c.kernels << " kernels, " << c.failed << " failed, " << c.api_waits << " API waits\n";
  if (discovery) print_discovery(std::cout, *discovery);
  std::cout << "  API requests:";
  for (const auto& [resource, n] : client.requests_by_resource()) std::cout << " " << resource << " " << n;
  if (client.requests_by_resource().empty()) std::cout << " none";
  std::cout << "\n  clones that yielded no kernel: " << c.empty;
  if (vm.count("confirm")) std::cout << "; not cloned, code search found no candidate file: " << c.unconfirmed;
  std::cout << "\n";
  for (const auto& [repo, error] : summary.failures) std::cout << "  failed: " << repo << ": " << error << "\n";
  if (!summary.discovery_error.empty()) std::cout << "  discovery stopped: " << summary.discovery_error << "\n";
  if (summary.cancelled) std::cout << "run the same command again to continue where it stopped\n";
  return (summary.discovery_error.empty() && !summary.cancelled) ? kExitOk : kExitFailure;
}

RegisterCommand reg({"crawl", "discover GitHub repositories, clone them bare and mine them, resumably", run_crawl, 20});

}  // namespace
}  // namespace mine::cli
