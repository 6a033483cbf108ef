// profile.hpp -- communication profiles written by librankmap-profile.so
// (src/pmpi) and the choice of edge weights made from them (Chen et al.,
// MPIPP, §4.1).
//
// Format "rankmap-profile 1" (text, one record a line, '#' comments, blank
// lines ignored, fields separated by spaces or tabs):
//   rankmap-profile 1              first line, exactly
//   tasks N                        required, once, before any pair line
//   meta KEY VALUE...              free text, ignored
//   histogram K C                  K in 0..64: C messages of size 0 (K = 0)
//                                  or in [2^(K-1), 2^K) bytes (K >= 1)
//   pair SRC DST COUNT BYTES       0-based, SRC != DST, COUNT >= 1,
//                                  BYTES >= 0, each ordered pair once
//   alltoall CALLS BYTES T1 ... Tk the k >= 2 distinct tasks of a
//                                  communicator (in its rank order) ran
//                                  MPI_Alltoall CALLS >= 1 times, each
//                                  member sending BYTES >= 0 in all to the
//                                  others; each member list once
#pragma once
#include <array>
#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include "graph/graph.hpp"

namespace rankmap {

struct ProfilePair {
    int src;
    int dst;
    int64_t count;  // messages sent from src to dst
    int64_t bytes;  // their total size
};

// An all-to-all group: a communicator's members (tasks, in its rank order)
// and what each member sent to the others by MPI_Alltoall.
struct ProfileGroup {
    int64_t calls;            // MPI_Alltoall calls
    int64_t bytes;            // bytes each member sent to the others, all calls
    std::vector<int> members;
};

struct Profile {
    int ntasks = 0;
    std::vector<ProfilePair> pairs;
    std::vector<ProfileGroup> groups;
    bool has_histogram = false;
    std::array<int64_t, 65> histogram{};  // messages per power-of-two size bin
};

// Strict readers: every error is a rankmap::Error naming "file:line: ".
Profile read_profile(const std::string &path);
Profile parse_profile(std::istream &in, const std::string &name);

// Edge weights of the communication graph (Chen et al., MPIPP, §4.1): message
// count for latency-bound applications (many small messages: each costs a
// per-message overhead whatever its size), volume for bandwidth-bound ones.
enum class WeightKind { Auto, Count, Volume };
WeightKind parse_weight_kind(const std::string &name);  // auto|count|volume
const char *weight_kind_name(WeightKind k);

// Default threshold between "small" and "large" messages, in bytes.  Seed
// 002 measures it by ping-pong on the target MPI; without a measurement we
// take the size at which a message's transfer time equals the per-message
// latency, n_1/2 = latency x bandwidth: about 1 us x 12.5 GB/s = 12.5 KB for
// InfiniBand EDR/HDR-class networks and 5 us x 2.5 GB/s = 12.5 KB for
// 25 GbE; 16 KiB is that order of magnitude and a histogram bin edge (the
// profile counts sizes in powers of two), so the median never straddles it.
constexpr double kDefaultThresholdBytes = 16384;

struct WeightChoice {
    WeightKind kind = WeightKind::Count;  // Count or Volume, never Auto
    bool forced = false;                  // the user asked for it
    double median_bytes = 0;              // median message size (estimate)
    bool from_histogram = false;          // median from the histogram, else
                                          // from per-pair mean sizes
    int64_t messages = 0;                 // messages the median is over
    double threshold = kDefaultThresholdBytes;
    std::string reason;                   // one line for the user
};

// Median message size vs threshold (threshold <= 0: the default).
WeightChoice choose_weights(const Profile &p, WeightKind requested, double threshold = 0);
// Directed graph with weight = count or bytes per pair (kind must not be Auto),
// plus every all-to-all group's pairs: each member sends calls messages
// (count) or bytes / (k - 1) (volume) to each of the k - 1 others.
Graph profile_graph(const Profile &p, WeightKind kind);
// The all-to-all groups as the cost model reads them (predict_time).
std::vector<std::vector<int>> profile_groups(const Profile &p);

} // namespace rankmap
