// matrix.cpp -- distance-matrix machine model (see matrix.hpp).  A message
// uses the one direct "link" between its two nodes.
#include "topology/matrix.hpp"

#include <algorithm>
#include <fstream>
#include <map>

#include "common/error.hpp"
#include "common/text.hpp"

namespace rankmap {

MatrixTopology::MatrixTopology(const std::string &path) : path_(path) {
    std::ifstream in(path);
    if (!in) throw Error("topology file '" + path + "': cannot open", ErrorKind::Io);
    std::string line;
    long lineno = 0;
    std::vector<std::vector<double>> rows;
    while (std::getline(in, line)) {
        ++lineno;
        auto hash = line.find('#');
        if (hash != std::string::npos) line.resize(hash);
        auto f = split(line, " \t\r,");
        if (f.empty()) continue;
        std::vector<double> row;
        for (auto &x : f) {
            double v;
            if (!parse_double(x, v)) throw Error(where(path, lineno) + "'" + x + "' is not a number");
            if (v < 0) throw Error(where(path, lineno) + "negative distance " + x);
            row.push_back(v);
        }
        if (!rows.empty() && row.size() != rows[0].size())
            throw Error(where(path, lineno) + "row has " + std::to_string(row.size()) +
                        " values, the first row has " + std::to_string(rows[0].size()));
        rows.push_back(std::move(row));
        if (rows.size() > 16384) throw Error(where(path, lineno) + "more than 16384 rows");
    }
    if (rows.empty()) throw Error("topology file '" + path + "': no distance rows");
    n_ = static_cast<int>(rows.size());
    if (static_cast<int>(rows[0].size()) != n_)
        throw Error("topology file '" + path + "': matrix is " + std::to_string(n_) + " x " +
                    std::to_string(rows[0].size()) + ", must be square");
    d_.resize(static_cast<size_t>(n_) * n_);
    for (int i = 0; i < n_; ++i)
        for (int j = 0; j < n_; ++j) d_[static_cast<size_t>(i) * n_ + j] = rows[i][j];
    for (int i = 0; i < n_; ++i) {
        if (d_[static_cast<size_t>(i) * n_ + i] != 0)
            throw Error("topology file '" + path + "': diagonal entry " + std::to_string(i + 1) + " is not 0");
        for (int j = 0; j < i; ++j)
            if (d_[static_cast<size_t>(i) * n_ + j] != d_[static_cast<size_t>(j) * n_ + i])
                throw Error("topology file '" + path + "': not symmetric at row " + std::to_string(i + 1) +
                            ", column " + std::to_string(j + 1));
    }
    dims_ = {n_};
}

MatrixTopology::MatrixTopology(const Topology &of, const std::vector<int> &nodes, const std::string &name)
    : name_(name), n_(static_cast<int>(nodes.size())) {
    if (nodes.empty()) throw Error(name + ": no nodes");
    for (int v : nodes)
        if (v < 0 || v >= of.size())
            throw Error(name + ": node " + std::to_string(v) + " outside 0.." + std::to_string(of.size() - 1));
    d_.assign(static_cast<size_t>(n_) * n_, 0.0);
    for (int i = 0; i < n_; ++i)
        for (int j = 0; j < i; ++j) {
            double d = nodes[i] == nodes[j] ? 0.0 : of.distance(nodes[i], nodes[j]);
            d_[static_cast<size_t>(i) * n_ + j] = d_[static_cast<size_t>(j) * n_ + i] = d;
        }
    dims_ = {n_};
}

std::vector<Shell> MatrixTopology::shells(int node) const {
    std::map<double, int64_t> byd;
    for (int j = 0; j < n_; ++j)
        if (j != node) byd[distance(node, j)]++;
    std::vector<Shell> out;
    for (auto &[d, c] : byd) out.push_back({d, c});
    return out;
}

void MatrixTopology::route(int a, int b, std::vector<int64_t> &links) const {
    links.clear();
    if (a != b) links.push_back(static_cast<int64_t>(std::min(a, b)) * n_ + std::max(a, b));
}

} // namespace rankmap
