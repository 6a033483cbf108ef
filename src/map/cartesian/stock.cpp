// stock.cpp -- the BG/L stock permutations of a grid's row-major rank
// order (Smith and Bode (BG/L node mappings) section 3: XYZ, XZY, ..., ZYX,
// with the slot T first or last in virtual-node mode) and their "unfold"
// variants (section 3.2: the walk reverses direction along the faster axes, so
// consecutive ranks are always neighbours).  Works for every task count: with
// N tasks on P nodes, T-first fills each node with ceil or floor(N/P)
// consecutive ranks, T-last deals rank r to the (r mod P)-th node of the walk;
// both respect the capacity of equation 3 of Bhanot et al. (BG/L task layout).
// Permutations that only exchange equivalent machine dimensions are skipped.
// Cost: (canonical permutations) x 4 candidates of O(N + P) each.
#include <string>

#include "map/cartesian/embed.hpp"

namespace rankmap {
namespace cart {

bool stock_family(const Topology &topo, int ntasks, Capacity cap, const std::vector<int> &cls, int max_perms,
                  const Visit &visit) {
    const int D = topo.ndims();
    const int P = topo.size();
    const int N = ntasks;
    if (P <= 0 || N <= 0) return true;
    std::vector<int> tcls(cls.begin(), cls.begin() + std::min<size_t>(cls.size(), D));
    while (static_cast<int>(tcls.size()) < D) tcls.push_back(static_cast<int>(tcls.size()));
    const auto perms = canonical_permutations(tcls, max_perms);
    const std::vector<int> &dims = topo.dims();
    std::vector<int> seq(P), c(D), out(N);
    for (const auto &perm : perms) {  // perm[0] varies fastest
        std::vector<Digit> radices;
        for (int m = D - 1; m >= 0; --m) radices.push_back({perm[m], dims[perm[m]]});
        std::vector<int> dig(D);
        for (int snake = 0; snake < 2; ++snake) {
            bool ok = true;
            for (int k = 0; k < P && ok; ++k) {
                if (snake) {
                    gray_digits(k, radices, dig.data());
                } else {
                    int r = k;
                    for (int m = D - 1; m >= 0; --m) {
                        dig[m] = r % radices[m].radix;
                        r /= radices[m].radix;
                    }
                }
                for (int m = 0; m < D; ++m) c[radices[m].axis] = dig[m];
                seq[k] = topo.node_at(c.data());
                ok = seq[k] >= 0;
            }
            if (!ok) continue;
            std::string letters;
            for (int m = 0; m < D; ++m)
                letters += static_cast<char>(D <= 3 ? 'X' + perm[m] : 'A' + perm[m]);
            for (int tfirst = 1; tfirst >= (cap.hi > 1 ? 0 : 1); --tfirst) {
                if (tfirst) {
                    // consecutive ranks fill a node: the first N mod P
                    // nodes of the walk take one extra
                    if (N <= P) {
                        for (int g = 0; g < N; ++g) out[g] = seq[g];
                    } else {
                        const int lo = N / P, r = N % P;
                        for (int g = 0; g < N; ++g) {
                            int big = r * (lo + 1);
                            int k = g < big ? g / (lo + 1) : r + (g - big) / lo;
                            out[g] = seq[k];
                        }
                    }
                } else {
                    for (int g = 0; g < N; ++g) out[g] = seq[g % P];
                }
                std::string name = std::string(snake ? "unfold " : "stock ") +
                                   (cap.hi > 1 ? (tfirst ? "T" + letters : letters + "T") : letters);
                if (!visit(out, name)) return false;
            }
        }
    }
    return true;
}

} // namespace cart
} // namespace rankmap
