// Neighbour sampling on a CSC graph: the in-edges of node v are the slots
// colptr[v] .. colptr[v+1]-1 of row (their source ids).
//
// sample_neighbors:          k of deg slots uniformly without replacement.
// weighted_sample_neighbors: k of deg slots without replacement, probability
//                            proportional to the edge weight (A-Res).
//
// Determinism: input node i draws from its own stream, a small counter-based
// generator keyed by (seed, i), so the result depends on the seed and the
// input alone, never on the thread count or on which thread ran node i.
// Callers that sample a subset of a larger batch (the partitions of
// weft.geometric.distributed) pass `positions`: node i is then keyed by
// (seed, positions[i]), its position in the whole batch, and draws exactly what
// it would have drawn there.  The
// output layout is fixed first (counts, then an exclusive scan), and every node
// then fills its own slice, so no two threads ever write the same element.
//
// The slots chosen for a node are written in CSC (slot) order: with k == deg
// that is exactly "all neighbours in CSC order", and for k < deg it makes the
// output a function of the chosen set alone.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/checks.h"
#include "common/dtype.h"
#include "common/hash_index.h"  // mix64, the SplitMix64 finalizer
#include "common/parallel.h"
#include "common/scratch.h"

namespace py = pybind11;

namespace weft {
namespace {

constexpr std::uint64_t kGolden = 0x9E3779B97F4A7C15ULL;

// SplitMix64 stream.  The starting point is a hash of (seed, node position), so
// streams of different nodes start at unrelated points of the 2^64 cycle; a
// node draws at most a few thousand numbers, so overlaps are out of reach.
struct NodeRng {
  std::uint64_t state;
  NodeRng(std::uint64_t seed, std::uint64_t pos) : state(mix64(seed ^ mix64(pos + kGolden))) {}
  std::uint64_t next() {
    state += kGolden;
    return mix64(state);
  }
  // Uniform in [0, n), n >= 1, without modulo bias (Lemire's multiply-shift
  // with rejection; the rejection branch is almost never taken).
  std::uint64_t below(std::uint64_t n) {
    unsigned __int128 m = static_cast<unsigned __int128>(next()) * n;
    auto low = static_cast<std::uint64_t>(m);
    if (low < n) {
      const std::uint64_t threshold = (0 - n) % n;
      while (low < threshold) {
        m = static_cast<unsigned __int128>(next()) * n;
        low = static_cast<std::uint64_t>(m);
      }
    }
    return static_cast<std::uint64_t>(m >> 64);
  }
  // Uniform in (0, 1]: never 0, so -log(u) is finite.
  double open_unit() { return (static_cast<double>(next() >> 11) + 1.0) * 0x1.0p-53; }
};

// Per-chunk scratch, reused across the nodes a chunk processes.
struct Scratch {
  std::vector<std::int64_t> slots;                     // chosen slot offsets
  std::vector<std::int64_t> table;                     // hash set / Fisher-Yates deck
  std::vector<std::pair<double, std::int64_t>> keyed;  // A-Res keys
  std::vector<std::int64_t> bucket[3];                 // weighted: slots by weight class
};

constexpr std::int64_t kMinParallelWork = std::int64_t{1} << 18;
constexpr std::int64_t kFloydLinear = 48;  // up to here Floyd checks membership by a scan
constexpr std::int64_t kDeckFactor = 4;    // deg <= 4k: a partial Fisher-Yates over a deck

// k distinct offsets in [0, deg) uniformly (0 < k < deg), appended to out in
// ascending order.
void uniform_offsets(NodeRng& rng, std::int64_t deg, std::int64_t k, Scratch& s,
                     std::vector<std::int64_t>& out) {
  const std::size_t base = out.size();
  if (k <= kFloydLinear) {
    // Floyd: for j = deg-k .. deg-1 pick t in [0, j]; take t unless already
    // taken, then take j (which cannot be).  Every k-subset is equally likely.
    for (std::int64_t j = deg - k; j < deg; ++j) {
      const auto t = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(j) + 1));
      bool taken = false;
      for (std::size_t q = base; q < out.size(); ++q) taken |= out[q] == t;
      out.push_back(taken ? j : t);
    }
  } else if (deg <= kDeckFactor * k) {
    auto& deck = s.table;
    deck.resize(static_cast<std::size_t>(deg));
    std::iota(deck.begin(), deck.end(), std::int64_t{0});
    for (std::int64_t j = 0; j < k; ++j) {
      const auto t = j + static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(deg - j)));
      std::swap(deck[j], deck[t]);
      out.push_back(deck[j]);
    }
  } else {
    // Floyd with an open-addressing set (k large, deg much larger).
    std::size_t cap = 1;
    while (cap < static_cast<std::size_t>(2 * k)) cap <<= 1;
    auto& set = s.table;
    set.assign(cap, -1);
    const std::size_t mask = cap - 1;
    auto insert = [&](std::int64_t v) {  // true if newly inserted
      std::size_t h = static_cast<std::size_t>(mix64(static_cast<std::uint64_t>(v))) & mask;
      while (set[h] >= 0) {
        if (set[h] == v) return false;
        h = (h + 1) & mask;
      }
      set[h] = v;
      return true;
    };
    for (std::int64_t j = deg - k; j < deg; ++j) {
      const auto t = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(j) + 1));
      if (insert(t)) {
        out.push_back(t);
      } else {
        insert(j);
        out.push_back(j);
      }
    }
  }
  std::sort(out.begin() + static_cast<std::ptrdiff_t>(base), out.end());
}

// A-Res (Efraimidis-Spirakis): slot j gets the key E_j / w_j with E_j ~ Exp(1);
// the k smallest keys are a weighted sample without replacement.  (The same
// order as the textbook u^(1/w) maximum, but with one log per slot and no pow.)
// Weight classes: +inf weights come first (uniformly among themselves), then
// positive finite ones by key, then zero weights (uniformly), which is the
// limit of the scheme as w -> inf / w -> 0.
template <class W>
void weighted_offsets(NodeRng& rng, const W* w, std::int64_t deg, std::int64_t k, Scratch& s,
                      std::vector<std::int64_t>& out) {
  const std::size_t base = out.size();
  auto& keyed = s.keyed;
  keyed.clear();
  std::int64_t n_special = 0;
  for (std::int64_t j = 0; j < deg; ++j) {
    const double wj = static_cast<double>(w[j]);
    if (wj > 0 && wj < std::numeric_limits<double>::infinity()) {
      keyed.emplace_back(-std::log(rng.open_unit()) / wj, j);
    } else {
      ++n_special;
    }
  }
  if (n_special == 0) {
    // pair order: ties (probability ~0) fall back to the slot, still deterministic
    std::nth_element(keyed.begin(), keyed.begin() + (k - 1), keyed.end());
    for (std::int64_t j = 0; j < k; ++j) out.push_back(keyed[static_cast<std::size_t>(j)].second);
    std::sort(out.begin() + static_cast<std::ptrdiff_t>(base), out.end());
    return;
  }
  // Rare path: some infinite or zero weights.  Take whole classes in priority
  // order and sample uniformly inside the class where k runs out.
  for (auto& b : s.bucket) b.clear();
  for (std::int64_t j = 0; j < deg; ++j) {
    const double wj = static_cast<double>(w[j]);
    if (wj == std::numeric_limits<double>::infinity()) s.bucket[0].push_back(j);
    else if (wj == 0) s.bucket[2].push_back(j);
  }
  std::int64_t left = k;
  auto take_uniform = [&](const std::vector<std::int64_t>& cls) {
    const auto n = static_cast<std::int64_t>(cls.size());
    if (left >= n) {
      out.insert(out.end(), cls.begin(), cls.end());
      left -= n;
      return;
    }
    if (left == 0) return;
    std::vector<std::int64_t> pick;
    Scratch inner;
    uniform_offsets(rng, n, left, inner, pick);
    for (std::int64_t q : pick) out.push_back(cls[static_cast<std::size_t>(q)]);
    left = 0;
  };
  take_uniform(s.bucket[0]);
  if (left > 0) {
    const auto n = static_cast<std::int64_t>(keyed.size());
    if (left >= n) {
      for (const auto& kv : keyed) out.push_back(kv.second);
      left -= n;
    } else {
      std::nth_element(keyed.begin(), keyed.begin() + (left - 1), keyed.end());
      for (std::int64_t j = 0; j < left; ++j) out.push_back(keyed[static_cast<std::size_t>(j)].second);
      left = 0;
    }
  }
  take_uniform(s.bucket[2]);
  std::sort(out.begin() + static_cast<std::ptrdiff_t>(base), out.end());
}

void check_index_array(const py::array& a, const char* op, const char* name) {
  check_ndim(a, 1, op, name);
  check_dtype(IndexTypes{}, a, op, name);
  check_contiguous(a, op, name);
}

void check_pair_dtype(const py::array& a, const char* an, const py::array& b, const char* bn,
                      const char* op) {
  if (!a.dtype().equal(b.dtype()))
    value_error(op, an, " has dtype ", dtype_name(a.dtype()), " but ", bn, " has dtype ",
                dtype_name(b.dtype()), "; they must have the same dtype");
}

// Slot range of each input node, validated: node ids in [0, num_nodes) and
// 0 <= colptr[v] <= colptr[v+1] <= len(row).  Only the colptr entries of the
// input nodes are read, so a call costs O(batch), not O(num_nodes).
template <class I>
void node_ranges(const I* colptr, std::int64_t num_nodes, std::int64_t num_edges, const I* nodes,
                 std::int64_t n, std::vector<std::int64_t>& begin, std::vector<std::int64_t>& deg,
                 const char* op) {
  check_index_range(nodes, n, num_nodes, op, "input_nodes", "the number of nodes len(colptr) - 1");
  begin.resize(static_cast<std::size_t>(n));
  deg.resize(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const auto v = static_cast<std::int64_t>(nodes[i]);
    const auto a = static_cast<std::int64_t>(colptr[v]), b = static_cast<std::int64_t>(colptr[v + 1]);
    if (a < 0 || b < a || b > num_edges)
      value_error(op, "colptr must be non-decreasing with entries in [0, len(row) = ", num_edges,
                  "], but colptr[", v, "] = ", a, " and colptr[", v + 1, "] = ", b,
                  " (input_nodes[", i, "] = ", v, ")");
    begin[static_cast<std::size_t>(i)] = a;
    deg[static_cast<std::size_t>(i)] = b - a;
  }
}

template <class W>
void check_weights(const W* w, const std::vector<std::int64_t>& begin,
                   const std::vector<std::int64_t>& deg, const char* op) {
  const auto n = static_cast<std::int64_t>(begin.size());
  std::int64_t touched = 0;
  for (std::int64_t d : deg) touched += d;
  // a serial scan runs at memory speed; a thread team only pays for big scans
  const int nchunks = touched >= (std::int64_t{1} << 20) ? plan_chunks(n, 256) : 1;
  std::vector<std::int64_t> bad(static_cast<std::size_t>(std::max(nchunks, 1)), -1);
  {
    py::gil_scoped_release nogil;
    parallel_chunks(0, n, nchunks, [&](int c, std::int64_t b, std::int64_t e) {
      for (std::int64_t i = b; i < e; ++i) {
        const W* p = w + begin[static_cast<std::size_t>(i)];
        for (std::int64_t j = 0; j < deg[static_cast<std::size_t>(i)]; ++j) {
          if (!(p[j] >= 0)) {  // negative or NaN
            bad[static_cast<std::size_t>(c)] = begin[static_cast<std::size_t>(i)] + j;
            return;
          }
        }
      }
    });
  }
  for (std::int64_t slot : bad)  // chunks cover increasing node ranges: first hit is the first bad one
    if (slot >= 0)
      value_error(op, "edge_weight must be non-negative and not NaN, but edge_weight[", slot,
                  "] = ", static_cast<double>(w[slot]));
}

py::tuple sample(const py::array& row, const py::array& colptr, const py::array* weight,
                 const py::array& nodes, std::int64_t sample_size, const py::object& eids_obj,
                 std::uint64_t seed, const py::object& positions_obj, const std::string& op_name) {
  const char* op = op_name.c_str();
  check_index_array(row, op, "row");
  check_index_array(colptr, op, "colptr");
  check_index_array(nodes, op, "input_nodes");
  check_pair_dtype(row, "row", colptr, "colptr", op);
  check_pair_dtype(row, "row", nodes, "input_nodes", op);
  if (colptr.shape(0) < 1) value_error(op, "colptr must have at least 1 entry (num_nodes + 1), got 0");
  const std::int64_t num_edges = row.shape(0), num_nodes = colptr.shape(0) - 1, n = nodes.shape(0);
  std::optional<py::array> eids;
  if (!eids_obj.is_none()) {
    eids = py::cast<py::array>(eids_obj);
    check_index_array(*eids, op, "eids");
    if (eids->shape(0) != num_edges)
      value_error(op, "eids must have one entry per edge (len(row) = ", num_edges, "), got ",
                  eids->shape(0));
  }
  const std::int64_t* positions = nullptr;
  py::array_t<std::int64_t> positions_arr;
  if (!positions_obj.is_none()) {
    const auto pa = py::cast<py::array>(positions_obj);
    check_ndim(pa, 1, op, "positions");
    if (!pa.dtype().equal(py::dtype::of<std::int64_t>()))
      type_error(op, "positions must be an int64 array, got dtype ", dtype_name(pa.dtype()));
    check_contiguous(pa, op, "positions");
    if (pa.shape(0) != n)
      value_error(op, "positions must have one entry per input node (", n, "), got ", pa.shape(0));
    positions_arr = py::cast<py::array_t<std::int64_t>>(pa);
    positions = positions_arr.data();
    for (std::int64_t i = 0; i < n; ++i)
      if (positions[i] < 0)
        value_error(op, "positions must be >= 0, but positions[", i, "] = ", positions[i]);
  }
  if (weight) {
    check_ndim(*weight, 1, op, "edge_weight");
    check_dtype(FloatingTypes{}, *weight, op, "edge_weight");
    check_contiguous(*weight, op, "edge_weight");
    if (weight->shape(0) != num_edges)
      value_error(op, "edge_weight must have one entry per edge (len(row) = ", num_edges, "), got ",
                  weight->shape(0));
  }

  return dispatch(IndexTypes{}, row, op, "row", [&](auto itag) -> py::tuple {
    using I = typename decltype(itag)::type;
    const auto* rp = static_cast<const I*>(row.data());
    const auto* cp = static_cast<const I*>(colptr.data());
    const auto* np_ = static_cast<const I*>(nodes.data());
    ScratchVector<std::int64_t, 20> begin_buf(0);
    ScratchVector<std::int64_t, 21> deg_buf(0);
    ScratchVector<std::int64_t, 22> offset_buf(static_cast<std::size_t>(n) + 1);
    std::vector<std::int64_t>& begin = begin_buf.get();
    std::vector<std::int64_t>& deg = deg_buf.get();
    std::vector<std::int64_t>& offset = offset_buf.get();
    node_ranges(cp, num_nodes, num_edges, np_, n, begin, deg, op);
    if (weight) {
      dispatch(FloatingTypes{}, *weight, op, "edge_weight", [&](auto wtag) {
        using W = typename decltype(wtag)::type;
        check_weights(static_cast<const W*>(weight->data()), begin, deg, op);
      });
    }

    py::array_t<std::int32_t> count(n);
    auto* cnt = count.mutable_data();
    offset[0] = 0;
    std::int64_t work = 0;  // samples drawn or copied; weighted: keys computed
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t d = deg[static_cast<std::size_t>(i)];
      const std::int64_t k = sample_size < 0 ? d : std::min(sample_size, d);
      if (k > std::numeric_limits<std::int32_t>::max())
        value_error(op, "input node ", static_cast<std::int64_t>(np_[i]), " would return ", k,
                    " neighbours, more than an int32 count holds");
      cnt[i] = static_cast<std::int32_t>(k);
      offset[static_cast<std::size_t>(i) + 1] = offset[static_cast<std::size_t>(i)] + k;
      work += (weight && k < d) ? d : k;
    }
    const std::int64_t total = offset[static_cast<std::size_t>(n)];
    py::array out_nbrs(row.dtype(), py::array::ShapeContainer{total});
    py::object out_eids = py::none();
    auto* on = static_cast<I*>(out_nbrs.mutable_data());

    auto run = [&](auto etag, auto wtag) {
      using E = typename decltype(etag)::type;
      using W = typename decltype(wtag)::type;
      const E* ep = eids ? static_cast<const E*>(eids->data()) : nullptr;
      E* oe = nullptr;
      if (eids) {
        py::array a(eids->dtype(), py::array::ShapeContainer{total});
        oe = static_cast<E*>(a.mutable_data());
        out_eids = a;
      }
      const W* wp = weight ? static_cast<const W*>(weight->data()) : nullptr;
      py::gil_scoped_release nogil;
      // Serial below kMinParallelWork samples: waking a thread team costs
      // milliseconds on a loaded machine, more than a small batch takes.  Above
      // it, many more chunks than threads: degrees are skewed, and
      // parallel_chunks hands chunks to whichever thread is free, which evens out heavy nodes.
      const int nchunks =
          work < kMinParallelWork ? 1 : static_cast<int>(std::min<std::int64_t>(n, plan_chunks(n, 64) * 8));
      parallel_chunks(0, n, nchunks, [&](int, std::int64_t b, std::int64_t e) {
        Scratch s;
        std::vector<std::int64_t> picked;
        for (std::int64_t i = b; i < e; ++i) {
          const std::int64_t d = deg[static_cast<std::size_t>(i)], k = cnt[i];
          const std::int64_t a = begin[static_cast<std::size_t>(i)], o = offset[static_cast<std::size_t>(i)];
          if (k == d) {
            std::copy(rp + a, rp + a + d, on + o);
            if (oe) std::copy(ep + a, ep + a + d, oe + o);
            continue;
          }
          if (k == 0) continue;
          NodeRng rng(seed, static_cast<std::uint64_t>(positions ? positions[i] : i));
          picked.clear();
          if (wp) weighted_offsets(rng, wp + a, d, k, s, picked);
          else uniform_offsets(rng, d, k, s, picked);
          for (std::int64_t q = 0; q < k; ++q) on[o + q] = rp[a + picked[static_cast<std::size_t>(q)]];
          if (oe)
            for (std::int64_t q = 0; q < k; ++q) oe[o + q] = ep[a + picked[static_cast<std::size_t>(q)]];
        }
      });
    };
    auto with_weight = [&](auto etag) {
      if (weight) {
        dispatch(FloatingTypes{}, *weight, op, "edge_weight", [&](auto wtag) { run(etag, wtag); });
      } else {
        run(etag, type_tag<float>{});
      }
    };
    if (eids) {
      dispatch(IndexTypes{}, *eids, op, "eids", [&](auto etag) { with_weight(etag); });
    } else {
      with_weight(type_tag<I>{});
    }
    return py::make_tuple(out_nbrs, count, out_eids);
  });
}

}  // namespace

void bind_sampling(py::module_& m) {
  m.def(
      "sample_neighbors",
      [](const py::array& row, const py::array& colptr, const py::array& nodes, std::int64_t sample_size,
         const py::object& eids, std::uint64_t seed, const std::string& op, const py::object& positions) {
        return sample(row, colptr, nullptr, nodes, sample_size, eids, seed, positions, op);
      },
      py::arg("row").noconvert(), py::arg("colptr").noconvert(), py::arg("input_nodes").noconvert(),
      py::arg("sample_size"), py::arg("eids"), py::arg("seed"), py::arg("op") = "sample_neighbors",
      py::arg("positions") = py::none(),
      R"doc(sample_neighbors(row, colptr, input_nodes, sample_size, eids, seed, op, positions=None) -> (neighbors, count, eids|None)

CSC neighbour sampling, k = min(sample_size, deg) slots per input node (all when
sample_size < 0) uniformly without replacement, listed in slot order.  row,
colptr and input_nodes: C-contiguous 1-D int32/int64 arrays of one dtype; eids:
None or a 1-D int32/int64 array of len(row).  count is int32.  The result
depends only on (inputs, seed), not on the thread count: input node i draws
from the stream keyed by (seed, i), or by (seed, positions[i]) when positions
(a 1-D int64 array of len(input_nodes), entries >= 0) is given.
)doc");
  m.def(
      "weighted_sample_neighbors",
      [](const py::array& row, const py::array& colptr, const py::array& weight, const py::array& nodes,
         std::int64_t sample_size, const py::object& eids, std::uint64_t seed, const std::string& op,
         const py::object& positions) {
        return sample(row, colptr, &weight, nodes, sample_size, eids, seed, positions, op);
      },
      py::arg("row").noconvert(), py::arg("colptr").noconvert(), py::arg("edge_weight").noconvert(),
      py::arg("input_nodes").noconvert(), py::arg("sample_size"), py::arg("eids"), py::arg("seed"),
      py::arg("op") = "weighted_sample_neighbors", py::arg("positions") = py::none(),
      R"doc(weighted_sample_neighbors(row, colptr, edge_weight, input_nodes, sample_size, eids, seed, op, positions=None)

As sample_neighbors, but slots are drawn with probability proportional to
edge_weight (float32/float64, len(row), non-negative, no NaN; +inf weights
first, zero weights last).
)doc");
}

}  // namespace weft
