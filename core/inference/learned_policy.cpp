#include "core/inference/learned_policy.h"

#include <sys/stat.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <tuple>

#include "core/placement/action_mask.h"
#include "core/util/error.h"

namespace pacml::inference {

LearnedPolicy::LearnedPolicy(std::shared_ptr<const LearnedModel> model, std::string name,
                             bool sample)
    : model_(std::move(model)), name_(std::move(name)), sample_(sample) {}

const LearnedPolicy::GraphEntry& LearnedPolicy::entry(const JobGraph& job, EdgeSizeRule rule) {
  const std::string key = std::to_string(job.fingerprint());
  if (const GraphEntry* cached = cache_.find(key)) return *cached;
  GraphEntry e;
  e.features = features::extract_job_features(job, rule);
  e.embedding = model_->network().embed(e.features);
  const features::JobFeatures& f = e.features;
  const size_t bytes = sizeof(float) * (f.node.size() + f.edge.size() + e.embedding.size()) +
                       sizeof(int) * (f.src.size() + f.dst.size());
  if (const GraphEntry* kept = cache_.insert(key, e, bytes)) return *kept;
  oversized_ = std::move(e);  // larger than the whole cache: used once, not kept
  return oversized_;
}

Decision LearnedPolicy::decide(const DecisionContext& ctx) {
  return decide(ctx, features::action_outlook(ctx.job, ctx.beta, ctx.cluster, ctx.mask,
                                              ctx.estimator, ctx.cache));
}

Decision LearnedPolicy::decide(const DecisionContext& ctx, const features::ActionOutlook& outlook) {
  const std::vector<bool>& feasible = outlook.feasible;
  const JctEstimator& est = ctx.estimator;
  if (!profile_checked_) {
    if (est.profile().name != model_->profile())
      throw InputError(model_->source(), "the model was trained in the '" + model_->profile() +
                                             "' profile but is asked to decide in the '" +
                                             est.profile().name +
                                             "' profile (its normalisers would not fit)");
    profile_checked_ = true;
  }
  const GraphEntry& g = entry(ctx.job, est.profile().edge_sizes);
  Decision d;
  d.inputs = features::graph_inputs(g.features, ctx.job, model_->normalisers(),
                                    est.sequential_jct(ctx.job), ctx.beta, est.steps(),
                                    features::cluster_load(ctx.cluster), outlook);
  d.logits.resize(model_->architecture().actions);
  model_->network().heads(g.embedding.data(), d.inputs.data(), d.logits.data(), &d.value);
  std::vector<bool> mask(d.logits.size(), false);
  for (size_t a = 0; a < mask.size() && a < feasible.size(); ++a) mask[a] = feasible[a];
  if (sample_) {
    const std::vector<double> p = masked_softmax(d.logits.data(), mask);
    double u = ctx.rng.uniform(), acc = 0;
    d.action = greedy_action(d.logits.data(), mask);
    for (size_t a = 0; a < p.size(); ++a) {
      if (p[a] <= 0) continue;
      acc += p[a];
      if (u < acc) {
        d.action = static_cast<int>(a);
        break;
      }
    }
  } else {
    d.action = greedy_action(d.logits.data(), mask);
  }
  return d;
}

int LearnedPolicy::choose(const DecisionContext& context) {
  return decide(context).action;
}

namespace {

bool is_file(const std::string& path, struct stat* st) {
  return ::stat(path.c_str(), st) == 0 && S_ISREG(st->st_mode);
}

struct ModelCache {
  std::mutex mutex;
  std::map<std::tuple<std::string, long long, long long>, std::shared_ptr<const LearnedModel>>
      models;
};

}  // namespace

std::string resolve_model_path(const std::string& name, const std::string& where,
                               const std::vector<std::string>& search_dirs) {
  std::string path = name.rfind("pacml:", 0) == 0 ? name.substr(6) : name;
  const size_t q = path.find('?');
  if (q != std::string::npos) path = path.substr(0, q);
  if (path.empty()) throw InputError(where, "'" + name + "': no weights file after 'pacml:'");
  struct stat st;
  if (is_file(path, &st)) return path;
  const bool bare = path.find('/') == std::string::npos &&
                    (path.size() < 5 || path.compare(path.size() - 5, 5, ".pacw") != 0);
  std::vector<std::string> dirs;
  if (bare) {
    if (const char* env = std::getenv("PACML_MODELS_DIR")) dirs.push_back(env);
    dirs.insert(dirs.end(), search_dirs.begin(), search_dirs.end());
    for (const std::string& dir : dirs) {
      const std::string candidate = dir + "/" + path + ".pacw";
      if (is_file(candidate, &st)) return candidate;
    }
  }
  std::string msg = "weights file '" + path + "' not found";
  if (bare) {
    msg += " (also looked for " + path + ".pacw in";
    if (dirs.empty()) msg += " no model directory: set PACML_MODELS_DIR";
    for (const std::string& d : dirs) msg += " " + d;
    msg += ")";
  }
  throw InputError(where, msg);
}

PolicyPtr make_learned_policy(const std::string& name, const std::string& where,
                              const std::vector<std::string>& search_dirs) {
  const std::string path = resolve_model_path(name, where, search_dirs);
  const bool sample = name.find("?sample") != std::string::npos;
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) throw InputError(where, "cannot read '" + path + "'");
  static ModelCache cache;
  const auto key = std::make_tuple(path, static_cast<long long>(st.st_size),
                                   static_cast<long long>(st.st_mtime));
  std::shared_ptr<const LearnedModel> model;
  {
    std::lock_guard<std::mutex> lock(cache.mutex);
    const auto it = cache.models.find(key);
    if (it != cache.models.end()) model = it->second;
  }
  if (!model) {
    model = LearnedModel::load(path);
    std::lock_guard<std::mutex> lock(cache.mutex);
    cache.models[key] = model;
  }
  const std::string label = name.rfind("pacml:", 0) == 0 ? name : "pacml:" + name;
  return std::make_unique<LearnedPolicy>(model, label, sample);
}

}  // namespace pacml::inference
