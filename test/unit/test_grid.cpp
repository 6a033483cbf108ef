// test_grid.cpp -- grid recognition in scrambled graphs (src/map/cartesian/recognize.cpp),
// the structured Cartesian embeddings (src/map/cartesian) and the
// translation-periodic band embedding (band.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <set>

#include "common/error.hpp"
#include "common/rng.hpp"
#include "map/band/band.hpp"
#include "map/cartesian/embed.hpp"
#include "map/tuning.hpp"
#include "map/cartesian/grid.hpp"
#include "topology/torus.hpp"
#include "workload/workload.hpp"

using namespace rankmap;

namespace {

std::vector<int> shuffled(int n, uint64_t seed) {
    std::vector<int> perm(n);
    for (int i = 0; i < n; ++i) perm[i] = i;
    Rng rng(seed);
    shuffle(perm, rng);
    return perm;
}

// Undirected edge set of a graph, ignoring weights.
std::set<std::pair<int, int>> edge_set(const Graph &g) {
    std::set<std::pair<int, int>> s;
    for (const Edge &e : g.edges()) s.insert({std::min(e.src, e.dst), std::max(e.src, e.dst)});
    return s;
}

// A problem over g on topology `spec`, with its derived data kept alive.
struct Fixture {
    Graph g;
    std::unique_ptr<Topology> topo;
    ProblemData pd;
    std::optional<CartGrid> grid;
    Fixture(Graph graph, const std::string &spec, std::optional<CartGrid> gr = std::nullopt)
        : g(std::move(graph)), topo(parse_topology(spec)), pd(prepare(g, *topo)), grid(std::move(gr)) {}
    Problem problem() const {
        return Problem{g, pd.sym, *topo, pd.cap, pd.f_min, grid, Options{}, Deadline(0), nullptr, {}};
    }
};

// Task placement from a node-per-grid-point embedding.
std::vector<int> to_tasks(const std::vector<int> &node_of_point, const std::vector<int> *task_at) {
    std::vector<int> place(node_of_point.size());
    for (size_t g = 0; g < place.size(); ++g) place[task_at ? (*task_at)[g] : g] = node_of_point[g];
    return place;
}

// Maximum hop distance over the grid-neighbour pairs of the implied graph.
int max_neighbour_hops(const Topology &topo, const CartGrid &grid, const std::vector<int> &node_of_point) {
    Graph cg = cartesian_graph(grid.dims, grid.periods);
    int worst = 0;
    for (const Edge &e : cg.edges()) worst = std::max(worst, topo.hops(node_of_point[e.src], node_of_point[e.dst]));
    return worst;
}

struct Shape {
    std::vector<int> dims, periods;
};

} // namespace

// ---- recognition -----------------------------------------------------------

TEST(GridRecognition, FindsScrambledToriAndMeshesOfManyShapes) {
    const std::vector<Shape> shapes = {
        {{8, 8, 8}, {1, 1, 1}},   {{16, 16, 8}, {1, 1, 1}}, {{4, 4, 4}, {1, 1, 1}}, {{6, 5}, {0, 0}},
        {{7, 5, 3}, {1, 0, 1}},   {{10}, {1}},              {{9}, {0}},             {{3, 3}, {1, 1}},
        {{2, 2, 2}, {0, 0, 0}},   {{5, 4, 3, 2}, {1, 0, 1, 0}}, {{4, 6}, {0, 1}},   {{3, 3, 3, 3, 3, 3}, {1, 1, 1, 1, 1, 1}},
        {{5, 4}, {1, 1}}};
    uint64_t seed = 7;
    for (const Shape &s : shapes) {
        SCOPED_TRACE(::testing::PrintToString(s.dims));
        Graph g = cartesian_graph(s.dims, s.periods);
        Graph scrambled = g.relabeled(shuffled(g.n(), ++seed));
        auto rg = recognize_grid(scrambled.symmetrized());
        ASSERT_TRUE(rg.has_value());
        int64_t n = 1;
        for (int d : rg->grid.dims) n *= d;
        ASSERT_EQ(n, g.n());
        // The recognised grid, with task_at, reproduces the scrambled graph
        // edge for edge.
        Graph rebuilt = cartesian_graph(rg->grid.dims, rg->grid.periods);
        std::vector<int> point_to_task = rg->task_at;
        EXPECT_EQ(edge_set(rebuilt.relabeled(point_to_task)), edge_set(scrambled));
    }
}

TEST(GridRecognition, ScrambledTorusEmbedsAtTheLowerBound) {
    for (const std::string dims : {"8x8x8", "16x16x8", "4x4x4"}) {
        SCOPED_TRACE(dims);
        std::vector<int> d = dims == "8x8x8" ? std::vector<int>{8, 8, 8}
                             : dims == "4x4x4" ? std::vector<int>{4, 4, 4}
                                               : std::vector<int>{16, 16, 8};
        Graph g = workload_cubic1(d).relabeled(shuffled(static_cast<int>(d[0] * d[1] * d[2]), 3));
        Fixture fx(g, "torus:" + dims);
        auto rg = recognize_grid(fx.pd.sym);
        ASSERT_TRUE(rg.has_value());
        Problem p = fx.problem();
        std::vector<int> emb = best_grid_embedding(p, rg->grid, &rg->task_at);
        std::vector<int> place = to_tasks(emb, &rg->task_at);
        EXPECT_NO_THROW(check_placement(*fx.topo, g.n(), place));
        EXPECT_NEAR(free_energy(g, *fx.topo, place), fx.pd.f_min, 1e-9 * fx.pd.f_min);
    }
}

TEST(GridRecognition, RecognisesCubic2ThroughItsHeaviestEdges) {
    Graph g = workload_cubic2({8, 8, 8}).relabeled(shuffled(512, 11));
    Fixture fx(g, "torus:8x8x8");
    auto rg = recognize_grid(fx.pd.sym);
    ASSERT_TRUE(rg.has_value());
    EXPECT_EQ(rg->grid.dims, (std::vector<int>{8, 8, 8}));
    EXPECT_EQ(rg->grid.periods, (std::vector<int>{1, 1, 1}));
    Problem p = fx.problem();
    std::vector<int> place = to_tasks(best_grid_embedding(p, rg->grid, &rg->task_at), &rg->task_at);
    EXPECT_NEAR(free_energy(g, *fx.topo, place), fx.pd.f_min, 1e-9 * fx.pd.f_min);
}

TEST(GridRecognition, DeclinesATorusWithOneEdgeRemoved) {
    for (const Shape &s : {Shape{{8, 8, 8}, {1, 1, 1}}, Shape{{6, 5}, {0, 0}}, Shape{{9, 7}, {1, 0}}}) {
        Graph g = cartesian_graph(s.dims, s.periods);
        std::vector<Edge> es = g.edges();
        const Edge cut = es[es.size() / 3];
        std::vector<Edge> kept;
        for (const Edge &e : es)
            if (!((e.src == cut.src && e.dst == cut.dst) || (e.src == cut.dst && e.dst == cut.src))) kept.push_back(e);
        Graph broken = Graph::from_edges(g.n(), kept).relabeled(shuffled(g.n(), 5));
        EXPECT_FALSE(recognize_grid(broken.symmetrized()).has_value());
    }
    // (a ring without one edge is a line, and is recognised as one)
    std::vector<Edge> line;
    for (int i = 0; i + 1 < 12; ++i) line.push_back({i, i + 1, 1.0});
    auto rg = recognize_grid(Graph::from_edges(12, line).relabeled(shuffled(12, 2)).symmetrized());
    ASSERT_TRUE(rg.has_value());
    EXPECT_EQ(rg->grid.dims, std::vector<int>{12});
    EXPECT_EQ(rg->grid.periods, std::vector<int>{0});
}

TEST(GridRecognition, DeclinesRandomAndNonGridGraphs) {
    Rng rng(42);
    for (int trial = 0; trial < 5; ++trial) {
        const int n = 200;
        std::vector<Edge> es;
        for (int v = 0; v < n; ++v)
            for (int k = 0; k < 3; ++k) es.push_back({v, static_cast<int>(rng.below(n)), 1.0});
        EXPECT_FALSE(recognize_grid(Graph::from_edges(n, es).symmetrized()).has_value());
    }
    // two disjoint rings, a complete graph, a star: none is a grid
    std::vector<Edge> rings, k5, star;
    for (int i = 0; i < 6; ++i) {
        rings.push_back({i, (i + 1) % 6, 1});
        rings.push_back({6 + i, 6 + (i + 1) % 6, 1});
    }
    for (int i = 0; i < 5; ++i)
        for (int j = i + 1; j < 5; ++j) k5.push_back({i, j, 1});
    for (int i = 1; i < 7; ++i) star.push_back({0, i, 1});
    EXPECT_FALSE(recognize_grid(Graph::from_edges(12, rings).symmetrized()).has_value());
    EXPECT_FALSE(recognize_grid(Graph::from_edges(5, k5).symmetrized()).has_value());
    EXPECT_FALSE(recognize_grid(Graph::from_edges(7, star).symmetrized()).has_value());
    // a grid with one diagonal of the same weight added (a lighter one
    // would be ignored: recognition looks at the heaviest edges first)
    Graph g = cartesian_graph({6, 6}, {1, 1});
    std::vector<Edge> es = g.edges();
    es.push_back({0, 7, 1.0});
    es.push_back({7, 0, 1.0});
    EXPECT_FALSE(recognize_grid(Graph::from_edges(36, es).symmetrized()).has_value());
    es.pop_back();
    es.back().w = 0.5;  // lighter: the grid underneath is found
    EXPECT_TRUE(recognize_grid(Graph::from_edges(36, es).symmetrized()).has_value());
}

// ---- embeddings ------------------------------------------------------------

TEST(CartesianMapper, DirectEmbeddingOfAPeriodicCubeReachesTheLowerBound) {
    CartGrid grid{{8, 8, 8}, {1, 1, 1}};
    Fixture fx(cartesian_graph(grid.dims, grid.periods), "torus:8x8x8", grid);
    std::vector<int> place = map_cartesian(fx.problem());
    EXPECT_NO_THROW(check_placement(*fx.topo, 512, place));
    EXPECT_DOUBLE_EQ(free_energy(fx.g, *fx.topo, place), fx.pd.f_min);
    EXPECT_EQ(max_neighbour_hops(*fx.topo, grid, place), 1);
}

TEST(CartesianMapper, PermutedDimensionsAreMatched) {
    CartGrid grid{{4, 8, 2}, {1, 1, 0}};
    Fixture fx(cartesian_graph(grid.dims, grid.periods), "torus:8x2x4", grid);
    std::vector<int> place = map_cartesian(fx.problem());
    EXPECT_EQ(max_neighbour_hops(*fx.topo, grid, place), 1);
}

// 8 = 2 x 4: each periodic grid dimension of extent 8 is unfolded over
// two torus dimensions, sharing the middle one in reflected order, so every
// grid-neighbour pair (wrap-around included) is one hop apart.
TEST(CartesianMapper, FoldsA2DGridIntoA3DTorusWithDilationOne) {
    CartGrid grid{{8, 8}, {1, 1}};
    Fixture fx(cartesian_graph(grid.dims, grid.periods), "torus:4x4x4", grid);
    std::vector<int> place = map_cartesian(fx.problem());
    EXPECT_NO_THROW(check_placement(*fx.topo, 64, place));
    EXPECT_EQ(max_neighbour_hops(*fx.topo, grid, place), 1);
    EXPECT_DOUBLE_EQ(free_energy(fx.g, *fx.topo, place), fx.pd.f_min);
}

TEST(CartesianMapper, UnfoldsA64x8GridOnto8x8x8WithDilationOne) {
    CartGrid grid{{64, 8}, {1, 1}};
    Fixture fx(cartesian_graph(grid.dims, grid.periods), "torus:8x8x8", grid);
    std::vector<int> place = map_cartesian(fx.problem());
    EXPECT_EQ(max_neighbour_hops(*fx.topo, grid, place), 1);
    EXPECT_DOUBLE_EQ(free_energy(fx.g, *fx.topo, place), fx.pd.f_min);
}

// 32x16 on 8x8x8 cannot have dilation 1 everywhere (neither 32 nor 16 is a
// product of whole torus dimensions); the embedding found keeps the mean
// dilation well below the stock orders' and within 1.25 of F_min.
TEST(CartesianMapper, Embeds32x16Onto8x8x8BetterThanStockOrders) {
    CartGrid grid{{32, 16}, {1, 1}};
    Fixture fx(cartesian_graph(grid.dims, grid.periods), "torus:8x8x8", grid);
    Problem p = fx.problem();
    std::vector<int> place = map_cartesian(p);
    EXPECT_NO_THROW(check_placement(*fx.topo, 512, place));
    const double F = free_energy(fx.g, *fx.topo, place);
    EXPECT_LE(F, 1.25 * fx.pd.f_min);
    for (const char *order : {"XYZT", "ZYXT"}) {
        std::vector<int> stock = order_placement(*fx.topo, order, 512);
        EXPECT_LT(F, free_energy(fx.g, *fx.topo, stock)) << order;
    }
}

TEST(CartesianMapper, BlocksTwoGridPointsPerNodeAtTheLowerBound) {
    CartGrid grid{{16, 8, 8}, {1, 1, 1}};
    Fixture fx(cartesian_graph(grid.dims, grid.periods), "torus:8x8x8:slots=2", grid);
    std::vector<int> place = map_cartesian(fx.problem());
    EXPECT_NO_THROW(check_placement(*fx.topo, 1024, place));
    EXPECT_DOUBLE_EQ(free_energy(fx.g, *fx.topo, place), fx.pd.f_min);
}

TEST(CartesianMapper, AlwaysReturnsAValidPlacement) {
    struct Case {
        std::vector<int> dims, periods;
        std::string topo;
    };
    const std::vector<Case> cases = {
        {{10, 10}, {1, 1}, "torus:4x4x4:slots=2"},  // N not a multiple of P
        {{7, 11}, {0, 0}, "torus:8x8x8"},           // N < P, prime extents
        {{6, 6}, {0, 0}, "mesh:4x4:slots=3"},       // 36 tasks on 16 nodes
        {{8, 8}, {1, 1}, "torus:8x8x8"},            // N < P: a sub-box
        {{5, 3, 2}, {1, 1, 1}, "mesh:8x4"},         // fewer tasks, more dims
        {{4, 4, 4, 2}, {1, 1, 1, 1}, "torus:8x8x2"},
        {{16, 8}, {0, 0}, "tree:4x2x16:cost=100,10,1"},
        {{2, 3, 5, 7}, {1, 1, 1, 1}, "torus:6x5x7"},
        {{1, 12, 1}, {0, 1, 0}, "torus:3x4"},
    };
    for (const Case &c : cases) {
        SCOPED_TRACE(c.topo);
        CartGrid grid{c.dims, c.periods};
        Fixture fx(cartesian_graph(grid.dims, grid.periods), c.topo, grid);
        std::vector<int> place;
        ASSERT_NO_THROW(place = map_cartesian(fx.problem()));
        EXPECT_NO_THROW(check_placement(*fx.topo, fx.g.n(), place));
    }
}

TEST(CartesianMapper, EmbedsARecognisedGridOnAnotherShape) {
    // a scrambled 8x8 torus recognised, then folded onto 4x4x4
    Graph g = cartesian_graph({8, 8}, {1, 1}).relabeled(shuffled(64, 9));
    Fixture fx(g, "torus:4x4x4");
    auto rg = recognize_grid(fx.pd.sym);
    ASSERT_TRUE(rg.has_value());
    std::vector<int> place = to_tasks(best_grid_embedding(fx.problem(), rg->grid, &rg->task_at), &rg->task_at);
    EXPECT_DOUBLE_EQ(free_energy(g, *fx.topo, place), fx.pd.f_min);
}

TEST(CartesianMapper, NeedsAGrid) {
    Fixture fx(cartesian_graph({4, 4}, {1, 1}), "torus:4x4");
    try {
        map_cartesian(fx.problem());
        FAIL() << "no exception";
    } catch (const Error &e) {
        EXPECT_NE(std::string(e.what()).find("needs a Cartesian task grid"), std::string::npos);
    }
}

TEST(CartesianMapper, RejectsAGridOfTheWrongSize) {
    Fixture fx(cartesian_graph({4, 4}, {1, 1}), "torus:4x4", CartGrid{{4, 5}, {1, 1}});
    EXPECT_THROW(map_cartesian(fx.problem()), Error);
}

TEST(CartesianMapper, IsDeterministic) {
    CartGrid grid{{12, 10}, {1, 0}};
    Fixture fx(cartesian_graph(grid.dims, grid.periods), "torus:4x4x8", grid);
    EXPECT_EQ(map_cartesian(fx.problem()), map_cartesian(fx.problem()));
}

// ---- the candidate families -------------------------------------------------

// Jagode et al., "Task placement of parallel multi-dimensional FFTs on a mesh
// communication network": with a 64x8 grid on 8x8x8, a small-cube candidate
// puts every grid row (8 tasks) in its own 2x2x2 sub-cube.
TEST(CartFamilies, SmallCubeMapsPutEachRowInA2x2x2Cube) {
    auto topo = parse_topology("torus:8x8x8");
    cart::Target t = cart::make_target(*topo, 512, capacity_for(512, 512));
    int cubes = 0;
    cart::small_cube_family(t, {64, 8}, [&](const std::vector<int> &nodes, const std::string &name) {
        if (name.find("rows in 2x2x2") == std::string::npos) return true;
        ++cubes;
        std::set<int> all(nodes.begin(), nodes.end());
        EXPECT_EQ(all.size(), 512u);
        for (int r = 0; r < 64; ++r) {
            int lo[3] = {99, 99, 99}, hi[3] = {-1, -1, -1};
            for (int c = 0; c < 8; ++c) {
                int xyz[3];
                topo->coords(nodes[r * 8 + c], xyz);
                for (int k = 0; k < 3; ++k) {
                    lo[k] = std::min(lo[k], xyz[k]);
                    hi[k] = std::max(hi[k], xyz[k]);
                }
            }
            for (int k = 0; k < 3; ++k) EXPECT_EQ(hi[k] - lo[k], 1) << "row " << r;
        }
        return true;
    });
    EXPECT_GT(cubes, 0);
}

// Smith and Bode, "Performance effects of node mappings on the IBM BlueGene/L
// machine", section 3.1: the 16x8 mesh on an 8x4x4 partition by Gray code.
TEST(CartFamilies, GrayCodeMapsOfA16x8MeshOn8x4x4AreBijections) {
    auto topo = parse_topology("torus:8x4x4");
    cart::Target t = cart::make_target(*topo, 128, capacity_for(128, 128));
    int count = 0;
    cart::gray_family(t, {16, 8}, [&](const std::vector<int> &nodes, const std::string &) {
        ++count;
        EXPECT_EQ(std::set<int>(nodes.begin(), nodes.end()).size(), 128u);
        return true;
    });
    EXPECT_GT(count, 4);
}

TEST(CartFamilies, ReflectedGrayDigitsChangeOneDigitByOne) {
    std::vector<cart::Digit> radices{{0, 3}, {1, 4}, {2, 2}};
    int prev[3], cur[3];
    cart::gray_digits(0, radices, prev);
    for (int x = 1; x < 24; ++x) {
        cart::gray_digits(x, radices, cur);
        int changed = 0;
        for (int k = 0; k < 3; ++k) {
            if (cur[k] != prev[k]) {
                ++changed;
                EXPECT_EQ(std::abs(cur[k] - prev[k]), 1);
            }
        }
        EXPECT_EQ(changed, 1) << "x = " << x;
        std::copy(cur, cur + 3, prev);
    }
}

TEST(CartFamilies, StockOrdersRespectCapacityForAnyTaskCount) {
    auto topo = parse_topology("torus:4x4x2");
    for (int n : {7, 32, 50, 64, 90}) {
        Capacity cap = capacity_for(n, 32);
        int seen = 0;
        cart::stock_family(*topo, n, cap, {0, 0, 2}, cart_preset().stock_permutations, [&](const std::vector<int> &nodes, const std::string &) {
            ++seen;
            EXPECT_NO_THROW(check_placement(*topo, n, nodes));
            return true;
        });
        EXPECT_GT(seen, 0);
    }
}

// --- band.cpp: translation-periodic embedding of rank-ordered band graphs ---

TEST(Band, RankOrderedMeshHaloIsEmbeddedWithoutStretch) {
    // A non-periodic 8x8x8 halo in rank order: partners at rank offsets 1, 8
    // and 64.  Layers of 64 ranks translated by one hop are an exact
    // embedding; the tile search must find one (F = F_min).
    Fixture fx(cartesian_graph({8, 8, 8}, {0, 0, 0}), "torus:8x8x8");
    Problem p = fx.problem();
    std::string why;
    std::vector<int> place = band_embedding(p, 3e7, &why);
    ASSERT_EQ(place.size(), 512u) << why;
    EXPECT_NO_THROW(check_placement(*fx.topo, 512, place));
    EXPECT_DOUBLE_EQ(free_energy(fx.g, *fx.topo, place), fx.pd.f_min);
}

TEST(Band, CoordinateDistancesGiveTheDenseTablesPlacement) {
    // Above BandContext::dense_distance_max nodes the tile's distances come
    // from coordinates (3-D unrolled, other dimension counts looped); with
    // the dense table allowed there too, the search must make the same
    // moves and end with the same placement.
    for (const char *spec : {"torus:16x16x8", "torus:64x32"}) {
        Fixture fx(workload_sage(2048), spec);
        Problem p = fx.problem();
        std::string why;
        BandOptions dense;
        dense.tuning.dense_distance_max = 2048;
        std::vector<int> a = band_embedding(p, 3e7, &why), b = band_embedding(p, 3e7, &why, dense);
        ASSERT_EQ(a.size(), 2048u) << spec << ": " << why;
        EXPECT_NO_THROW(check_placement(*fx.topo, 2048, a));
        EXPECT_EQ(a, b) << spec;
    }
}

TEST(Band, SageLikePlacementIsValidDeterministicAndBeatsRankOrder) {
    Fixture fx(workload_sage(512), "torus:8x8x8");
    Problem p = fx.problem();
    std::string why;
    std::vector<int> a = band_embedding(p, 2e6, &why);
    ASSERT_EQ(a.size(), 512u) << why;
    EXPECT_NO_THROW(check_placement(*fx.topo, 512, a));
    EXPECT_EQ(a, band_embedding(p, 2e6, &why)) << "same seed, same placement";
    std::vector<int> rank_order(512);
    for (int i = 0; i < 512; ++i) rank_order[i] = i;
    const double f = free_energy(fx.g, *fx.topo, a), f_rank = free_energy(fx.g, *fx.topo, rank_order);
    EXPECT_LT(f, 0.6 * f_rank) << "F/F_min " << f / fx.pd.f_min;
}

TEST(Band, LargeTileTemperaturesApplyFromTheirTileSizeOn) {
    // SAGE-like 512 has tiles of 64 tasks: below BandContext::large_tile
    // they anneal between start_temperature and end_temperature, so turning
    // the large-tile rule off changes nothing; with the rule lowered to 64
    // the large-tile temperatures are the ones used -- the same placement
    // when they equal the small-tile ones, another when they are the preset's.
    Fixture fx(workload_sage(512), "torus:8x8x8");
    Problem p = fx.problem();
    std::string why;
    const std::vector<int> preset = band_embedding(p, 2e6, &why);
    ASSERT_EQ(preset.size(), 512u) << why;
    BandOptions off;
    off.tuning.large_tile = 0;
    EXPECT_EQ(band_embedding(p, 2e6, &why, off), preset);
    BandOptions same;
    same.tuning.large_tile = 64;
    same.tuning.large_tile_start_temperature = same.tuning.start_temperature;
    same.tuning.large_tile_end_temperature = same.tuning.end_temperature;
    EXPECT_EQ(band_embedding(p, 2e6, &why, same), preset);
    BandOptions large;
    large.tuning.large_tile = 64;
    ASSERT_NE(large.tuning.large_tile_start_temperature, large.tuning.start_temperature);
    const std::vector<int> hot = band_embedding(p, 2e6, &why, large);
    ASSERT_EQ(hot.size(), 512u) << why;
    EXPECT_NO_THROW(check_placement(*fx.topo, 512, hot));
    EXPECT_NE(hot, preset);
}

// Whether D is the end of a monotone staircase of L unit steps on an 8x8x8
// torus, by brute force over the unwrapped end points.
static bool reached_by_staircase(const std::vector<int> &D, int L) {
    for (int a = 0; a <= L; ++a)
        for (int b = 0; a + b <= L; ++b) {
            const int c = L - a - b, v[3] = {a, b, c};
            bool ok = true;
            for (int k = 0; k < 3; ++k) ok = ok && (v[k] % 8 == D[k] || (8 - v[k] % 8) % 8 == D[k]);
            if (ok) return true;
        }
    return false;
}

TEST(Band, StaircasePredictionSearchesOnlyTheTranslationsAStaircaseReaches) {
    // SAGE-like 512: heavy offsets 5 and 6; the cheapest rank path over 64
    // ranks is 8 x 5 + 4 x 6, twelve edges.  Of the 25 translations of
    // order 8 (up to symmetry), those at the end of a monotone 12-step
    // staircase are searched, among them (3,3,4), the best of all 25 in
    // long runs; without the prediction all 25 are.
    Fixture fx(workload_sage(512), "torus:8x8x8");
    Problem p = fx.problem();
    std::string why;
    std::vector<std::vector<int>> ranking;
    BandOptions opt;
    opt.ranking = &ranking;
    ASSERT_EQ(band_embedding(p, 2e6, &why, opt).size(), 512u) << why;
    EXPECT_EQ(ranking.size(), 6u);
    for (const auto &D : ranking) EXPECT_TRUE(reached_by_staircase(D, 12)) << D[0] << "," << D[1] << "," << D[2];
    EXPECT_NE(std::find(ranking.begin(), ranking.end(), std::vector<int>{3, 3, 4}), ranking.end());
    opt.tuning.staircase = false;
    ranking.clear();
    ASSERT_EQ(band_embedding(p, 2e6, &why, opt).size(), 512u) << why;
    EXPECT_EQ(ranking.size(), 25u);
    int reached = 0;
    for (const auto &D : ranking) reached += reached_by_staircase(D, 12);
    EXPECT_EQ(reached, 6);
}

TEST(Band, AGivenRankingLimitsTheSearchAndTheTileFollowsItsTranslation) {
    // A second search on a first one's best translations searches only
    // those, and its placement is the tile moved by the winner: node(t + 64)
    // = node(t) + D for every t.
    Fixture fx(workload_sage(512), "torus:8x8x8");
    Problem p = fx.problem();
    std::string why;
    std::vector<std::vector<int>> ranking = {{1, 1, 4}, {3, 3, 4}};
    BandOptions opt;
    opt.ranking = &ranking;
    std::vector<int> place = band_embedding(p, 2e6, &why, opt);
    ASSERT_EQ(place.size(), 512u) << why;
    ASSERT_EQ(ranking.size(), 2u);
    EXPECT_TRUE((ranking[0] == std::vector<int>{1, 1, 4}) || (ranking[0] == std::vector<int>{3, 3, 4}));
    const auto *torus = dynamic_cast<const TorusTopology *>(fx.topo.get());
    ASSERT_NE(torus, nullptr);
    // The translation the placement follows must be the winner up to the
    // torus' symmetries: its per-axis distances, sorted, equal the winner's.
    int c0[3], c1[3];
    for (int t = 0; t + 64 < 512; ++t) {
        torus->coords(place[t], c0);
        torus->coords(place[t + 64], c1);
        std::vector<int> d(3);
        for (int k = 0; k < 3; ++k) {
            const int x = ((c1[k] - c0[k]) % 8 + 8) % 8;
            d[k] = std::min(x, 8 - x);
        }
        std::sort(d.begin(), d.end());
        ASSERT_EQ(d, ranking[0]) << "rank " << t;
    }
}

TEST(Band, DeclinesWhatIsNotARankOrderedBandGraphOnATorus) {
    std::string why;
    {   // Scrambled labels: partners everywhere in rank.
        Graph g = workload_cubic1({8, 8, 8});
        Fixture fx(g.relabeled(shuffled(512, 7)), "torus:8x8x8");
        EXPECT_TRUE(band_embedding(fx.problem(), 1e5, &why).empty());
        EXPECT_NE(why.find("rank"), std::string::npos) << why;
    }
    {   // A mesh has no translations.
        Fixture fx(cartesian_graph({8, 8, 8}, {0, 0, 0}), "mesh:8x8x8");
        EXPECT_TRUE(band_embedding(fx.problem(), 1e5, &why).empty());
        EXPECT_NE(why.find("wrap"), std::string::npos) << why;
    }
    {   // Two tasks per node.
        Fixture fx(cartesian_graph({8, 8, 4}, {0, 0, 0}), "torus:8x8x2:slots=2");
        EXPECT_TRUE(band_embedding(fx.problem(), 1e5, &why).empty());
        EXPECT_NE(why.find("one task per node"), std::string::npos) << why;
    }
}

// A grid whose exchange runs one direction at a time (LAMMPS's ghost
// exchange): phases found under scrambled labels, two per dimension, each a
// bijection along the grid's edges.
TEST(GuardPhases, GridExchangePhasesFollowTheGridUnderScrambledLabels) {
    const Graph g = cartesian_graph({6, 4, 5}, {1, 0, 1}).relabeled(shuffled(120, 9));
    const auto ph = grid_exchange_phases(g);
    ASSERT_TRUE(ph.has_value());
    ASSERT_EQ(ph->partner.size(), 6u);
    const auto edges = edge_set(g);
    int missing = 0;  // the non-periodic dimension's ends have no partner one way
    for (const auto &partner : ph->partner) {
        std::set<int> seen;
        for (int t = 0; t < g.n(); ++t) {
            if (partner[t] < 0) {
                ++missing;
                continue;
            }
            EXPECT_TRUE(edges.count({std::min(t, partner[t]), std::max(t, partner[t])})) << t << " " << partner[t];
            EXPECT_TRUE(seen.insert(partner[t]).second) << "two tasks send to " << partner[t];
        }
    }
    EXPECT_EQ(missing, 2 * 6 * 5);  // one face of 6x5 tasks for each direction of the open dimension
    std::vector<Edge> ring;
    for (int i = 0; i < 7; ++i) ring.push_back({i, (i + 1) % 7, 1.0});
    ring.push_back({0, 3, 1.0});
    EXPECT_FALSE(grid_exchange_phases(Graph::from_edges(7, ring)).has_value());
}

// Two placements of an 8x8 grid on 8 nodes of 8 cores: a row of the grid
// per node, and a block of 2x4 per node.
static std::pair<std::vector<int>, std::vector<int>> rows_and_blocks() {
    std::vector<int> rows(64), blocks(64);
    for (int t = 0; t < 64; ++t) {
        const int x = t / 8, y = t % 8;
        rows[t] = t;
        blocks[t] = ((x / 2) * 2 + y / 4) * 8 + (x % 2) * 4 + y % 4;
    }
    return {rows, blocks};
}

// On nodes of 8 cores, a row of an 8x8 torus per node keeps the two phases
// along the rows inside the nodes; blocks of 2x4 keep more messages inside
// (lower F) but no phase.  Read one direction at a time the blocks are
// slower, and the guard keeps the rows.
TEST(GuardPhases, KeepsWholePhasesInsideNodes) {
    const Graph g = cartesian_graph({8, 8}, {1, 1});
    const auto topo = parse_topology("tree:8x8:cost=100,1");
    const auto [rows, blocks] = rows_and_blocks();
    EXPECT_LT(evaluate(g, *topo, blocks).F, evaluate(g, *topo, rows).F);
    const auto ph = grid_exchange_phases(g);
    ASSERT_TRUE(ph.has_value());
    EXPECT_DOUBLE_EQ(phased_latency(*topo, rows, *ph), 2 * 100 + 2 * 1);
    EXPECT_DOUBLE_EQ(phased_latency(*topo, blocks, *ph), 4 * 100);
    const GuardVerdict v = guard_verdict(g, *topo, rows, blocks, {}, GuardMode::Model, 0.02, &*ph);
    EXPECT_FALSE(v.take);
    EXPECT_NE(v.figures.find("one direction at a time: distance 202 before, 400 after"), std::string::npos)
        << v.figures;
    // the other way round the phases gain, and only F's reading decides
    const GuardVerdict back = guard_verdict(g, *topo, blocks, rows, {}, GuardMode::Model, 0.02, &*ph);
    EXPECT_EQ(back.why, "slower for small messages");
}

// The same rows and blocks with the messages' sizes known: one direction at
// a time a phase lasts its slowest message, latency and shared links
// together (phased_time).  Small messages keep the latency reading's order
// (the rows); large ones the links' (the blocks send 12 messages off their
// nodes over the four phases, the rows 16), so the guard takes the blocks.
TEST(GuardPhases, KnownSizesJudgeThePhasesByTheirTime) {
    const Graph g = cartesian_graph({8, 8}, {1, 1});
    const auto topo = parse_topology("tree:8x8:cost=100,1");
    const auto [rows, blocks] = rows_and_blocks();
    const auto ph = grid_exchange_phases(g);
    ASSERT_TRUE(ph.has_value());
    MessageSizes small{&g, {}}, large{&g, {}};
    small.machine.bytes_per_unit = 100;
    large.machine.bytes_per_unit = 1 << 20;
    EXPECT_LT(phased_time(*topo, rows, *ph, small), phased_time(*topo, blocks, *ph, small));
    EXPECT_GT(phased_time(*topo, rows, *ph, large), phased_time(*topo, blocks, *ph, large));
    const GuardVerdict refused = guard_verdict(g, *topo, rows, blocks, {}, GuardMode::Model, 0.02, &*ph, &small);
    EXPECT_FALSE(refused.take);
    EXPECT_EQ(refused.why, "slower at the given message sizes sent one direction at a time");
    EXPECT_NE(refused.figures.find("one direction at a time at the given sizes"), std::string::npos) << refused.figures;
    const GuardVerdict taken = guard_verdict(g, *topo, rows, blocks, {}, GuardMode::Model, 0.02, &*ph, &large);
    EXPECT_TRUE(taken.take) << taken.why << ": " << taken.figures;
    // a graph of other tasks, or a phase naming a task outside it, is an error
    const Graph other = cartesian_graph({4, 4}, {1, 1});
    EXPECT_THROW(phased_time(*topo, rows, *ph, MessageSizes{&other, {}}), Error);
    EXPECT_THROW(phased_time(*topo, rows, *ph, MessageSizes{}), Error);
}
