// reindex_graph: relabel a sampled subgraph with compact ids.
//
//   out_nodes = x (as given, duplicates kept), then every neighbour id not in x
//               in order of first appearance;
//   src[i]    = position of neighbors[i] in out_nodes;
//   dst       = position of x[j] in out_nodes, repeated count[j] times.
// A duplicated id of x resolves to its last position, in src and dst alike
// (Paddle's observed rule: the table is filled in order of x, later entries
// overwriting earlier ones; x = [5, 5] gives dst = [1, 1, ...]).
// Several edge types (reindex_heter_graph) share one table and one out_nodes,
// visited in list order, with src / dst concatenated.
//
// "First appearance" is a sequential notion, so the table is built by one pass
// in order; it is O(len(x) + len(neighbors)) with a dense array when the ids
// span a small range (the usual case: ids of one graph) and an open-addressing
// hash table otherwise (common/hash_index.h: keys are mixed, so crafted ids do
// not collide).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "common/checks.h"
#include "common/dtype.h"
#include "common/hash_index.h"
#include "common/parallel.h"
#include "common/scratch.h"

namespace py = pybind11;

namespace weft {
namespace {

// Direct table over [lo, lo + span).  V = int32 when every position fits:
// half the footprint, so more of the table stays in cache under random access.
template <class V>
class DenseIndex {
 public:
  DenseIndex(std::int64_t lo, std::int64_t span) : lo_(lo), table_(buf_.get()) {
    table_.assign(static_cast<std::size_t>(span), V(-1));
  }
  void assign(std::int64_t key, std::int64_t value) { table_[static_cast<std::size_t>(key - lo_)] = static_cast<V>(value); }
  std::int64_t get_or_insert(std::int64_t key, std::int64_t fresh, bool& inserted) {
    V& v = table_[static_cast<std::size_t>(key - lo_)];
    inserted = v < 0;
    if (inserted) v = static_cast<V>(fresh);
    return v;
  }
  void prefetch(std::int64_t key) const { __builtin_prefetch(&table_[static_cast<std::size_t>(key - lo_)], 1); }

 private:
  std::int64_t lo_;
  ScratchVector<V, 10> buf_;
  std::vector<V>& table_;
};

template <class I, class Index>
void relabel(Index& index, const I* x, std::int64_t nx, const std::vector<const I*>& nbrs,
             const std::vector<std::int64_t>& lens, I* src, std::vector<I>& out_nodes,
             std::vector<std::int64_t>& x_pos) {
  out_nodes.assign(x, x + nx);
  for (std::int64_t j = 0; j < nx; ++j) index.assign(static_cast<std::int64_t>(x[j]), j);
  for (std::int64_t j = 0; j < nx; ++j) {
    bool inserted;
    x_pos[static_cast<std::size_t>(j)] = index.get_or_insert(static_cast<std::int64_t>(x[j]), -1, inserted);
  }
  std::int64_t next = nx, o = 0;
  for (std::size_t t = 0; t < nbrs.size(); ++t) {
    const I* nb = nbrs[t];
    // The lookups are cache misses on a large table; prefetching a few ids
    // ahead overlaps them (the ordered inserts themselves cannot be reordered).
    constexpr std::int64_t kAhead = 12;
    for (std::int64_t i = 0; i < lens[t]; ++i, ++o) {
      if (i + kAhead < lens[t]) index.prefetch(static_cast<std::int64_t>(nb[i + kAhead]));
      bool inserted;
      const std::int64_t p = index.get_or_insert(static_cast<std::int64_t>(nb[i]), next, inserted);
      if (inserted) {
        out_nodes.push_back(nb[i]);
        ++next;
      }
      src[o] = static_cast<I>(p);
    }
  }
}

// Sum of a count array; negative entries are an error.  Accumulated in 128
// bits so that no choice of int64 counts can wrap around to the right total.
template <class C>
__int128 count_sum(const C* c, std::int64_t n, const char* op, const std::string& name) {
  __int128 s = 0;
  for (std::int64_t j = 0; j < n; ++j) {
    if (c[j] < 0)
      value_error(op, name, "[", j, "] = ", static_cast<std::int64_t>(c[j]), " is negative; counts must be >= 0");
    s += c[j];
  }
  return s;
}

py::tuple reindex(const py::array& x, const std::vector<py::array>& neighbors,
                  const std::vector<py::array>& counts, bool heter, const std::string& op_name) {
  const char* op = op_name.c_str();
  check_ndim(x, 1, op, "x");
  check_dtype(IndexTypes{}, x, op, "x");
  check_contiguous(x, op, "x");
  const std::int64_t nx = x.shape(0);
  if (nx == 0) value_error(op, "x must contain at least one node (the first of dims should not be equal to 0)");
  if (neighbors.size() != counts.size())
    value_error(op, "neighbors and count must have the same number of edge types, got ", neighbors.size(),
                " and ", counts.size());
  auto label = [&](const char* base, std::size_t t) {
    return heter ? cat(base, "[", t, "]") : std::string(base);
  };
  std::vector<std::int64_t> lens(neighbors.size());
  std::vector<bool> count_is64;
  std::int64_t total = 0;
  for (std::size_t t = 0; t < neighbors.size(); ++t) {
    const std::string nn = label("neighbors", t), cn = label("count", t);
    const py::array& nb = neighbors[t];
    const py::array& c = counts[t];
    check_ndim(nb, 1, op, nn.c_str());
    check_contiguous(nb, op, nn.c_str());
    if (!nb.dtype().equal(x.dtype()))
      value_error(op, nn, " has dtype ", dtype_name(nb.dtype()), " but x has dtype ", dtype_name(x.dtype()),
                  "; they must have the same dtype");
    check_ndim(c, 1, op, cn.c_str());
    check_dtype(IndexTypes{}, c, op, cn.c_str());
    check_contiguous(c, op, cn.c_str());
    if (c.shape(0) != nx)
      value_error(op, cn, " must have one entry per node of x (", nx, "), got ", c.shape(0));
    const __int128 s = dispatch(IndexTypes{}, c, op, cn.c_str(), [&](auto tag) {
      using C = typename decltype(tag)::type;
      return count_sum(static_cast<const C*>(c.data()), nx, op, cn);
    });
    if (s != nb.shape(0)) {
      const std::string shown = s <= std::numeric_limits<std::int64_t>::max()
                                    ? std::to_string(static_cast<std::int64_t>(s))
                                    : std::string("more than 2**63");
      value_error(op, "sum(", cn, ") = ", shown, " but ", nn, " has ", nb.shape(0),
                  " entries; they must be equal");
    }
    count_is64.push_back(c.itemsize() == 8);
    lens[t] = nb.shape(0);
    total += lens[t];
  }

  return dispatch(IndexTypes{}, x, op, "x", [&](auto itag) -> py::tuple {
    using I = typename decltype(itag)::type;
    const auto* xp = static_cast<const I*>(x.data());
    std::vector<const I*> nbrs;
    for (const auto& nb : neighbors) nbrs.push_back(static_cast<const I*>(nb.data()));
    py::array_t<I> src(total), dst(total);
    I* sp = src.mutable_data();
    I* dp = dst.mutable_data();
    ScratchVector<I, 11> out_buf;
    std::vector<I>& out_nodes = out_buf.get();
    out_nodes.reserve(static_cast<std::size_t>(nx + total));
    std::vector<std::int64_t> x_pos(static_cast<std::size_t>(nx));  // last position of x[j]
    {
      py::gil_scoped_release nogil;
      std::int64_t lo = std::numeric_limits<std::int64_t>::max(), hi = std::numeric_limits<std::int64_t>::min();
      auto scan = [&](const I* p, std::int64_t n) {
        for (std::int64_t i = 0; i < n; ++i) {
          lo = std::min<std::int64_t>(lo, p[i]);
          hi = std::max<std::int64_t>(hi, p[i]);
        }
      };
      scan(xp, nx);
      for (std::size_t t = 0; t < nbrs.size(); ++t) scan(nbrs[t], lens[t]);
      // span + 1 as unsigned: hi - lo overflows int64 for ids of both signs near the limits
      const std::uint64_t span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
      const std::uint64_t budget = 4 * static_cast<std::uint64_t>(nx + total) + (1u << 16);
      if (span < budget && nx + total < std::numeric_limits<std::int32_t>::max()) {
        DenseIndex<std::int32_t> index(lo, static_cast<std::int64_t>(span) + 1);
        relabel(index, xp, nx, nbrs, lens, sp, out_nodes, x_pos);
      } else if (span < budget) {
        DenseIndex<std::int64_t> index(lo, static_cast<std::int64_t>(span) + 1);
        relabel(index, xp, nx, nbrs, lens, sp, out_nodes, x_pos);
      } else {
        HashIndex index(nx + std::min<std::int64_t>(total, 1 << 16));
        relabel(index, xp, nx, nbrs, lens, sp, out_nodes, x_pos);
      }
      std::int64_t o = 0;
      auto fill = [&](const auto* cp) {
        for (std::int64_t j = 0; j < nx; ++j) {
          std::fill(dp + o, dp + o + static_cast<std::int64_t>(cp[j]), static_cast<I>(x_pos[static_cast<std::size_t>(j)]));
          o += static_cast<std::int64_t>(cp[j]);
        }
      };
      for (std::size_t t = 0; t < counts.size(); ++t) {
        if (count_is64[t]) fill(static_cast<const std::int64_t*>(counts[t].data()));
        else fill(static_cast<const std::int32_t*>(counts[t].data()));
      }
    }
    py::array_t<I> out(static_cast<py::ssize_t>(out_nodes.size()));
    std::copy(out_nodes.begin(), out_nodes.end(), out.mutable_data());
    return py::make_tuple(src, dst, out);
  });
}

}  // namespace

void bind_reindex(py::module_& m) {
  m.def("reindex_graph", &reindex, py::arg("x").noconvert(), py::arg("neighbors"), py::arg("count"),
        py::arg("heter") = false, py::arg("op") = "reindex_graph",
        R"doc(reindex_graph(x, neighbors, count, heter=False, op) -> (src, dst, out_nodes)

x: C-contiguous 1-D int32/int64 array (non-empty); neighbors: list of 1-D arrays
of x's dtype, one per edge type; count: list of 1-D int32/int64 arrays of len(x)
with sum(count[t]) == len(neighbors[t]).  out_nodes = x then the new neighbour
ids in order of first appearance; src = positions of the neighbours in
out_nodes (a duplicated id of x maps to its last position); dst = j repeated
count[j] times; all of x's dtype, types concatenated in list order.
)doc");
}

}  // namespace weft
