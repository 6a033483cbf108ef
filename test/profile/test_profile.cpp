// test_profile.cpp -- the "rankmap-profile 1" reader, the weight choice of
// Chen et al., "MPIPP: an automatic profile-guided parallel process placement
// toolset for SMP clusters and multiclusters", and their C API
// (rankmap_graph_read "profile", rankmap_profile_read).  Fixtures: test/profile/fixtures (RANKMAP_PROFILE_FIXTURES).
#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>
#include <string>

#include "common/error.hpp"
#include "graph/graph.hpp"
#include "profile/profile.hpp"
#include "rankmap.h"

using namespace rankmap;

namespace {

std::string fixture(const std::string &name) {
    const char *d = std::getenv("RANKMAP_PROFILE_FIXTURES");
    return std::string(d ? d : "test/profile/fixtures") + "/" + name;
}

// Weight of the directed edge s -> d, 0 if absent.
double weight(const Graph &g, int s, int d) {
    for (int64_t e = g.begin(s); e < g.end(s); ++e)
        if (g.target(e) == d) return g.weight(e);
    return 0;
}

std::string error_of(const std::string &name) {
    try {
        read_profile(fixture(name));
    } catch (const Error &e) {
        return e.what();
    }
    return "(no error)";
}

} // namespace

TEST(AProfile, ReadsTasksPairsAndHistogram) {
    Profile p = read_profile(fixture("ring-8-small.prof"));
    EXPECT_EQ(p.ntasks, 8);
    ASSERT_EQ(p.pairs.size(), 9u);
    EXPECT_EQ(p.pairs[8].src, 0);
    EXPECT_EQ(p.pairs[8].dst, 4);
    EXPECT_EQ(p.pairs[8].count, 10);
    EXPECT_EQ(p.pairs[8].bytes, 163840);
    EXPECT_TRUE(p.has_histogram);
    EXPECT_EQ(p.histogram[4], 700);
    EXPECT_EQ(p.histogram[5], 100);
    EXPECT_EQ(p.histogram[15], 10);
    EXPECT_EQ(p.histogram[0], 0);
}

TEST(AProfile, AcceptsALastLineWithoutNewlineAndTabs) {
    EXPECT_EQ(read_profile(fixture("nonl-2.prof")).pairs.size(), 1u);
    Profile p = read_profile(fixture("pairs-4-large.prof"));
    EXPECT_EQ(p.pairs.size(), 4u);
    EXPECT_FALSE(p.has_histogram);
}

TEST(AProfile, GivesCountOrVolumeWeights) {
    Profile p = read_profile(fixture("ring-8-small.prof"));
    Graph c = profile_graph(p, WeightKind::Count);
    Graph v = profile_graph(p, WeightKind::Volume);
    EXPECT_EQ(c.n(), 8);
    EXPECT_DOUBLE_EQ(weight(c, 0, 1), 100);
    EXPECT_DOUBLE_EQ(weight(v, 0, 1), 1600);
    EXPECT_DOUBLE_EQ(weight(c, 0, 4), 10);
    EXPECT_DOUBLE_EQ(weight(v, 0, 4), 163840);
    EXPECT_DOUBLE_EQ(weight(c, 1, 0), 0);  // directed
    EXPECT_THROW(profile_graph(p, WeightKind::Auto), Error);
}

TEST(TheWeightChoice, TakesCountForSmallMessagesFromTheHistogram) {
    // 810 messages, the 405th lies in bin 4 = [8, 16) bytes.
    WeightChoice c = choose_weights(read_profile(fixture("ring-8-small.prof")), WeightKind::Auto);
    EXPECT_EQ(c.kind, WeightKind::Count);
    EXPECT_FALSE(c.forced);
    EXPECT_TRUE(c.from_histogram);
    EXPECT_EQ(c.messages, 810);
    EXPECT_GE(c.median_bytes, 8);
    EXPECT_LT(c.median_bytes, 16);
    EXPECT_DOUBLE_EQ(c.threshold, 16384);
    EXPECT_NE(c.reason.find("latency-bound"), std::string::npos) << c.reason;
    EXPECT_NE(c.reason.find("histogram"), std::string::npos) << c.reason;
}

TEST(TheWeightChoice, TakesVolumeForLargeMessagesFromPerPairMeans) {
    // 30 messages of 1 MiB and 5 of 8 bytes: the median is 1 MiB.
    WeightChoice c = choose_weights(read_profile(fixture("pairs-4-large.prof")), WeightKind::Auto);
    EXPECT_EQ(c.kind, WeightKind::Volume);
    EXPECT_FALSE(c.from_histogram);
    EXPECT_EQ(c.messages, 35);
    EXPECT_DOUBLE_EQ(c.median_bytes, 1048576);
    EXPECT_NE(c.reason.find("bandwidth-bound"), std::string::npos) << c.reason;
}

TEST(TheWeightChoice, FollowsTheThresholdSetting) {
    Profile p = read_profile(fixture("ring-8-small.prof"));
    EXPECT_EQ(choose_weights(p, WeightKind::Auto, 8).kind, WeightKind::Volume);    // median >= 8 B
    EXPECT_EQ(choose_weights(p, WeightKind::Auto, 16).kind, WeightKind::Count);    // median < 16 B
    Profile q = read_profile(fixture("pairs-4-large.prof"));
    EXPECT_EQ(choose_weights(q, WeightKind::Auto, 2e6).kind, WeightKind::Count);   // 1 MiB < 2 MB
}

TEST(TheWeightChoice, CanBeForced) {
    Profile p = read_profile(fixture("ring-8-small.prof"));
    WeightChoice c = choose_weights(p, WeightKind::Volume);
    EXPECT_EQ(c.kind, WeightKind::Volume);
    EXPECT_TRUE(c.forced);
    EXPECT_NE(c.reason.find("forced"), std::string::npos);
    EXPECT_EQ(choose_weights(read_profile(fixture("pairs-4-large.prof")), WeightKind::Count).kind, WeightKind::Count);
    EXPECT_EQ(parse_weight_kind("volume"), WeightKind::Volume);
    EXPECT_THROW(parse_weight_kind("bytes"), Error);
}

TEST(TheWeightChoice, UsesCountWhenThereAreNoMessages) {
    Profile p = read_profile(fixture("empty-3.prof"));
    EXPECT_EQ(p.ntasks, 3);
    WeightChoice c = choose_weights(p, WeightKind::Auto);
    EXPECT_EQ(c.kind, WeightKind::Count);
    EXPECT_EQ(c.messages, 0);
    EXPECT_EQ(profile_graph(p, c.kind).nedges(), 0);
}

TEST(AProfile, RejectsMalformedFilesNamingFileAndLine) {
    struct Case {
        const char *file;
        const char *message;  // expected, after "<path>"
    } cases[] = {
        {"bad-version.prof", ":1: profile format version '2' is not supported (this rankmap reads version 1)"},
        {"bad-no-header.prof", ":1: not a rankmap profile: the first line must be 'rankmap-profile 1'"},
        {"bad-pair-before-tasks.prof", ":2: 'pair' before the 'tasks N' line"},
        {"bad-duplicate-pair.prof", ":5: pair 0 -> 1 already given at line 3"},
        {"bad-task-out-of-range.prof", ":3: destination task 4 is outside 0..3"},
        {"bad-self-pair.prof", ":3: task 2 sends to itself"},
        {"bad-zero-count.prof", ":3: message count 0 is outside 1..9223372036854775807"},
        {"bad-negative-bytes.prof", ":3: byte count -8 is outside 0..9223372036854775807"},
        {"bad-field-count.prof", ":3: expected 'pair SRC DST COUNT BYTES'"},
        {"bad-histogram-bin.prof", ":3: histogram bin 65 is outside 0..64"},
        {"bad-unknown-record.prof", ":3: unknown record 'edge' (tasks, meta, histogram, pair, alltoall)"},
        {"bad-non-numeric.prof", ":3: message count 'x' is not a whole number"},
    };
    for (auto &c : cases) {
        const std::string path = fixture(c.file);
        EXPECT_EQ(error_of(c.file), path + c.message) << c.file;
    }
    EXPECT_EQ(error_of("bad-no-tasks.prof"), "profile '" + fixture("bad-no-tasks.prof") + "': no 'tasks N' line");
    EXPECT_EQ(error_of("bad-empty.prof"),
              "profile '" + fixture("bad-empty.prof") + "': empty file, expected 'rankmap-profile 1'");
    EXPECT_EQ(error_of("no-such-file.prof"), "profile '" + fixture("no-such-file.prof") + "': cannot open");
}

TEST(AProfile, ReadsAllToAllGroupsIntoTheGraphAndTheModel) {
    std::istringstream in("rankmap-profile 1\ntasks 4\npair 0 1 2 100\n"
                          "alltoall 3 600 0 1 2 3   # 3 calls, 600 bytes per member to the 3 others\n"
                          "alltoall 1 8 3 2\n");
    Profile p = parse_profile(in, "g.prof");
    ASSERT_EQ(p.groups.size(), 2u);
    EXPECT_EQ(p.groups[0].calls, 3);
    EXPECT_EQ(p.groups[0].bytes, 600);
    EXPECT_EQ(p.groups[1].members, (std::vector<int>{3, 2}));  // communicator rank order kept
    EXPECT_EQ(profile_groups(p), (std::vector<std::vector<int>>{{0, 1, 2, 3}, {3, 2}}));
    // volume: 600 / 3 to each partner, plus the pair's 100 and the second
    // group's 8 / 1; count: one message per call and partner, plus the pair's
    Graph v = profile_graph(p, WeightKind::Volume), c = profile_graph(p, WeightKind::Count);
    auto w = [](const Graph &g, int a, int b) {
        for (int64_t e = g.begin(a); e < g.end(a); ++e)
            if (g.adj()[e] == b) return g.weights()[e];
        return 0.0;
    };
    EXPECT_DOUBLE_EQ(w(v, 0, 1), 300);
    EXPECT_DOUBLE_EQ(w(v, 1, 0), 200);
    EXPECT_DOUBLE_EQ(w(v, 3, 2), 208);
    EXPECT_DOUBLE_EQ(w(c, 0, 1), 5);
    EXPECT_DOUBLE_EQ(w(c, 2, 3), 4);
    EXPECT_EQ(v.nedges(), 12);
}

TEST(AProfile, RejectsBadAllToAllGroups) {
    struct Case {
        const char *text, *message;
    } cases[] = {
        {"rankmap-profile 1\nalltoall 1 8 0 1\n", "g.prof:2: 'alltoall' before the 'tasks N' line"},
        {"rankmap-profile 1\ntasks 4\nalltoall 1 8 0\n", "g.prof:3: expected 'alltoall CALLS BYTES T1 T2 ...' (2 tasks or more)"},
        {"rankmap-profile 1\ntasks 4\nalltoall 1 8 0 4\n", "g.prof:3: group member 4 is outside 0..3"},
        {"rankmap-profile 1\ntasks 4\nalltoall 1 8 2 2\n", "g.prof:3: task 2 is twice in one all-to-all group"},
        {"rankmap-profile 1\ntasks 4\nalltoall 0 8 0 1\n", "g.prof:3: call count 0 is outside 1..9223372036854775807"},
        {"rankmap-profile 1\ntasks 4\nalltoall 1 8 0 1\nalltoall 2 9 0 1\n",
         "g.prof:4: this all-to-all group is already given at line 3"},
    };
    for (auto &c : cases) {
        std::istringstream in(c.text);
        try {
            parse_profile(in, "g.prof");
            ADD_FAILURE() << "accepted: " << c.text;
        } catch (const Error &e) {
            EXPECT_EQ(std::string(e.what()), c.message);
        }
    }
}

TEST(AProfile, RejectsASecondTasksLineAndADuplicateHistogramBin) {
    std::istringstream a("rankmap-profile 1\ntasks 2\ntasks 3\n");
    EXPECT_THROW(
        {
            try {
                parse_profile(a, "x.prof");
            } catch (const Error &e) {
                EXPECT_STREQ(e.what(), "x.prof:3: second 'tasks' line");
                throw;
            }
        },
        Error);
    std::istringstream b("rankmap-profile 1\nhistogram 3 1\ntasks 2\nhistogram 3 4\n");
    try {
        parse_profile(b, "y.prof");
        FAIL() << "no error";
    } catch (const Error &e) {
        EXPECT_STREQ(e.what(), "y.prof:4: histogram bin 3 already given at line 2");
    }
}

// Regression: found by fuzz_graph (a METIS header with one field read past
// the end of the field list).
TEST(TheMetisReader, RejectsAOneFieldHeader) {
    const std::string path = fixture("bad-metis-header-one-field.graph");
    try {
        read_graph(path, "metis");
        FAIL() << "no error";
    } catch (const Error &e) {
        EXPECT_EQ(std::string(e.what()), path + ":1: METIS header must be 'n m [fmt [ncon]]', found 1 field(s)");
    }
}

TEST(TheCApi, ReadsAProfileAsAGraph) {
    rankmap_graph_t g = nullptr;
    ASSERT_EQ(rankmap_graph_read(fixture("ring-8-small.prof").c_str(), "profile", &g), RANKMAP_OK);
    int n = 0;
    rankmap_graph_ntasks(g, &n);
    EXPECT_EQ(n, 8);
    rankmap_graph_free(g);
    // by extension
    ASSERT_EQ(rankmap_graph_read(fixture("pairs-4-large.prof").c_str(), nullptr, &g), RANKMAP_OK);
    rankmap_graph_free(g);
    EXPECT_EQ(rankmap_graph_read(fixture("bad-self-pair.prof").c_str(), "profile", &g), RANKMAP_ERR_INVALID);
    EXPECT_EQ(std::string(rankmap_last_error()), fixture("bad-self-pair.prof") + ":3: task 2 sends to itself");
}

TEST(TheCApi, ReportsTheWeightChoice) {
    rankmap_graph_t g = nullptr;
    rankmap_weights chosen = RANKMAP_WEIGHTS_AUTO;
    double median = -1;
    ASSERT_EQ(rankmap_profile_read(fixture("pairs-4-large.prof").c_str(), RANKMAP_WEIGHTS_AUTO, 0, &g, &chosen,
                                   &median),
              RANKMAP_OK);
    EXPECT_EQ(chosen, RANKMAP_WEIGHTS_VOLUME);
    EXPECT_DOUBLE_EQ(median, 1048576);
    rankmap_graph_free(g);
    ASSERT_EQ(rankmap_profile_read(fixture("pairs-4-large.prof").c_str(), RANKMAP_WEIGHTS_AUTO, 4e6, &g, &chosen,
                                   nullptr),
              RANKMAP_OK);
    EXPECT_EQ(chosen, RANKMAP_WEIGHTS_COUNT);
    rankmap_graph_free(g);
    EXPECT_EQ(rankmap_profile_read(fixture("pairs-4-large.prof").c_str(), static_cast<rankmap_weights>(7), 0, &g,
                                   nullptr, nullptr),
              RANKMAP_ERR_INVALID);
}
