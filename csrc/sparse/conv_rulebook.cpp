// Rulebooks of sparse convolutions (weft.sparse.nn): for every kernel offset k the
// list of (input row, output row) pairs it connects.
//
//   input site p (batch b, coords p_s), output site o, kernel offset k (per-axis index k_s):
//       p_s = o_s * stride_s - pad_s + k_s * dil_s        for every spatial axis s
//
// Submanifold ("subm"): the output sites are the input sites, stride 1, padding
// dil*(k-1)/2; an output site looks up each of its K neighbours in a hash table of
// the active coordinates.  Regular: the output sites are every site whose window
// holds an active input; they are enumerated from the inputs, deduplicated in a
// hash table and sorted (row-major), so the output COO is coalesced.
//
// Pairs of one offset are in increasing order of the row they are enumerated from
// (output row for subm, input row for regular), whatever the thread count: each
// chunk of rows writes its own lists, concatenated in chunk order.  Within one offset
// no output row appears twice (an input/output pair is determined by either end and
// k), which is what lets the GEMM kernel (conv.cpp) scatter one offset's rows in
// parallel without atomics.  Duplicate input coordinates would break that, so they
// are reported instead (the caller coalesces first).
//
// The hash table is common/hash_index.h (keys mixed with a per-process seed), shared
// with graph relabelling; keys are the row-major linear positions of the sites.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "common/checked_math.h"
#include "common/checks.h"
#include "common/dtype.h"
#include "common/hash_index.h"
#include "common/parallel.h"

namespace py = pybind11;

namespace weft {
namespace {

constexpr std::int64_t kSiteGrain = 2048;  // sites per chunk below which a team costs more than it saves
constexpr int kChunksPerThread = 4;

struct Geometry {
  int S = 0;                                   // spatial axes
  std::int64_t batch = 0;
  std::vector<std::int64_t> in, out, kernel, stride, pad, dil;
  std::int64_t K = 1;                          // kernel volume
  // Offset k's per-axis index: k_s = (k / kstride[s]) % kernel[s] (row-major over kernel axes).
  std::vector<std::int64_t> kstride;
  // disp[k * S + s] = k_s * dil_s - pad_s: input coordinate = output * stride + disp
  // (precomputed: the inner loops then need no division)
  std::vector<std::int64_t> disp;
};

std::vector<std::int64_t> int_list(const std::vector<std::int64_t>& v, std::size_t S, const char* op,
                                   const char* name, std::int64_t lo) {
  if (v.size() != S) value_error(op, name, " must have ", S, " entries (one per spatial axis), got ", v.size());
  for (std::size_t s = 0; s < S; ++s)
    if (v[s] < lo) value_error(op, name, "[", s, "] = ", v[s], " must be >= ", lo);
  return v;
}

template <class I>
std::int64_t in_key(const I* idx, std::int64_t nnz, std::int64_t i, const Geometry& g) {
  std::int64_t key = static_cast<std::int64_t>(idx[i]);
  for (int s = 0; s < g.S; ++s) key = key * g.in[s] + static_cast<std::int64_t>(idx[(s + 1) * nnz + i]);
  return key;
}

// Per-chunk, per-offset pair lists, then concatenated by offset in chunk order.
struct Pairs {
  std::vector<std::vector<std::int64_t>> a, b;  // [chunk * K + k]
};

py::tuple flatten(Pairs& pr, int nchunks, std::int64_t K) {
  std::vector<std::int64_t> off(static_cast<std::size_t>(K + 1), 0);
  for (std::int64_t k = 0; k < K; ++k) {
    std::int64_t n = 0;
    for (int c = 0; c < nchunks; ++c) n += static_cast<std::int64_t>(pr.a[static_cast<std::size_t>(c * K + k)].size());
    off[static_cast<std::size_t>(k + 1)] = off[static_cast<std::size_t>(k)] + n;
  }
  const std::int64_t P = off[static_cast<std::size_t>(K)];
  py::array_t<std::int64_t> offsets(K + 1), pin(P), pout(P);
  std::copy(off.begin(), off.end(), offsets.mutable_data());
  std::int64_t* pi = pin.mutable_data();
  std::int64_t* po = pout.mutable_data();
  {
    py::gil_scoped_release nogil;
    parallel_for(0, K, 1, [&](std::int64_t kb, std::int64_t ke) {
      for (std::int64_t k = kb; k < ke; ++k) {
        std::int64_t o = off[static_cast<std::size_t>(k)];
        for (int c = 0; c < nchunks; ++c) {
          const auto& va = pr.a[static_cast<std::size_t>(c * K + k)];
          const auto& vb = pr.b[static_cast<std::size_t>(c * K + k)];
          std::copy(va.begin(), va.end(), pi + o);
          std::copy(vb.begin(), vb.end(), po + o);
          o += static_cast<std::int64_t>(va.size());
        }
      }
    });
  }
  return py::make_tuple(offsets, pin, pout);
}

// Active input coordinates -> first row holding them; `dup` is set on a repeat.
template <class I>
void index_inputs(HashIndex& table, const I* idx, std::int64_t nnz, const Geometry& g, bool& dup) {
  constexpr std::int64_t kAhead = 8;
  for (std::int64_t i = 0; i < nnz; ++i) {
    if (i + kAhead < nnz) table.prefetch(in_key(idx, nnz, i + kAhead, g));
    bool inserted;
    table.get_or_insert(in_key(idx, nnz, i, g), i, inserted);
    if (!inserted) dup = true;
  }
}

template <class I>
py::tuple subm(const I* idx, std::int64_t nnz, const Geometry& g, bool& dup) {
  HashIndex table(nnz);
  const std::int64_t K = g.K;
  Pairs pr;
  int nchunks = 0;
  {
    py::gil_scoped_release nogil;
    index_inputs(table, idx, nnz, g, dup);
    if (!dup) {
      nchunks = plan_tasks(nnz, kSiteGrain, kChunksPerThread);
      pr.a.resize(static_cast<std::size_t>(nchunks * K));
      pr.b.resize(static_cast<std::size_t>(nchunks * K));
      parallel_chunks(0, nnz, nchunks, [&](int c, std::int64_t b, std::int64_t e) {
        std::vector<std::int64_t> coord(static_cast<std::size_t>(g.S));
        for (std::int64_t o = b; o < e; ++o) {
          for (int s = 0; s < g.S; ++s) coord[static_cast<std::size_t>(s)] = static_cast<std::int64_t>(idx[(s + 1) * nnz + o]);
          const std::int64_t bt = static_cast<std::int64_t>(idx[o]);
          for (std::int64_t k = 0; k < K; ++k) {
            std::int64_t key = bt;
            bool inside = true;
            const std::int64_t* dk = g.disp.data() + k * g.S;
            for (int s = 0; s < g.S && inside; ++s) {
              const auto su = static_cast<std::size_t>(s);
              const std::int64_t p = coord[su] + dk[s];
              inside = p >= 0 && p < g.in[su];
              if (inside) key = key * g.in[su] + p;
            }
            if (!inside) continue;
            const std::int64_t j = table.find(key);
            if (j < 0) continue;
            pr.a[static_cast<std::size_t>(c * K + k)].push_back(j);
            pr.b[static_cast<std::size_t>(c * K + k)].push_back(o);
          }
        }
      });
    }
  }
  if (dup) return py::tuple();
  return flatten(pr, nchunks, K);
}

template <class I>
py::tuple regular(const I* idx, std::int64_t nnz, const Geometry& g, bool& dup, py::array& out_idx) {
  const std::int64_t K = g.K;
  Pairs pr;
  int nchunks = 0;
  std::vector<std::int64_t> keys;  // unique output keys, sorted
  {
    py::gil_scoped_release nogil;
    {
      HashIndex inputs(nnz);
      index_inputs(inputs, idx, nnz, g, dup);
    }
    if (!dup) {
      // Candidate output keys per chunk and offset (stored in pr.b for now).
      nchunks = plan_tasks(nnz, kSiteGrain, kChunksPerThread);
      pr.a.resize(static_cast<std::size_t>(nchunks * K));
      pr.b.resize(static_cast<std::size_t>(nchunks * K));
      parallel_chunks(0, nnz, nchunks, [&](int c, std::int64_t b, std::int64_t e) {
        for (std::int64_t i = b; i < e; ++i) {
          const std::int64_t bt = static_cast<std::int64_t>(idx[i]);
          for (std::int64_t k = 0; k < K; ++k) {
            std::int64_t key = bt;
            bool inside = true;
            const std::int64_t* dk = g.disp.data() + k * g.S;
            for (int s = 0; s < g.S && inside; ++s) {
              const auto su = static_cast<std::size_t>(s);
              const std::int64_t t = static_cast<std::int64_t>(idx[(s + 1) * nnz + i]) - dk[s];
              inside = t >= 0 && t % g.stride[su] == 0 && t / g.stride[su] < g.out[su];
              if (inside) key = key * g.out[su] + t / g.stride[su];
            }
            if (!inside) continue;
            pr.a[static_cast<std::size_t>(c * K + k)].push_back(i);
            pr.b[static_cast<std::size_t>(c * K + k)].push_back(key);
          }
        }
      });
      // Unique output keys: one sequential pass through the table (insertion order
      // is the enumeration order, so the set does not depend on the thread count),
      // then sorted so the output is coalesced, and every key given its rank.
      std::int64_t cand = 0;
      for (const auto& v : pr.b) cand += static_cast<std::int64_t>(v.size());
      HashIndex table(std::min<std::int64_t>(cand, 8 * nnz));
      for (const auto& v : pr.b)
        for (std::int64_t key : v) {
          bool inserted;
          table.get_or_insert(key, 0, inserted);
          if (inserted) keys.push_back(key);
        }
      std::sort(keys.begin(), keys.end());
      for (std::size_t r = 0; r < keys.size(); ++r) table.assign(keys[r], static_cast<std::int64_t>(r));
      parallel_for(0, static_cast<std::int64_t>(pr.b.size()), 1, [&](std::int64_t vb, std::int64_t ve) {
        for (std::int64_t v = vb; v < ve; ++v)
          for (auto& key : pr.b[static_cast<std::size_t>(v)]) key = table.find(key);
      });
    }
  }
  if (dup) return py::tuple();
  const auto n_out = static_cast<std::int64_t>(keys.size());
  py::array_t<I> oi({static_cast<py::ssize_t>(g.S + 1), static_cast<py::ssize_t>(n_out)});
  I* op = oi.mutable_data();
  {
    py::gil_scoped_release nogil;
    parallel_for(0, n_out, 1 << 14, [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t r = b; r < e; ++r) {
        std::int64_t rest = keys[static_cast<std::size_t>(r)];
        for (int s = g.S - 1; s >= 0; --s) {
          op[(s + 1) * n_out + r] = static_cast<I>(rest % g.out[static_cast<std::size_t>(s)]);
          rest /= g.out[static_cast<std::size_t>(s)];
        }
        op[r] = static_cast<I>(rest);
      }
    });
  }
  out_idx = oi;
  return flatten(pr, nchunks, K);
}

// -> (out_indices or None, offsets int64 [K+1], in_rows int64 [P], out_rows int64 [P],
//     identity offset or -1), or None when the input has duplicate coordinates.
py::object rulebook(const py::array& indices, std::int64_t batch, const std::vector<std::int64_t>& in_shape,
                    const std::vector<std::int64_t>& kernel, const std::vector<std::int64_t>& stride,
                    const std::vector<std::int64_t>& padding, const std::vector<std::int64_t>& dilation,
                    const std::vector<std::int64_t>& out_shape, bool is_subm) {
  const char* op = is_subm ? "subm_conv" : "conv";
  check_ndim(indices, 2, op, "indices");
  check_dtype(IndexTypes{}, indices, op, "indices");
  check_contiguous(indices, op, "indices");
  Geometry g;
  g.S = static_cast<int>(in_shape.size());
  if (g.S < 1 || g.S > 8) value_error(op, "the spatial shape must have 1 to 8 axes, got ", in_shape.size());
  if (indices.shape(0) != g.S + 1)
    value_error(op, "indices must have ", g.S + 1, " rows (batch + ", g.S, " spatial axes), got ", indices.shape(0));
  if (batch < 0) value_error(op, "batch must be >= 0, got ", batch);
  const auto S = static_cast<std::size_t>(g.S);
  g.batch = batch;
  g.in = int_list(in_shape, S, op, "spatial shape", 0);
  g.out = int_list(out_shape, S, op, "output shape", 0);
  g.kernel = int_list(kernel, S, op, "kernel_size", 1);
  g.stride = int_list(stride, S, op, "stride", 1);
  g.pad = int_list(padding, S, op, "padding", 0);
  g.dil = int_list(dilation, S, op, "dilation", 1);
  g.kstride.assign(S, 1);
  for (int s = g.S - 1; s >= 0; --s) {
    g.kstride[static_cast<std::size_t>(s)] = g.K;
    g.K = checked_mul(g.K, g.kernel[static_cast<std::size_t>(s)], op, "kernel volume");
  }
  if (g.K > (1 << 20)) value_error(op, "kernel volume ", g.K, " is larger than 2**20");
  // Linear keys of input and output sites must fit int64 (with one spare factor for
  // the intermediate key * extent), as must every coordinate arithmetic below.
  std::vector<std::int64_t> full_in{batch}, full_out{batch};
  full_in.insert(full_in.end(), g.in.begin(), g.in.end());
  full_out.insert(full_out.end(), g.out.begin(), g.out.end());
  checked_prod(full_in.begin(), full_in.end(), op, "number of input sites");
  checked_prod(full_out.begin(), full_out.end(), op, "number of output sites");
  for (std::size_t s = 0; s < S; ++s) {
    const std::int64_t reach = checked_mul(g.kernel[s] - 1, g.dil[s], op, "dilation*(kernel-1)");
    checked_add(checked_add(g.in[s], g.pad[s], op, "size + padding"), reach, op, "size + padding + reach");
    checked_mul(g.out[s], g.stride[s], op, "output size * stride");
    if (is_subm && (g.out[s] != g.in[s] || g.stride[s] != 1 || reach % 2 != 0 || g.pad[s] != reach / 2))
      value_error(op, "a submanifold rulebook needs output shape = input shape, stride 1 and padding "
                  "dilation*(kernel-1)/2 on every axis (axis ", s, ")");
  }
  g.disp.resize(static_cast<std::size_t>(g.K) * S);
  for (std::int64_t k = 0; k < g.K; ++k)
    for (std::size_t s = 0; s < S; ++s)  // fits: dil*(kernel-1) and pad are checked above
      g.disp[static_cast<std::size_t>(k) * S + s] = ((k / g.kstride[s]) % g.kernel[s]) * g.dil[s] - g.pad[s];
  const std::int64_t nnz = indices.shape(1);
  // Bounds of every coordinate before any is used as a key.
  dispatch(IndexTypes{}, indices, op, "indices", [&](auto tag) {
    using I = typename decltype(tag)::type;
    const I* p = static_cast<const I*>(indices.data());
    check_index_range(p, nnz, batch, op, "indices[0]", "the batch size");
    for (int s = 0; s < g.S; ++s) {
      const std::string name = cat("indices[", s + 1, "]");
      check_index_range(p + (s + 1) * nnz, nnz, g.in[static_cast<std::size_t>(s)], op, name.c_str(),
                        "the spatial shape");
    }
  });
  bool dup = false;
  py::array out_idx;
  py::tuple pairs = dispatch(IndexTypes{}, indices, op, "indices", [&](auto tag) -> py::tuple {
    using I = typename decltype(tag)::type;
    const I* p = static_cast<const I*>(indices.data());
    return is_subm ? subm(p, nnz, g, dup) : regular(p, nnz, g, dup, out_idx);
  });
  if (dup) return py::none();
  std::int64_t identity = -1;
  if (is_subm) {
    identity = 0;
    for (std::size_t s = 0; s < S; ++s) identity += ((g.kernel[s] - 1) / 2) * g.kstride[s];
  }
  return py::make_tuple(is_subm ? py::object(py::none()) : py::object(out_idx), pairs[0], pairs[1], pairs[2],
                        identity);
}

}  // namespace

void bind_sparse_conv_rulebook(py::module_& m) {
  m.def("sparse_conv_rulebook", &rulebook, py::arg("indices").noconvert(), py::arg("batch"),
        py::arg("in_shape"), py::arg("kernel"), py::arg("stride"), py::arg("padding"), py::arg("dilation"),
        py::arg("out_shape"), py::arg("subm"),
        R"doc(sparse_conv_rulebook(indices, batch, in_shape, kernel, stride, padding, dilation, out_shape, subm)
    -> (out_indices or None, offsets [K+1], in_rows [P], out_rows [P], identity) or None

indices: C-contiguous int32/int64 [1 + S, nnz] (batch row, then S spatial rows); the
other arguments are S-lists of ints (padding = leading padding per axis).  For
kernel offset k (row-major over the kernel axes) the pairs are
in_rows[offsets[k]:offsets[k+1]], out_rows[...] (int64).  subm=True: the output
sites are the input rows (out_indices None; identity = the centre offset, whose
pairs are (i, i)); else out_indices [1 + S, n_out] (indices' dtype) lists every site
reached by a window, sorted row-major, and identity = -1.  Returns None when two
input rows share a coordinate (coalesce first).
)doc");
}

}  // namespace weft
