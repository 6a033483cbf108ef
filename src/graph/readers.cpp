// readers.cpp -- communication graph readers: edge list, METIS .graph and
// dense matrix.  Every error names the file and line.
#include <fstream>
#include <limits>

#include "common/error.hpp"
#include "common/text.hpp"
#include "graph/graph.hpp"

namespace rankmap {

namespace {

std::ifstream open_in(const std::string &path) {
    std::ifstream in(path);
    if (!in) throw Error("graph file '" + path + "': cannot open", ErrorKind::Io);
    return in;
}

bool ends_with(const std::string &s, const std::string &suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

constexpr long long kMaxTasks = 1 << 24;
// Without a "# tasks: N" line the task count is implied by the largest task
// number; above this a typo (or a stray id) would silently create millions
// of idle tasks, so larger graphs must declare their size.
constexpr long long kMaxImplied = 1 << 20;

double parse_weight(const std::string &path, long lineno, const std::string &text) {
    double w;
    if (!parse_double(text, w)) throw Error(where(path, lineno) + "weight '" + text + "' is not a number");
    if (w < 0) throw Error(where(path, lineno) + "weight " + text + " is negative");
    return w;
}

} // namespace

// Edge list: "src dst [weight]" per line, 0-based task numbers, weight 1 when
// omitted, '#' comments.  The task count is the largest task + 1, or the
// value of a comment line "# tasks: N" (then every task must be < N).
Graph read_edge_list(const std::string &path) {
    std::ifstream in = open_in(path);
    std::string line;
    long lineno = 0;
    long long declared = -1;
    long long maxv = -1;
    std::vector<Edge> es;
    while (std::getline(in, line)) {
        ++lineno;
        auto hash = line.find('#');
        if (hash != std::string::npos) {
            std::string c = trim(line.substr(hash + 1));
            if (c.rfind("tasks:", 0) == 0) {
                std::string v = trim(c.substr(6));
                if (!parse_int(v, declared) || declared < 1 || declared > kMaxTasks)
                    throw Error(where(path, lineno) + "'# tasks: " + v + "' is not a valid task count");
                if (maxv >= declared)
                    throw Error(where(path, lineno) + "'# tasks: " + v + "' but an earlier edge names task " +
                                std::to_string(maxv));
            }
            line.resize(hash);
        }
        auto f = split(line, " \t\r,");
        if (f.empty()) continue;
        if (f.size() != 2 && f.size() != 3)
            throw Error(where(path, lineno) + "expected 'src dst [weight]', found " + std::to_string(f.size()) + " fields");
        long long s, d;
        if (!parse_int(f[0], s)) throw Error(where(path, lineno) + "task '" + f[0] + "' is not a whole number");
        if (!parse_int(f[1], d)) throw Error(where(path, lineno) + "task '" + f[1] + "' is not a whole number");
        if (s < 0 || d < 0) throw Error(where(path, lineno) + "task numbers must be >= 0 (they are 0-based)");
        if (s >= kMaxTasks || d >= kMaxTasks) throw Error(where(path, lineno) + "task number too large");
        if (declared < 0 && (s >= kMaxImplied || d >= kMaxImplied))
            throw Error(where(path, lineno) + "task " + std::to_string(s >= kMaxImplied ? s : d) +
                        " needs a '# tasks: N' line before the edges (without it task numbers must be < " +
                        std::to_string(kMaxImplied) + ")");
        if (declared >= 0 && (s >= declared || d >= declared))
            throw Error(where(path, lineno) + "task " + std::to_string(s >= declared ? s : d) +
                        " is >= the declared task count " + std::to_string(declared));
        double w = f.size() == 3 ? parse_weight(path, lineno, f[2]) : 1.0;
        maxv = std::max(maxv, std::max(s, d));
        es.push_back({static_cast<int>(s), static_cast<int>(d), w});
    }
    long long n = declared >= 0 ? declared : maxv + 1;
    if (n <= 0) throw Error("graph file '" + path + "': no edges and no '# tasks: N' line");
    return Graph::from_edges(static_cast<int>(n), es);
}

// METIS graph format: header "n m [fmt [ncon]]", then n lines of 1-based
// neighbours (with vertex sizes/weights and edge weights as fmt says);
// '%' comments.  Each undirected edge is listed from both ends.
Graph read_metis(const std::string &path) {
    std::ifstream in = open_in(path);
    std::string line;
    long lineno = 0;
    std::vector<std::string> header;
    while (header.empty() && std::getline(in, line)) {
        ++lineno;
        if (!line.empty() && line[0] == '%') continue;
        header = split(line, " \t\r");
    }
    if (header.empty()) throw Error("graph file '" + path + "': empty, no METIS header 'n m [fmt [ncon]]'");
    if (header.size() < 2 || header.size() > 4)
        throw Error(where(path, lineno) + "METIS header must be 'n m [fmt [ncon]]', found " +
                    std::to_string(header.size()) + " field(s)");
    long long n, m, fmt = 0, ncon = 1;
    if (!parse_int(header[0], n) || n < 1 || n > kMaxTasks)
        throw Error(where(path, lineno) + "vertex count '" + header[0] + "' is not valid");
    if (!parse_int(header[1], m) || m < 0) throw Error(where(path, lineno) + "edge count '" + header[1] + "' is not valid");
    if (header.size() >= 3) {
        const std::string &f = header[2];
        if (f.size() > 3 || f.find_first_not_of("01") != std::string::npos)
            throw Error(where(path, lineno) + "fmt '" + f + "' must be up to three 0/1 digits");
        fmt = std::stoll(f);
    }
    if (header.size() == 4 && (!parse_int(header[3], ncon) || ncon < 1))
        throw Error(where(path, lineno) + "ncon '" + header[3] + "' is not valid");
    const bool has_size = (fmt / 100) % 10 == 1;
    const bool has_vwgt = (fmt / 10) % 10 == 1;
    const bool has_ewgt = fmt % 10 == 1;
    std::vector<Edge> es;
    long long v = 0;
    while (std::getline(in, line)) {
        ++lineno;
        if (!line.empty() && line[0] == '%') continue;
        if (v >= n) {
            if (!trim(line).empty())
                throw Error(where(path, lineno) + "more vertex lines than the " + std::to_string(n) + " in the header");
            continue;
        }
        auto f = split(line, " \t\r");
        size_t i = 0;
        if (has_size) ++i;
        if (has_vwgt) i += static_cast<size_t>(ncon);
        if (i > f.size()) throw Error(where(path, lineno) + "missing vertex size/weight fields");
        const size_t step = has_ewgt ? 2 : 1;
        if ((f.size() - i) % step != 0) throw Error(where(path, lineno) + "neighbour without its edge weight");
        for (; i < f.size(); i += step) {
            long long u;
            if (!parse_int(f[i], u)) throw Error(where(path, lineno) + "neighbour '" + f[i] + "' is not a whole number");
            if (u < 1 || u > n)
                throw Error(where(path, lineno) + "neighbour " + f[i] + " is outside 1.." + std::to_string(n));
            double w = has_ewgt ? parse_weight(path, lineno, f[i + 1]) : 1.0;
            es.push_back({static_cast<int>(v), static_cast<int>(u - 1), w});
        }
        ++v;
    }
    if (v < n)
        throw Error("graph file '" + path + "': " + std::to_string(v) + " vertex lines, header says " + std::to_string(n));
    if (static_cast<long long>(es.size()) != 2 * m)
        throw Error("graph file '" + path + "': header says " + std::to_string(m) + " edges but the lists hold " +
                    std::to_string(es.size()) + " entries (expected 2 x " + std::to_string(m) + ")");
    return Graph::from_edges(static_cast<int>(n), es);
}

// Dense matrix: N lines of N non-negative numbers, entry (i, j) = C(i, j);
// the diagonal is ignored; '#' comments.
Graph read_matrix(const std::string &path) {
    std::ifstream in = open_in(path);
    std::string line;
    long lineno = 0;
    std::vector<Edge> es;
    long long ncols = -1;
    int row = 0;
    while (std::getline(in, line)) {
        ++lineno;
        auto hash = line.find('#');
        if (hash != std::string::npos) line.resize(hash);
        auto f = split(line, " \t\r,");
        if (f.empty()) continue;
        if (ncols < 0) {
            ncols = static_cast<long long>(f.size());
            if (ncols > 65536) throw Error(where(path, lineno) + "matrix wider than 65536 columns");
        }
        if (static_cast<long long>(f.size()) != ncols)
            throw Error(where(path, lineno) + "row has " + std::to_string(f.size()) + " values, expected " +
                        std::to_string(ncols));
        if (row >= ncols) throw Error(where(path, lineno) + "more rows than columns (" + std::to_string(ncols) + ")");
        for (size_t j = 0; j < f.size(); ++j) {
            double w = parse_weight(path, lineno, f[j]);
            if (w > 0 && static_cast<int>(j) != row) es.push_back({row, static_cast<int>(j), w});
        }
        ++row;
    }
    if (ncols < 0) throw Error("graph file '" + path + "': no matrix rows");
    if (row != ncols)
        throw Error("graph file '" + path + "': " + std::to_string(row) + " rows but " + std::to_string(ncols) +
                    " columns; the matrix must be square");
    return Graph::from_edges(row, es);
}

Graph read_graph(const std::string &path, const std::string &format) {
    std::string f = format;
    if (f.empty() || f == "auto") {
        if (ends_with(path, ".graph") || ends_with(path, ".metis")) f = "metis";
        else if (ends_with(path, ".mat") || ends_with(path, ".matrix")) f = "matrix";
        else f = "edges";
    }
    if (f == "edges") return read_edge_list(path);
    if (f == "metis") return read_metis(path);
    if (f == "matrix") return read_matrix(path);
    throw Error("graph format '" + format + "' is unknown (edges, metis, matrix or auto)");
}

void write_edge_list(const Graph &g, const std::string &path) {
    std::ofstream out(path);
    if (!out) throw Error("graph file '" + path + "': cannot open for writing", ErrorKind::Io);
    out << "# rankmap edge list: src dst weight (0-based, directed)\n# tasks: " << g.n() << "\n";
    out.precision(17);
    for (int v = 0; v < g.n(); ++v)
        for (int64_t e = g.begin(v); e < g.end(v); ++e) out << v << " " << g.target(e) << " " << g.weight(e) << "\n";
    if (!out) throw Error("graph file '" + path + "': write failed", ErrorKind::Io);
}

} // namespace rankmap
