// The byte-bounded LRU cache (core/util/lru_cache.h) and the duration
// model's use of it: bounded, content-keyed, and never wrong after eviction.
#include "core/util/lru_cache.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <set>

#include "core/parallel/duration_model.h"

namespace pacml {
namespace {

TEST(LruCache, EvictsTheLeastRecentlyUsedToStayWithinItsBytes) {
  LruCache<int> cache(3 * (100 + 2 + 128));  // three one-letter keys of 100 bytes
  cache.insert("a", 1, 100);
  cache.insert("b", 2, 100);
  cache.insert("c", 3, 100);
  ASSERT_NE(cache.find("a"), nullptr);  // a is now the most recent
  cache.insert("d", 4, 100);            // evicts b, the coldest
  EXPECT_EQ(cache.find("b"), nullptr);
  EXPECT_EQ(*cache.find("a"), 1);
  EXPECT_EQ(*cache.find("d"), 4);
  EXPECT_EQ(cache.size(), 3u);
  EXPECT_LE(cache.bytes(), cache.max_bytes());
  EXPECT_EQ(cache.insert("huge", 5, 10000), nullptr);  // larger than the budget: not kept
  EXPECT_EQ(cache.find("huge"), nullptr);
}

TEST(LruCache, KeysAreComparedWhole) {
  LruCache<int> cache(1 << 20);
  const std::string a(1000, 'x');
  std::string b = a;
  b.back() = 'y';
  cache.insert(a, 1, 4);
  EXPECT_EQ(cache.find(b), nullptr);
  cache.insert(b, 2, 4);
  EXPECT_EQ(*cache.find(a), 1);
  EXPECT_EQ(*cache.find(b), 2);
}

TEST(LruCache, FindsBySerialOnlyWhatTheKeyFound) {
  LruCache<int> cache(3 * (100 + 2 + 128));
  cache.insert("a", 1, 100, 11);
  cache.insert("b", 2, 100);
  EXPECT_EQ(*cache.find("a", 11), 1);
  EXPECT_EQ(*cache.find("b", 12), 2);  // found by key, then known by 12
  EXPECT_EQ(*cache.find("b", 12), 2);
  EXPECT_EQ(cache.find("c", 13), nullptr);
  // A serial finds an entry the way its key does, refreshing it: a stays,
  // b (the coldest) goes, and its serial with it.
  EXPECT_EQ(*cache.find("a", 11), 1);
  cache.insert("c", 3, 100);
  cache.insert("d", 4, 100);
  EXPECT_EQ(cache.find("b", 12), nullptr);
  EXPECT_EQ(*cache.find("a", 11), 1);
  // A replaced entry is found by key again, never by a serial of the old one.
  cache.insert("a", 5, 100);
  EXPECT_EQ(*cache.find("a", 11), 5);
  // Many serials for one key: the latest few are kept, every one still finds it.
  for (std::uint64_t serial = 100; serial < 120; ++serial) EXPECT_EQ(*cache.find("a", serial), 5);
}

TEST(ParallelJob, SerialsAreNeverShared) {
  ZooOptions options;
  options.batch = 64;
  std::set<std::uint64_t> serials;
  for (int i = 0; i < 3; ++i) {
    const ParallelJobPtr job = ParallelJob::from_zoo("resnet50", options);  // freed each time
    EXPECT_TRUE(serials.insert(job->serial()).second) << job->serial();
  }
}

TEST(DurationModel, StaysWithinItsBudgetAndAnswersTheSameAfterEviction) {
  auto estimator = std::make_shared<PhysicalEstimator>(load_cluster("dgx-a100-4x8"));
  DurationModel small(estimator, 1200), big(estimator);  // room for two kinds
  std::vector<ParallelJobPtr> jobs;
  for (int batch : {32, 64, 128, 256, 512}) {
    ZooOptions options;
    options.batch = batch;
    jobs.push_back(ParallelJob::from_zoo("resnet50", options));
  }
  for (int round = 0; round < 2; ++round)
    for (const ParallelJobPtr& job : jobs)
      for (int k : {1, 2, 8})
        EXPECT_EQ(small.step_time(*job, k), big.step_time(*job, k)) << job->key() << " k=" << k;
  EXPECT_LE(small.cached_bytes(), 1200u);
  EXPECT_LT(small.cached_kinds(), jobs.size());
  EXPECT_EQ(big.cached_kinds(), jobs.size());
}

TEST(DurationModel, RemembersTheLastJobOnlyWhileItIsTheSameJob) {
  auto estimator = std::make_shared<PhysicalEstimator>(load_cluster("dgx-a100-4x8"));
  DurationModel model(estimator), fresh(estimator);
  ZooOptions options;
  options.batch = 64;
  ParallelJobPtr first = ParallelJob::from_zoo("resnet50", options);
  const double first_step = model.step_time(*first, 4);
  EXPECT_EQ(first_step, fresh.step_time(*first, 4));
  first.reset();
  // Another job, quite possibly where the first one lived: its own answer.
  options.batch = 256;
  const ParallelJobPtr second = ParallelJob::from_zoo("vgg16", options);
  for (int k : {4, 1, 8, 4})
    EXPECT_EQ(model.step_time(*second, k), fresh.step_time(*second, k)) << "k=" << k;
  EXPECT_NE(model.step_time(*second, 4), first_step);
  EXPECT_EQ(model.cached_kinds(), 2u);
}

}  // namespace
}  // namespace pacml
