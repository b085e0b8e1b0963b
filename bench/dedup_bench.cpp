// Near-dedup benchmark driver; built and run by bench/dedup.sh (not part of the CMake build).
//
// Generates N kernel-sized Triton documents in families: each family is one of several real
// kernel shapes with its own identifiers, constants and extra statements; its members are copies
// that were reformatted, had a comment or docstring added, a constant changed, a line added, or
// locals renamed. Every family is a ground-truth duplicate cluster, so the run also reports how
// well the clusters found match the families.
//
// usage: dedup_bench --docs N --threads T --family 10 --sample S --sample-out FILE [--full-docs M]
// Prints one JSON object with the timings; writes the first S documents' token streams and
// signatures (one JSON line each) for the Python twin in bench/dedup_minhash.py.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/dedup/code_normalizer.h"
#include "core/dedup/dedup_clusters.h"
#include "core/dedup/min_hasher.h"
#include "core/dedup/python_lexer.h"
#include "core/dedup/signature_batch.h"

using namespace mine::dedup;

namespace {

const char* kShapes[] = {
    R"(@triton.jit
def {K}(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    """{DOC}"""
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    {A} = tl.load(x_ptr + offsets, mask=mask)
    {B} = tl.load(y_ptr + offsets, mask=mask)
    {C} = {A} {OP} {B} * {K0}
{EXTRA}    tl.store(out_ptr + offsets, {C}, mask=mask)
)",
    R"(@triton.jit
def {K}(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    """{DOC}"""
    row = tl.program_id(0)
    Y += row * stride
    X += row * stride
    {A} = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        a = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        {A} += a
    mean = tl.sum({A}, axis=0) / N
    {B} = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.)
        {B} += x * x
    var = tl.sum({B}, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps * {K0})
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
{EXTRA}    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
        {C} = (x - mean) * rstd
        y = {C} * w {OP} b
        tl.store(Y + cols, y, mask=mask)
)",
    R"(@triton.jit
def {K}(output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols, BLOCK_SIZE: tl.constexpr, num_stages: tl.constexpr):
    """{DOC}"""
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=num_stages):
        row_start_ptr = input_ptr + row_idx * input_row_stride
        col_offsets = tl.arange(0, BLOCK_SIZE)
        input_ptrs = row_start_ptr + col_offsets
        mask = col_offsets < n_cols
        {A} = tl.load(input_ptrs, mask=mask, other=-float('inf'))
        {B} = {A} - tl.max({A}, axis=0)
        numerator = tl.exp({B} * {K0})
        denominator = tl.sum(numerator, axis=0)
        {C} = numerator / denominator
{EXTRA}        output_row_start_ptr = output_ptr + row_idx * output_row_stride
        output_ptrs = output_row_start_ptr + col_offsets
        tl.store(output_ptrs, {C}, mask=mask)
)",
    R"(@triton.jit
def {K}(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
        BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr):
    """{DOC}"""
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    {A} = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        {B} = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        {C} = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        {A} = tl.dot({B}, {C}, {A})
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
{EXTRA}    c = {A}.to(tl.float16) {OP} {K0}
    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)
)",
    R"(@triton.jit
def {K}(x_ptr, out_ptr, n, seed, p, BLOCK: tl.constexpr):
    """{DOC}"""
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    {A} = tl.load(x_ptr + offs, mask=mask)
    {B} = tl.rand(seed, offs)
    keep = {B} > p
    {C} = tl.where(keep, {A} / (1 - p), 0.0) {OP} {K0}
    inner = 0.7978845608 * ({C} + 0.044715 * {C} * {C} * {C})
    act = 0.5 * {C} * (1.0 + tl.math.tanh(inner))
{EXTRA}    tl.store(out_ptr + offs, act, mask=mask)
)",
};
constexpr int kShapeCount = sizeof(kShapes) / sizeof(kShapes[0]);

const char* kWords[] = {"acc", "val", "tmp", "res", "buf", "lhs", "rhs", "data", "vec", "blk", "part", "cur",
                        "prev", "out", "inp", "src", "dst", "tile", "frag", "elem", "sum", "prod", "xs", "ys"};
const char* kOps[] = {"+", "-", "*"};
// Extra statements, each with its own random constant: families of the same shape differ in
// several of these, as independently written kernels of one idea do, so that they are not near
// duplicates of each other.
const char* kExtras[] = {
    "    {A} = tl.maximum({A}, {N})\n",
    "    {C} = {C}.to(tl.float32) * {N}\n",
    "    {B} = tl.minimum({B}, {N})\n",
    "    scale = tl.load(scale_ptr + {N})\n",
    "    {C} = tl.where({C} > {N}, {C}, {C} * 0.01)\n",
    "    {A} = tl.abs({A}) + {N}\n",
    "    tl.static_assert(BLOCK_SIZE >= {N})\n",
    "    {B} = {B} * {N} + tl.sqrt({A} * {A} + 1e-6)\n",
    "    bias = tl.load(bias_ptr + {N}, eviction_policy='evict_last')\n",
    "    {C} = tl.math.exp2({C} * {N})\n",
    "    {A} = tl.clamp({A}, -{N}, {N})\n",
    "    tmp_{N2} = tl.sum({B}, axis=0) / {N}\n",
};
constexpr size_t kExtraCount = sizeof(kExtras) / sizeof(kExtras[0]);

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
  return s;
}

// Document `i`: family i / family_size, member i % family_size. Deterministic in i alone, so any
// thread can make any document.
std::string make_document(size_t i, size_t family_size) {
  size_t family = i / family_size, member = i % family_size;
  std::mt19937_64 rng(family * 0x9e3779b97f4a7c15ULL + 17);
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  const size_t shape = pick(kShapeCount);
  std::string doc = kShapes[shape];
  std::string kernel = std::string("_") + kWords[pick(24)] + "_" + kWords[pick(24)] + "_kernel_" + std::to_string(family);
  std::string a = kWords[pick(24)] + std::string("_a"), b = kWords[pick(24)] + std::string("_b"),
              c = kWords[pick(24)] + std::string("_c");
  std::string k0 = std::to_string(1 + pick(1000)) + "." + std::to_string(pick(100));
  std::string extra;
  size_t extras = 6 + pick(5);
  for (size_t e = 0; e < extras; ++e) {
    std::string line = replace_all(kExtras[pick(kExtraCount)], "{N2}", std::to_string(pick(100)));
    extra += replace_all(line, "{N}", std::to_string(pick(1000)) + "." + std::to_string(pick(1000)));
  }
  std::string header = "import triton\nimport triton.language as tl\n";
  if (pick(2)) header = "import torch\n" + header;
  std::string docstring = "Kernel " + std::to_string(family) + " from project " + kWords[pick(24)];

  // The member's edit.
  switch (member % 8) {
    case 0: break;  // the original
    case 1: docstring = "Copied from upstream, see LICENSE."; break;
    case 2: k0 += "1"; break;                                 // one constant changed
    case 3: extra += "    tl.debug_barrier()\n"; break;       // one line added
    case 4: a = "renamed_" + a; c = "renamed_" + c; break;    // locals renamed
    case 5: header = "# vendored copy\n" + header; break;
    case 6: break;  // reformatted below
    case 7: kernel += "_v2"; break;
  }
  // The softmax shape takes its extra statements inside its row loop: at the function's
  // indentation they would dedent out of the loop and back in, which is no Python (until this
  // was fixed a fifth of the documents did that, and tree-sitter hashed its error recovery).
  if (shape == 2) extra = replace_all("    " + extra, "\n    ", "\n        ");
  doc = replace_all(doc, "{EXTRA}", extra);
  doc = replace_all(doc, "{K}", kernel);
  doc = replace_all(doc, "{A}", a);
  doc = replace_all(doc, "{B}", b);
  doc = replace_all(doc, "{C}", c);
  doc = replace_all(doc, "{K0}", k0);
  doc = replace_all(doc, "{OP}", kOps[pick(3)]);
  doc = replace_all(doc, "{DOC}", docstring);
  if (member % 8 == 6) {
    doc = replace_all(doc, " = ", "=");
    doc = replace_all(doc, ", ", ",  ");
    doc = replace_all(doc, "'", "\"");
  }
  return header + "\n\n" + doc;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

long peak_rss_kb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

}  // namespace

int main(int argc, char** argv) {
  size_t docs = 200000, family = 10, sample = 300, full_docs = 0;
  int threads = default_threads();
  std::string sample_out;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--docs") docs = std::stoul(v);
    else if (k == "--threads") threads = std::stoi(v);
    else if (k == "--family") family = std::stoul(v);
    else if (k == "--sample") sample = std::stoul(v);
    else if (k == "--sample-out") sample_out = v;
    else if (k == "--full-docs") full_docs = std::stoul(v);
    else { std::cerr << "unknown option " << k << "\n"; return 2; }
  }
  if (full_docs == 0 || full_docs > docs) full_docs = docs;
  MinHasher hasher;

  // Generation alone, to subtract from nothing but to show it is not what is being measured.
  auto t0 = std::chrono::steady_clock::now();
  size_t bytes = 0;
  for (size_t i = 0; i < std::min<size_t>(docs, 20000); ++i) bytes += make_document(i, family).size();
  double gen_per_doc = seconds_since(t0) / static_cast<double>(std::min<size_t>(docs, 20000));
  double avg_bytes = static_cast<double>(bytes) / static_cast<double>(std::min<size_t>(docs, 20000));

  auto make = [&](size_t i) -> std::string_view {
    thread_local std::string text;
    text = make_document(i, family);
    return text;
  };
  // Documents are made inside the workers so that 200k texts never sit in memory at once; their
  // making is included in the signature times (generate_s_per_doc says how much that is).

  // A. Near-dedup, what the issue's target is about: lexer + MinHash signatures, then LSH banding,
  //    verification and union-find.
  auto t1 = std::chrono::steady_clock::now();
  SignedBatch near_batch = sign_documents(docs, make, hasher, threads, false);
  double sign_s = seconds_since(t1);
  auto t2 = std::chrono::steady_clock::now();
  NearDedupConfig config;
  config.threads = threads;
  config.bands = choose_bands(0.85, hasher.params().perms);
  ClusterAssignment near_only = assign_clusters(std::vector<DedupItem>(docs), near_batch.signatures, config);
  double cluster_s = seconds_since(t2);
  near_batch = SignedBatch{};

  // B. Everything `mine dedup` does per kernel: also the tree-sitter parse for the exact and
  //    alpha-renamed hashes, then clustering at all three levels.
  auto t3 = std::chrono::steady_clock::now();
  SignedBatch batch = sign_documents(full_docs, make, hasher, threads, true);
  double full_sign_s = seconds_since(t3);
  auto t4 = std::chrono::steady_clock::now();
  std::vector<DedupItem> items(full_docs);
  for (size_t i = 0; i < full_docs; ++i) {
    items[i].provenance.kernel_id = static_cast<int64_t>(i + 1);
    items[i].exact_hash = std::move(batch.docs[i].exact_hash);
    items[i].alpha_hash = std::move(batch.docs[i].alpha_hash);
  }
  ClusterAssignment clusters = assign_clusters(items, batch.signatures, config);
  double full_cluster_s = seconds_since(t4);

  // Cluster quality against the generated families.
  auto quality = [&](const std::vector<size_t>& rep, size_t n) {
    std::unordered_map<size_t, size_t> family_of_rep;
    std::vector<std::set<size_t>> reps_of_family((n + family - 1) / family);
    size_t mixed = 0, split = 0;
    for (size_t i = 0; i < n; ++i) {
      reps_of_family[i / family].insert(rep[i]);
      auto [it, fresh] = family_of_rep.try_emplace(rep[i], i / family);
      if (!fresh && it->second != i / family && it->second != static_cast<size_t>(-1)) {
        it->second = static_cast<size_t>(-1);
        ++mixed;
      }
    }
    for (const auto& f : reps_of_family) split += f.size() > 1;
    return nlohmann::json{{"families", reps_of_family.size()}, {"clusters", family_of_rep.size()},
                          {"families_split", split}, {"clusters_mixing_families", mixed}};
  };
  std::unordered_map<size_t, size_t> exact_count;
  for (size_t i = 0; i < full_docs; ++i) exact_count[clusters.exact[i]]++;

  // The sample for the Python twin, and C++ MinHash-only time on the same token streams.
  double cpp_sample_minhash_s = 0;
  if (!sample_out.empty()) {
    std::vector<std::vector<std::string>> streams;
    for (size_t i = 0; i < std::min(sample, docs); ++i) streams.push_back(lex_python_tokens(make_document(i, family)));
    std::vector<uint32_t> sig(static_cast<size_t>(hasher.params().perms));
    const int reps = 20;
    auto t3 = std::chrono::steady_clock::now();
    for (int r = 0; r < reps; ++r)
      for (const auto& s : streams) hasher.sign(s, sig.data());
    cpp_sample_minhash_s = seconds_since(t3) / reps;
    std::ofstream out(sample_out);
    for (const auto& s : streams) {
      nlohmann::json line{{"tokens", s}, {"signature", hasher.sign(s)}};
      out << line.dump() << "\n";
    }
  }

  nlohmann::json report{
      {"docs", docs},
      {"threads", threads},
      {"avg_doc_bytes", avg_bytes},
      {"generate_s_per_doc", gen_per_doc},
      {"sign_s", sign_s},
      {"sign_docs_per_s", static_cast<double>(docs) / sign_s},
      {"cluster_s", cluster_s},
      {"total_s", sign_s + cluster_s},
      {"near_quality", quality(near_only.near, docs)},
      {"full_docs", full_docs},
      {"full_sign_s", full_sign_s},
      {"full_sign_docs_per_s", static_cast<double>(full_docs) / full_sign_s},
      {"full_cluster_s", full_cluster_s},
      {"full_total_s", full_sign_s + full_cluster_s},
      {"full_quality", quality(clusters.near, full_docs)},
      {"exact_clusters", exact_count.size()},
      {"peak_rss_mb", static_cast<double>(peak_rss_kb()) / 1024.0},
      {"bands", config.bands.bands},
      {"rows", config.bands.rows},
      {"candidate_pairs", near_only.near_stats.candidate_pairs},
      {"accepted_pairs", near_only.near_stats.accepted_pairs},
      {"sample_docs", sample_out.empty() ? 0 : std::min(sample, docs)},
      {"cpp_sample_minhash_s", cpp_sample_minhash_s},
  };
  std::cout << report.dump() << "\n";
  return 0;
}
