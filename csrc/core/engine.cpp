// The hot paths of weft.autograd.engine, natively: `apply` (run a primitive's forward
// on the arrays of its Tensor arguments, wrap the result, record the graph node), and
// the two stages of a plain `backward()` pass, `_topo` (order the reachable nodes) and
// `_propagate` (run each node's vjps into its producers' buffers).
//
// The Python functions in weft/autograd/engine.py are the definitions; this file does
// exactly what they do for the cases that dominate small-op code and hands every other
// case, unchanged, to them: apply takes one-output primitives that are not views while
// no forward-mode pass and no saved-tensor hooks are open; the backward stages take
// passes of `backward()` (not weft.grad) without create_graph, batching or blocked
// tensors, over nodes without hooks, retained gradients or packed saved tensors.
// Tensor, Node and Primitive are __slots__ classes: their fields are read and written
// at the offsets of their member descriptors (looked up once, at init), a pointer
// access instead of an attribute lookup each.
//
// Measured on a chain of 600 16-element ops (benchmarks/core.py): Python's apply and
// _record took about 1.5 us an op, this path about 0.3 us.
#include <Python.h>
#include <structmember.h>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "bindings.h"

namespace weft {
namespace {

namespace py = pybind11;

// offsets of __slots__ fields, and the objects the fast path needs
struct Offsets {
  Py_ssize_t data, stop_gradient, grad, node, oidx, version, hooks, name, persistable;
};
struct NodeOffsets {
  Py_ssize_t prim, inputs, edges, params, outs, out_meta, versions, out_versions, hooks,
      retained, packed;
};
struct PrimOffsets {
  Py_ssize_t fwd, save, save_out, n_out, view, vjps;
};

struct State {
  bool ready = false;
  PyTypeObject* tensor = nullptr;
  PyTypeObject* node = nullptr;
  PyTypeObject* ndarray = nullptr;
  PyTypeObject* prim = nullptr;
  PyObject* globals = nullptr;  // engine module dict: _fwd_active, _hook_contexts
  PyObject* mode = nullptr;     // grad_mode.mode (thread-local .enabled)
  PyObject* slow = nullptr;     // the Python apply
  PyObject* asarray = nullptr;  // numpy.asarray
  PyObject* s_fwd_active = nullptr;
  PyObject* s_hook_contexts = nullptr;
  PyObject* s_enabled = nullptr;
  PyObject* s_dtype = nullptr;
  PyObject* s_kind = nullptr;
  PyObject* s_shape = nullptr;
  PyObject* s_data = nullptr;
  PyObject* s_cai = nullptr;
  PyObject* zero = nullptr;  // the int 0
  PyObject* empty_params = nullptr;  // the params of nodes recorded without keywords
  Offsets t{};
  NodeOffsets n{};
  PrimOffsets p{};
};
State S;

inline PyObject*& at(PyObject* o, Py_ssize_t off) {
  return *reinterpret_cast<PyObject**>(reinterpret_cast<char*>(o) + off);
}

// store a new reference into a slot, releasing the old value
inline void put(PyObject* o, Py_ssize_t off, PyObject* v) {
  PyObject* old = at(o, off);
  at(o, off) = v;
  Py_XDECREF(old);
}
inline void put_borrowed(PyObject* o, Py_ssize_t off, PyObject* v) {
  Py_INCREF(v);
  put(o, off, v);
}

bool member_offset(PyTypeObject* type, const char* name, Py_ssize_t* out) {
  PyObject* d = PyDict_GetItemString(type->tp_dict, name);  // borrowed
  if (d == nullptr || Py_TYPE(d) != &PyMemberDescr_Type) return false;
  PyMemberDef* m = reinterpret_cast<PyMemberDescrObject*>(d)->d_member;
  if (m->type != T_OBJECT_EX) return false;
  *out = m->offset;
  return true;
}

// dtype.kind in "fc", cached per dtype object (numpy and CuPy dtypes are numpy dtypes,
// and the common ones are singletons)
struct KindCache {
  PyObject* dtype[8] = {};
  bool fc[8] = {};
  int used = 0;
};
KindCache kinds;

// numpy arrays are read through their C struct (pybind11's proxies of numpy's layout):
// ndim, dims and descr, with no attribute lookups or shape tuples made
inline bool is_ndarray(PyObject* a) { return Py_TYPE(a) == S.ndarray; }
inline char ndarray_kind(PyObject* a) {
  return py::detail::array_descriptor_proxy(py::detail::array_proxy(a)->descr)->kind;
}

// node and leaf pointers as hash keys (objects are 16-byte aligned: drop the zero bits)
struct PtrHash {
  size_t operator()(PyObject* p) const {
    return std::hash<std::uintptr_t>()(reinterpret_cast<std::uintptr_t>(p) >> 4);
  }
};

// 1: floating or complex, 0: not, -1: error
int float_or_complex(PyObject* array) {
  if (is_ndarray(array)) {
    const char k = ndarray_kind(array);
    return k == 'f' || k == 'c';
  }
  PyObject* dt = PyObject_GetAttr(array, S.s_dtype);
  if (dt == nullptr) return -1;
  for (int i = 0; i < kinds.used; ++i)
    if (kinds.dtype[i] == dt) {
      Py_DECREF(dt);
      return kinds.fc[i];
    }
  PyObject* kind = PyObject_GetAttr(dt, S.s_kind);
  if (kind == nullptr || !PyUnicode_Check(kind) || PyUnicode_GET_LENGTH(kind) != 1) {
    Py_XDECREF(kind);
    Py_DECREF(dt);
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "weft apply: dtype.kind is not a character");
    return -1;
  }
  const Py_UCS4 c = PyUnicode_READ_CHAR(kind, 0);
  Py_DECREF(kind);
  const bool fc = c == 'f' || c == 'c';
  if (kinds.used < 8) {  // keeps the reference: dtypes live as long as the process
    kinds.dtype[kinds.used] = dt;
    kinds.fc[kinds.used] = fc;
    ++kinds.used;
  } else {
    Py_DECREF(dt);
  }
  return fc;
}

// truth of a module-level counter / flag; -1 on error
int global_true(PyObject* name) {
  PyObject* v = PyDict_GetItemWithError(S.globals, name);  // borrowed
  if (v == nullptr) return PyErr_Occurred() ? -1 : 0;
  return PyObject_IsTrue(v);
}

PyObject* slow_path(PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  return PyObject_Vectorcall(S.slow, args, nargsf, kwnames);
}

PyObject* new_tensor(PyObject* data /* stolen */) {
  PyObject* t = S.tensor->tp_alloc(S.tensor, 0);
  if (t == nullptr) {
    Py_DECREF(data);
    return nullptr;
  }
  PyObject* version = PyList_New(1);
  if (version == nullptr) {
    Py_DECREF(data);
    Py_DECREF(t);
    return nullptr;
  }
  Py_INCREF(S.zero);
  PyList_SET_ITEM(version, 0, S.zero);
  // the fields of Tensor._wrap, into the fresh (zeroed) object
  at(t, S.t.data) = data;
  at(t, S.t.version) = version;
  for (auto [off, v] : {std::pair{S.t.stop_gradient, Py_True}, {S.t.grad, Py_None},
                        {S.t.node, Py_None}, {S.t.oidx, S.zero}, {S.t.hooks, Py_None},
                        {S.t.name, Py_None}, {S.t.persistable, Py_False}}) {
    Py_INCREF(v);
    at(t, off) = v;
  }
  return t;
}

// (i, counter, counter[0]) for the Tensor argument i
PyObject* version_entry(Py_ssize_t i, PyObject* tensor) {
  PyObject* counter = at(tensor, S.t.version);
  if (counter == nullptr || !PyList_Check(counter) || PyList_GET_SIZE(counter) < 1) {
    PyErr_SetString(PyExc_RuntimeError, "weft apply: a tensor has no version counter");
    return nullptr;
  }
  PyObject* index = PyLong_FromSsize_t(i);  // small ints are cached: no allocation
  if (index == nullptr) return nullptr;
  PyObject* e = PyTuple_Pack(3, index, counter, PyList_GET_ITEM(counter, 0));
  Py_DECREF(index);
  return e;
}

// node.versions: the inputs whose values the rules of the differentiable inputs read
PyObject* saved_versions(PyObject* save, PyObject* const* inputs, Py_ssize_t n,
                         const std::vector<char>& grad_in) {
  std::vector<char> read(static_cast<size_t>(n), 0);
  bool any = false;
  auto mark = [&](PyObject* seq) -> bool {
    PyObject* fast = PySequence_Fast(seq, "weft apply: Primitive.save entries must be sequences");
    if (fast == nullptr) return false;
    for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(fast); ++k) {
      const Py_ssize_t i = PyLong_AsSsize_t(PySequence_Fast_GET_ITEM(fast, k));
      if (i == -1 && PyErr_Occurred()) {
        Py_DECREF(fast);
        return false;
      }
      if (i >= 0 && i < n) {
        read[static_cast<size_t>(i)] = 1;
        any = true;
      } else {
        // an index past the arguments: the Python path raises the IndexError
        PyErr_SetString(PyExc_IndexError, "weft apply: Primitive.save index out of range");
        Py_DECREF(fast);
        return false;
      }
    }
    Py_DECREF(fast);
    return true;
  };
  if (PyDict_Check(save)) {
    for (Py_ssize_t i = 0; i < n; ++i) {
      if (!grad_in[static_cast<size_t>(i)]) continue;
      PyObject* key = PyLong_FromSsize_t(i);
      if (key == nullptr) return nullptr;
      PyObject* v = PyDict_GetItemWithError(save, key);  // borrowed
      Py_DECREF(key);
      if (v == nullptr) {
        if (PyErr_Occurred()) return nullptr;
        continue;
      }
      if (!mark(v)) return nullptr;
    }
  } else if (save != Py_None) {
    if (!mark(save)) return nullptr;
  }
  if (!any) return PyTuple_New(0);
  PyObject* vs = PyList_New(0);
  if (vs == nullptr) return nullptr;
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (!read[static_cast<size_t>(i)] || !PyObject_TypeCheck(inputs[i], S.tensor)) continue;
    PyObject* e = version_entry(i, inputs[i]);
    if (e == nullptr || PyList_Append(vs, e) < 0) {
      Py_XDECREF(e);
      Py_DECREF(vs);
      return nullptr;
    }
    Py_DECREF(e);
  }
  return vs;
}

PyObject* record(PyObject* prim, PyObject* const* inputs, Py_ssize_t n, PyObject* kwnames,
                 PyObject* out, PyObject* t) {
  std::vector<char> grad_in(static_cast<size_t>(n), 0);
  PyObject* edges = PyList_New(n);
  if (edges == nullptr) return nullptr;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* a = inputs[i];
    PyObject* e = Py_None;
    if (PyObject_TypeCheck(a, S.tensor)) {
      const int req = PyObject_Not(at(a, S.t.stop_gradient));
      const int fc = req > 0 ? float_or_complex(at(a, S.t.data)) : 0;
      if (req < 0 || fc < 0) {
        Py_DECREF(edges);
        return nullptr;
      }
      if (fc) {
        e = PyTuple_Pack(2, at(a, S.t.node), at(a, S.t.oidx));
        if (e == nullptr) {
          Py_DECREF(edges);
          return nullptr;
        }
        grad_in[static_cast<size_t>(i)] = 1;
        PyList_SET_ITEM(edges, i, e);
        continue;
      }
    }
    Py_INCREF(e);
    PyList_SET_ITEM(edges, i, e);
  }
  PyObject* node = S.node->tp_alloc(S.node, 0);
  if (node == nullptr) {
    Py_DECREF(edges);
    return nullptr;
  }
  // every slot set before anything can fail, so the node is always complete
  put_borrowed(node, S.n.prim, prim);
  PyObject* ins = PyTuple_New(n);
  // no keyword parameters: one shared empty dict (rules get **params, a copy; nothing
  // writes to a node's params)
  PyObject* params = kwnames != nullptr ? PyDict_New() : (Py_INCREF(S.empty_params), S.empty_params);
  if (ins == nullptr || params == nullptr) {
    Py_XDECREF(ins);
    Py_XDECREF(params);
    Py_DECREF(edges);
    Py_DECREF(node);
    return nullptr;
  }
  for (Py_ssize_t i = 0; i < n; ++i) {
    Py_INCREF(inputs[i]);
    PyTuple_SET_ITEM(ins, i, inputs[i]);
  }
  put(node, S.n.inputs, ins);
  put(node, S.n.edges, edges);
  put(node, S.n.params, params);
  const int save_out = PyObject_IsTrue(at(prim, S.p.save_out));
  if (save_out < 0) {
    Py_DECREF(node);
    return nullptr;
  }
  if (save_out) {
    PyObject* outs = PyTuple_Pack(1, out);
    if (outs == nullptr) {
      Py_DECREF(node);
      return nullptr;
    }
    put(node, S.n.outs, outs);
  } else {
    put_borrowed(node, S.n.outs, Py_None);
  }
  put_borrowed(node, S.n.out_meta, Py_None);
  put_borrowed(node, S.n.hooks, Py_None);
  put_borrowed(node, S.n.retained, Py_None);
  put_borrowed(node, S.n.packed, Py_None);
  PyObject* empty = PyTuple_New(0);
  if (empty == nullptr) {
    Py_DECREF(node);
    return nullptr;
  }
  put_borrowed(node, S.n.out_versions, empty);
  put(node, S.n.versions, empty);
  if (kwnames != nullptr) {
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(kwnames); ++k)
      if (PyDict_SetItem(params, PyTuple_GET_ITEM(kwnames, k), inputs[n + k]) < 0) {
        Py_DECREF(node);
        return nullptr;
      }
  }
  PyObject* vs = saved_versions(at(prim, S.p.save), inputs, n, grad_in);
  if (vs == nullptr) {
    Py_DECREF(node);
    return nullptr;
  }
  put(node, S.n.versions, vs);
  if (save_out) {
    PyObject* e = version_entry(0, t);
    PyObject* ov = e ? PyTuple_Pack(1, e) : nullptr;
    Py_XDECREF(e);
    if (ov == nullptr) {
      Py_DECREF(node);
      return nullptr;
    }
    put(node, S.n.out_versions, ov);
  }
  return node;
}

PyObject* fast_apply(PyObject*, PyObject* const* args, Py_ssize_t nargsf, PyObject* kwnames) {
  const Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  if (!S.ready) return slow_path(args, static_cast<size_t>(nargsf), kwnames);
  if (nargs < 1 || !PyObject_TypeCheck(args[0], S.prim)) {
    PyErr_Format(PyExc_TypeError, "apply: the first argument must be a weft Primitive, got %s",
                 nargs < 1 ? "nothing" : Py_TYPE(args[0])->tp_name);
    return nullptr;
  }
  PyObject* prim = args[0];
  // the cases the Python path handles: forward mode, saved-tensor hooks, views and
  // multi-output primitives
  const int fwd_on = global_true(S.s_fwd_active);
  const int hooks_on = fwd_on ? 0 : global_true(S.s_hook_contexts);
  if (fwd_on < 0 || hooks_on < 0) return nullptr;
  PyObject* n_out = at(prim, S.p.n_out);
  PyObject* view = at(prim, S.p.view);
  PyObject* fwd = at(prim, S.p.fwd);
  if (fwd_on || hooks_on || n_out == nullptr || view == nullptr || fwd == nullptr ||
      !PyLong_CheckExact(n_out) || PyLong_AsLong(n_out) != 1 || view != Py_False)
    return slow_path(args, static_cast<size_t>(nargsf), kwnames);

  const Py_ssize_t n = nargs - 1;
  const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  PyObject* const* inputs = args + 1;
  PyObject* small[8];
  std::vector<PyObject*> big;
  PyObject** stack = small;
  if (n + nkw > 8) {
    big.resize(static_cast<size_t>(n + nkw));
    stack = big.data();
  }
  bool requires = false;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* a = inputs[i];
    if (PyObject_TypeCheck(a, S.tensor)) {
      PyObject* d = at(a, S.t.data);
      PyObject* sg = at(a, S.t.stop_gradient);
      if (d == nullptr || sg == nullptr || at(a, S.t.node) == nullptr ||
          at(a, S.t.oidx) == nullptr || at(a, S.t.version) == nullptr)
        return slow_path(args, static_cast<size_t>(nargsf), kwnames);  // a half-built Tensor
      stack[i] = d;
      if (sg != Py_True) {
        const int no = PyObject_Not(sg);
        if (no < 0) return nullptr;
        requires = requires || no;
      }
    } else {
      stack[i] = a;
    }
  }
  for (Py_ssize_t k = 0; k < nkw; ++k) stack[n + k] = inputs[n + k];
  // the arrays are held for the call (as the Python path's list holds them): the forward
  // may run code that rebinds a tensor's data
  for (Py_ssize_t i = 0; i < n; ++i) Py_INCREF(stack[i]);
  PyObject* out = PyObject_Vectorcall(fwd, stack, static_cast<size_t>(n), kwnames);
  for (Py_ssize_t i = 0; i < n; ++i) Py_DECREF(stack[i]);
  if (out == nullptr) return nullptr;
  if (Py_TYPE(out) != S.ndarray) {
    if (!PyObject_HasAttr(out, S.s_cai)) {
      PyObject* arr = PyObject_CallOneArg(S.asarray, out);
      Py_DECREF(out);
      if (arr == nullptr) return nullptr;
      out = arr;
    }
  }
  if (requires) {
    PyObject* enabled = PyObject_GetAttr(S.mode, S.s_enabled);
    if (enabled == nullptr) {
      Py_DECREF(out);
      return nullptr;
    }
    const int on = PyObject_IsTrue(enabled);
    Py_DECREF(enabled);
    if (on < 0) {
      Py_DECREF(out);
      return nullptr;
    }
    requires = on;
  }
  PyObject* t = new_tensor(out);  // steals out
  if (t == nullptr || !requires) return t;
  const int fc = float_or_complex(out);
  if (fc <= 0) {
    if (fc < 0) Py_CLEAR(t);
    return t;
  }
  PyObject* node = record(prim, inputs, n, kwnames, out, t);
  if (node == nullptr) {
    Py_DECREF(t);
    return nullptr;
  }
  put_borrowed(t, S.t.stop_gradient, Py_False);
  put(t, S.t.node, node);
  return t;
}


// ---------------------------------------------------------------------------------
// backward: _topo and _propagate for plain backward() passes

// a node's edges, or nullptr (no inputs: a freed node is a leaf of the traversal)
inline PyObject* node_edges(PyObject* node) {
  PyObject* ins = at(node, S.n.inputs);
  if (ins == nullptr || ins == Py_None) return nullptr;
  PyObject* e = at(node, S.n.edges);
  return (e != nullptr && PyList_Check(e)) ? e : nullptr;
}

// _topo(root_nodes, blocked) with nothing blocked: reachable nodes, consumers first
PyObject* topo(PyObject*, PyObject* roots) {
  if (!S.ready) {
    PyErr_SetString(PyExc_RuntimeError, "weft: the native engine is not initialised");
    return nullptr;
  }
  PyObject* fast = PySequence_Fast(roots, "topo: roots must be a sequence");
  if (fast == nullptr) return nullptr;
  PyObject* order = PyList_New(0);
  if (order == nullptr) {
    Py_DECREF(fast);
    return nullptr;
  }
  std::unordered_set<PyObject*, PtrHash> seen;
  std::vector<std::pair<PyObject*, Py_ssize_t>> stack;
  bool ok = true;
  for (Py_ssize_t r = 0; ok && r < PySequence_Fast_GET_SIZE(fast); ++r) {
    PyObject* root = PySequence_Fast_GET_ITEM(fast, r);
    if (!PyObject_TypeCheck(root, S.node)) {
      PyErr_SetString(PyExc_TypeError, "topo: roots must be graph nodes");
      ok = false;
      break;
    }
    if (!seen.insert(root).second) continue;
    stack.emplace_back(root, 0);
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      PyObject* edges = node_edges(node);
      const Py_ssize_t ne = edges ? PyList_GET_SIZE(edges) : 0;
      bool pushed = false;
      while (next < ne) {
        PyObject* e = PyList_GET_ITEM(edges, next++);
        if (e == Py_None || !PyTuple_Check(e) || PyTuple_GET_SIZE(e) != 2) continue;
        PyObject* n = PyTuple_GET_ITEM(e, 0);
        if (n == Py_None || !PyObject_TypeCheck(n, S.node)) continue;
        if (seen.insert(n).second) {
          stack.emplace_back(n, 0);
          pushed = true;
          break;
        }
      }
      if (pushed) continue;
      if (PyList_Append(order, node) < 0) {
        ok = false;
        break;
      }
      stack.pop_back();
    }
  }
  Py_DECREF(fast);
  if (!ok || PyList_Reverse(order) < 0) {
    Py_DECREF(order);
    return nullptr;
  }
  return order;
}

PyObject* engine_global(const char* name) {  // borrowed
  PyObject* v = PyDict_GetItemString(S.globals, name);
  if (v == nullptr && !PyErr_Occurred())
    PyErr_Format(PyExc_RuntimeError, "weft: engine.%s is missing", name);
  return v;
}

// node.versions / node.out_versions still current, else engine._version_error raises
bool versions_current(PyObject* node) {
  const Py_ssize_t offs[2] = {S.n.versions, S.n.out_versions};
  const char* what[2] = {"input", "output"};
  for (int k = 0; k < 2; ++k) {
    PyObject* vs = at(node, offs[k]);
    if (vs == nullptr || vs == Py_None) continue;
    PyObject* fast = PySequence_Fast(vs, "node versions must be a sequence");
    if (fast == nullptr) return false;
    for (Py_ssize_t j = 0; j < PySequence_Fast_GET_SIZE(fast); ++j) {
      PyObject* e = PySequence_Fast_GET_ITEM(fast, j);  // (i, counter, v)
      if (!PyTuple_Check(e) || PyTuple_GET_SIZE(e) != 3 || !PyList_Check(PyTuple_GET_ITEM(e, 1)) ||
          PyList_GET_SIZE(PyTuple_GET_ITEM(e, 1)) < 1) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_RuntimeError, "weft: a malformed version record");
        return false;
      }
      PyObject* now = PyList_GET_ITEM(PyTuple_GET_ITEM(e, 1), 0);
      PyObject* then = PyTuple_GET_ITEM(e, 2);
      const int same = PyObject_RichCompareBool(now, then, Py_EQ);
      if (same != 1) {
        if (same == 0) {
          PyObject* err = engine_global("_version_error");
          if (err != nullptr) {
            PyObject* r = PyObject_CallFunction(err, "OsOOO", node, what[k], PyTuple_GET_ITEM(e, 0),
                                                now, then);
            Py_XDECREF(r);
            if (r != nullptr)
              PyErr_SetString(PyExc_RuntimeError, "weft: a tensor needed for gradient computation "
                              "was modified by an inplace operation");
          }
        }
        Py_DECREF(fast);
        return false;
      }
    }
    Py_DECREF(fast);
  }
  return true;
}

// a + b, with None as nothing
PyObject* add_grads(PyObject* a, PyObject* b) {
  if (a == Py_None || a == nullptr) {
    Py_INCREF(b);
    return b;
  }
  return PyNumber_Add(a, b);
}

// gi brought to the shape and dtype of input a (engine._fix_grad unless it already is)
PyObject* fitted(PyObject* gi, PyObject* a) {
  if (Py_TYPE(gi) == S.tensor) {
    PyObject* gd = at(gi, S.t.data);
    PyObject* ad = PyObject_GetAttr(a, S.s_data);  // a may be any tensor type
    if (gd == nullptr || ad == nullptr) {
      Py_XDECREF(ad);
      if (gd == nullptr) PyErr_SetString(PyExc_RuntimeError, "weft: a gradient without data");
      return nullptr;
    }
    if (is_ndarray(gd) && is_ndarray(ad)) {
      const auto* g = py::detail::array_proxy(gd);
      const auto* x = py::detail::array_proxy(ad);
      // the same descr object is the same dtype; different ones are compared below
      const bool fits = g->nd == x->nd && g->descr == x->descr &&
                        std::memcmp(g->dimensions, x->dimensions,
                                    sizeof(*g->dimensions) * static_cast<size_t>(g->nd)) == 0;
      if (fits) {
        Py_DECREF(ad);
        Py_INCREF(gi);
        return gi;
      }
    }
    PyObject* gs = PyObject_GetAttr(gd, S.s_shape);
    PyObject* as = gs ? PyObject_GetAttr(ad, S.s_shape) : nullptr;
    int same = (gs && as) ? PyObject_RichCompareBool(gs, as, Py_EQ) : -1;
    Py_XDECREF(gs);
    Py_XDECREF(as);
    if (same == 1) {
      PyObject* gt = PyObject_GetAttr(gd, S.s_dtype);
      PyObject* at_ = gt ? PyObject_GetAttr(ad, S.s_dtype) : nullptr;
      same = (gt && at_) ? (gt == at_ ? 1 : PyObject_RichCompareBool(gt, at_, Py_EQ)) : -1;
      Py_XDECREF(gt);
      Py_XDECREF(at_);
    }
    Py_DECREF(ad);
    if (same < 0) return nullptr;
    if (same == 1) {
      Py_INCREF(gi);
      return gi;
    }
  }
  PyObject* fix = engine_global("_fix_grad");
  return fix ? PyObject_CallFunctionObjArgs(fix, gi, a, nullptr) : nullptr;
}

// the output cotangent(s) g and saved output(s) ans a node's rules take
bool rule_inputs(PyObject* node, PyObject* prim, PyObject* gs, Py_ssize_t n_out, PyObject** g,
                 PyObject** ans) {
  PyObject* outs = at(node, S.n.outs);
  if (n_out == 1) {
    *g = PyList_GET_ITEM(gs, 0);
    Py_INCREF(*g);
    if (outs == nullptr || outs == Py_None) {
      Py_INCREF(Py_None);
      *ans = Py_None;
      return true;
    }
    PyObject* o = PyTuple_GetItem(outs, 0);
    if (o == nullptr) return false;
    Py_INCREF(o);
    *ans = new_tensor(o);
    return *ans != nullptr;
  }
  PyObject* mat = engine_global("_materialise");
  PyObject* meta = at(node, S.n.out_meta);
  if (mat == nullptr || meta == nullptr || !PyTuple_Check(meta) || PyTuple_GET_SIZE(meta) != n_out) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "weft: a node without output metadata");
    return false;
  }
  PyObject* gt = PyTuple_New(n_out);
  if (gt == nullptr) return false;
  for (Py_ssize_t k = 0; k < n_out; ++k) {
    PyObject* m = PyObject_CallFunctionObjArgs(mat, PyList_GET_ITEM(gs, k), PyTuple_GET_ITEM(meta, k),
                                               node, nullptr);
    if (m == nullptr) {
      Py_DECREF(gt);
      return false;
    }
    PyTuple_SET_ITEM(gt, k, m);
  }
  *g = gt;
  if (outs == nullptr || outs == Py_None) {
    Py_INCREF(Py_None);
    *ans = Py_None;
    return true;
  }
  const Py_ssize_t no = PyTuple_Check(outs) ? PyTuple_GET_SIZE(outs) : -1;
  PyObject* at_ = no >= 0 ? PyTuple_New(no) : nullptr;
  if (at_ == nullptr) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "weft: node outputs are not a tuple");
    Py_CLEAR(*g);
    return false;
  }
  for (Py_ssize_t k = 0; k < no; ++k) {
    PyObject* o = PyTuple_GET_ITEM(outs, k);
    Py_INCREF(o);
    PyObject* t = new_tensor(o);
    if (t == nullptr) {
      Py_DECREF(at_);
      Py_CLEAR(*g);
      return false;
    }
    PyTuple_SET_ITEM(at_, k, t);
  }
  *ans = at_;
  return true;
}

// A pass's cotangent buffers, keyed by node pointer (the nodes stay alive: `order`
// holds every reachable one), and an index of the leaf totals in leaf_acc (which owns
// them): no Python int is made to look a node or a leaf up.
struct Pass {
  std::unordered_map<PyObject*, PyObject*, PtrHash> buffers;  // node -> list (owned)
  std::unordered_map<PyObject*, PyObject*, PtrHash> leaves;   // leaf -> [leaf, total] (borrowed)
  PyObject* leaf_acc = nullptr;                                // id(leaf) -> [leaf, total]

  ~Pass() {
    for (auto& kv : buffers) Py_DECREF(kv.second);
  }
  // the Python buffers dict's entries moved in, and leaf_acc indexed
  bool load(PyObject* py_buffers, PyObject* acc) {
    leaf_acc = acc;
    Py_ssize_t pos = 0;
    PyObject *k, *v;
    while (PyDict_Next(py_buffers, &pos, &k, &v)) {
      void* p = PyLong_AsVoidPtr(k);
      if (p == nullptr && PyErr_Occurred()) return false;
      Py_INCREF(v);
      buffers[static_cast<PyObject*>(p)] = v;
    }
    PyDict_Clear(py_buffers);
    pos = 0;
    while (PyDict_Next(acc, &pos, &k, &v)) {
      if (!PyList_Check(v) || PyList_GET_SIZE(v) != 2) {
        PyErr_SetString(PyExc_RuntimeError, "weft: a malformed leaf total");
        return false;
      }
      leaves[PyList_GET_ITEM(v, 0)] = v;
    }
    return true;
  }
  // what is left goes back into the Python dict (nothing, after a complete pass)
  bool store(PyObject* py_buffers) {
    bool ok = true;
    for (auto& kv : buffers) {
      PyObject* key = ok ? PyLong_FromVoidPtr(kv.first) : nullptr;
      ok = key != nullptr && PyDict_SetItem(py_buffers, key, kv.second) == 0;
      Py_XDECREF(key);
      Py_DECREF(kv.second);
    }
    buffers.clear();
    return ok;
  }
  // buffers[node] taken out (new reference), or nullptr
  PyObject* take(PyObject* node) {
    auto it = buffers.find(node);
    if (it == buffers.end()) return nullptr;
    PyObject* gs = it->second;
    buffers.erase(it);
    return gs;
  }
  bool add_to_leaf(PyObject* a, PyObject* g) {
    auto it = leaves.find(a);
    if (it != leaves.end()) {
      PyObject* entry = it->second;
      PyObject* sum = PyNumber_Add(PyList_GET_ITEM(entry, 1), g);
      return sum != nullptr && PyList_SetItem(entry, 1, sum) == 0;  // steals sum
    }
    PyObject* pair = PyList_New(2);
    PyObject* key = pair ? PyLong_FromVoidPtr(a) : nullptr;
    bool ok = key != nullptr;
    if (ok) {
      Py_INCREF(a);
      PyList_SET_ITEM(pair, 0, a);
      Py_INCREF(g);
      PyList_SET_ITEM(pair, 1, g);
      ok = PyDict_SetItem(leaf_acc, key, pair) == 0;
      if (ok) leaves[a] = pair;
    }
    Py_XDECREF(key);
    Py_XDECREF(pair);
    return ok;
  }
  bool add_to_node(PyObject* an, PyObject* ao, PyObject* g) {
    const Py_ssize_t oi = PyLong_AsSsize_t(ao);
    if (oi == -1 && PyErr_Occurred()) return false;
    auto it = buffers.find(an);
    PyObject* buf;
    if (it == buffers.end()) {
      PyObject* aprim = PyObject_TypeCheck(an, S.node) ? at(an, S.n.prim) : nullptr;
      const Py_ssize_t m = aprim && PyObject_TypeCheck(aprim, S.prim) ? PyLong_AsSsize_t(at(aprim, S.p.n_out)) : -1;
      buf = m > 0 ? PyList_New(m) : nullptr;
      if (buf == nullptr) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "weft: a malformed producer node");
        return false;
      }
      for (Py_ssize_t k = 0; k < m; ++k) {
        Py_INCREF(Py_None);
        PyList_SET_ITEM(buf, k, Py_None);
      }
      buffers[an] = buf;  // owned by the map
    } else {
      buf = it->second;
    }
    if (oi < 0 || oi >= PyList_GET_SIZE(buf)) {
      PyErr_SetString(PyExc_RuntimeError, "weft: an edge to a missing output");
      return false;
    }
    PyObject* sum = add_grads(PyList_GET_ITEM(buf, oi), g);
    return sum != nullptr && PyList_SetItem(buf, oi, sum) == 0;
  }
};

// one node: its rules' cotangents added into the producers' buffers / leaf totals
bool run_node(PyObject* node, PyObject* gs, Pass& pass) {
  PyObject* prim = at(node, S.n.prim);
  PyObject* args = at(node, S.n.inputs);
  PyObject* edges = at(node, S.n.edges);
  PyObject* params = at(node, S.n.params);
  if (prim == nullptr || !PyObject_TypeCheck(prim, S.prim) || args == nullptr || !PyTuple_Check(args) ||
      edges == nullptr || !PyList_Check(edges) || PyList_GET_SIZE(edges) != PyTuple_GET_SIZE(args)) {
    PyErr_SetString(PyExc_RuntimeError, "weft: a malformed graph node");
    return false;
  }
  const Py_ssize_t n_out = PyLong_AsSsize_t(at(prim, S.p.n_out));
  if (n_out < 1 || !PyList_Check(gs) || PyList_GET_SIZE(gs) != n_out) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "weft: a malformed cotangent buffer");
    return false;
  }
  PyObject* vjps = at(prim, S.p.vjps);
  if (vjps == nullptr || !PyTuple_Check(vjps)) {
    PyErr_SetString(PyExc_RuntimeError, "weft: Primitive.vjps must be a tuple");
    return false;
  }
  PyObject *g = nullptr, *ans = nullptr;
  if (!rule_inputs(node, prim, gs, n_out, &g, &ans)) return false;
  // the node's fields may be cleared by the caller afterwards: hold what the loop reads
  Py_INCREF(args);
  Py_INCREF(edges);
  Py_XINCREF(params);
  const Py_ssize_t n = PyTuple_GET_SIZE(args);
  std::vector<PyObject*> stack(static_cast<size_t>(n + 2));
  stack[0] = g;
  stack[1] = ans;
  for (Py_ssize_t i = 0; i < n; ++i) stack[static_cast<size_t>(i + 2)] = PyTuple_GET_ITEM(args, i);
  const bool kw = params != nullptr && PyDict_Check(params) && PyDict_GET_SIZE(params) > 0;
  bool ok = true;
  for (Py_ssize_t i = 0; ok && i < n; ++i) {
    PyObject* e = PyList_GET_ITEM(edges, i);
    if (e == Py_None) continue;
    if (!PyTuple_Check(e) || PyTuple_GET_SIZE(e) != 2) {
      PyErr_SetString(PyExc_RuntimeError, "weft: a malformed graph edge");
      ok = false;
      break;
    }
    PyObject* an = PyTuple_GET_ITEM(e, 0);
    PyObject* ao = PyTuple_GET_ITEM(e, 1);
    PyObject* rule = i < PyTuple_GET_SIZE(vjps) ? PyTuple_GET_ITEM(vjps, i) : Py_None;
    if (rule == Py_None) {
      PyObject* name = PyObject_GetAttrString(prim, "name");
      if (name != nullptr)
        PyErr_Format(PyExc_RuntimeError, "%S is not differentiable with respect to input %zd", name, i);
      Py_XDECREF(name);
      ok = false;
      break;
    }
    PyObject* gi = kw ? PyObject_VectorcallDict(rule, stack.data(), static_cast<size_t>(n + 2), params)
                      : PyObject_Vectorcall(rule, stack.data(), static_cast<size_t>(n + 2), nullptr);
    if (gi == nullptr) {
      ok = false;
      break;
    }
    if (gi == Py_None) {
      Py_DECREF(gi);
      continue;
    }
    PyObject* a = PyTuple_GET_ITEM(args, i);
    PyObject* fit = fitted(gi, a);
    Py_DECREF(gi);
    if (fit == nullptr) {
      ok = false;
      break;
    }
    ok = an == Py_None ? pass.add_to_leaf(a, fit) : pass.add_to_node(an, ao, fit);
    Py_DECREF(fit);
  }
  Py_DECREF(args);
  Py_DECREF(edges);
  Py_XDECREF(params);
  Py_DECREF(g);
  Py_DECREF(ans);
  return ok;
}

// _propagate(p, order) for a plain backward() pass (the caller checked the pass):
// False, having done nothing, when a node needs what only the Python loop does
PyObject* propagate(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (!S.ready || nargs != 4 || !PyDict_Check(args[0]) || !PyDict_Check(args[1]) ||
      !PyList_Check(args[2])) {
    PyErr_SetString(PyExc_TypeError, "propagate(buffers: dict, leaf_acc: dict, order: list, "
                    "retain_graph: bool)");
    return nullptr;
  }
  PyObject* buffers = args[0];
  PyObject* leaf_acc = args[1];
  PyObject* order = args[2];
  const int retain = PyObject_IsTrue(args[3]);
  if (retain < 0) return nullptr;
  const Py_ssize_t n = PyList_GET_SIZE(order);
  for (Py_ssize_t k = 0; k < n; ++k) {
    PyObject* node = PyList_GET_ITEM(order, k);
    if (!PyObject_TypeCheck(node, S.node)) Py_RETURN_FALSE;
    for (Py_ssize_t off : {S.n.hooks, S.n.retained, S.n.packed}) {
      PyObject* v = at(node, off);
      if (v != nullptr && v != Py_None) Py_RETURN_FALSE;
    }
  }
  Pass pass;
  if (!pass.load(buffers, leaf_acc)) return nullptr;
  Py_INCREF(order);  // rules may run arbitrary code
  bool ok = true;
  for (Py_ssize_t k = 0; ok && k < n; ++k) {
    PyObject* node = PyList_GET_ITEM(order, k);
    PyObject* gs = pass.take(node);  // a new reference, or none for this node
    if (gs == nullptr) continue;
    PyObject* ins = at(node, S.n.inputs);
    if (ins == nullptr || ins == Py_None) {
      PyObject* cls = engine_global("GraphFreedError");
      PyObject* name = PyObject_GetAttrString(at(node, S.n.prim), "name");
      if (cls != nullptr && name != nullptr)
        PyErr_Format(cls, "trying to run backward through %S a second time, but its saved tensors "
                     "were already freed; pass retain_graph=True to the first backward (or weft.grad) "
                     "to keep the graph", name);
      Py_XDECREF(name);
      ok = false;
    }
    ok = ok && versions_current(node) && run_node(node, gs, pass);
    Py_DECREF(gs);
    if (ok && !retain) {
      for (Py_ssize_t off : {S.n.inputs, S.n.edges, S.n.outs, S.n.params, S.n.packed})
        put_borrowed(node, off, Py_None);
    }
  }
  if (ok && !pass.store(buffers)) ok = false;  // after an error the pass is abandoned
  Py_DECREF(order);
  if (!ok) return nullptr;
  Py_RETURN_TRUE;
}


// ---------------------------------------------------------------------------------
// Tensor's arithmetic operators: the fast cases of ufuncs._binary's `op` (two numpy
// tensors of one dtype, or a float/complex numpy tensor and a Python float or int,
// whose weak-scalar result keeps the tensor's dtype), straight into apply; every other
// case calls the Python op, which is the definition.

struct BinaryOp {
  PyObject* prim = nullptr;
  PyObject* op = nullptr;  // the Python function (ufuncs.add, ...)
  bool float_result = false;
};
BinaryOp binary_ops[4];  // add, subtract, multiply, divide

inline bool is_py_number(PyObject* v) { return PyFloat_CheckExact(v) || PyLong_CheckExact(v); }

PyObject* call_binary(const BinaryOp& b, PyObject* x, PyObject* y) {
  bool fast = false;
  if (Py_TYPE(x) == S.tensor) {
    PyObject* xd = at(x, S.t.data);
    if (xd != nullptr && is_ndarray(xd)) {
      if (Py_TYPE(y) == S.tensor) {
        PyObject* yd = at(y, S.t.data);
        if (yd != nullptr && is_ndarray(yd) &&
            py::detail::array_proxy(xd)->descr == py::detail::array_proxy(yd)->descr) {
          const char k = ndarray_kind(xd);
          fast = !b.float_result || k == 'f' || k == 'c';
        }
      } else if (is_py_number(y)) {
        const char k = ndarray_kind(xd);
        fast = k == 'f' || k == 'c';
      }
    }
  } else if (is_py_number(x) && Py_TYPE(y) == S.tensor) {
    PyObject* yd = at(y, S.t.data);
    if (yd != nullptr && is_ndarray(yd)) {
      const char k = ndarray_kind(yd);
      fast = k == 'f' || k == 'c';
    }
  }
  if (fast) {
    PyObject* args[3] = {b.prim, x, y};
    return fast_apply(nullptr, args, 3, nullptr);
  }
  PyObject* args[2] = {x, y};
  return PyObject_Vectorcall(b.op, args, 2, nullptr);
}

template <int K, bool Reflected>
PyObject* binary_method(PyObject* self, PyObject* other) {
  return Reflected ? call_binary(binary_ops[K], other, self) : call_binary(binary_ops[K], self, other);
}

PyMethodDef operator_defs[] = {
    {"__add__", binary_method<0, false>, METH_O, "self + other (weft.add)"},
    {"__radd__", binary_method<0, true>, METH_O, "other + self (weft.add)"},
    {"__sub__", binary_method<1, false>, METH_O, "self - other (weft.subtract)"},
    {"__rsub__", binary_method<1, true>, METH_O, "other - self (weft.subtract)"},
    {"__mul__", binary_method<2, false>, METH_O, "self * other (weft.multiply)"},
    {"__rmul__", binary_method<2, true>, METH_O, "other * self (weft.multiply)"},
    {"__truediv__", binary_method<3, false>, METH_O, "self / other (weft.divide)"},
    {"__rtruediv__", binary_method<3, true>, METH_O, "other / self (weft.divide)"},
};

// {name: method descriptor of Tensor} for the eight operators above, given the four
// Python ops and their primitives (after autograd_apply_init)
py::dict operators(py::sequence ops, py::sequence prims, py::sequence float_results) {
  if (!S.ready) throw py::value_error("autograd_operators: autograd_apply_init has not succeeded");
  if (py::len(ops) != 4 || py::len(prims) != 4 || py::len(float_results) != 4)
    throw py::value_error("autograd_operators: give add, subtract, multiply and divide");
  for (size_t k = 0; k < 4; ++k) {  // all checked before any is kept
    if (!PyObject_TypeCheck(py::object(prims[k]).ptr(), S.prim))
      throw py::type_error("autograd_operators: prims must be weft Primitives");
    if (!PyCallable_Check(py::object(ops[k]).ptr()))
      throw py::type_error("autograd_operators: ops must be callable");
  }
  for (size_t k = 0; k < 4; ++k) {
    Py_XSETREF(binary_ops[k].prim, py::object(prims[k]).release().ptr());
    Py_XSETREF(binary_ops[k].op, py::object(ops[k]).release().ptr());
    binary_ops[k].float_result = PyObject_IsTrue(py::object(float_results[k]).ptr()) == 1;
  }
  py::dict out;
  for (auto& def : operator_defs) {
    PyObject* d = PyDescr_NewMethod(S.tensor, &def);
    if (d == nullptr) throw py::error_already_set();
    out[def.ml_name] = py::reinterpret_steal<py::object>(d);
  }
  return out;
}

PyMethodDef methods[] = {
    {"autograd_apply", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(fast_apply)),
     METH_FASTCALL | METH_KEYWORDS,
     "apply(prim, *args, **params): weft.autograd.engine.apply, natively for one-output "
     "primitives (see autograd_apply_init)."},
    {"autograd_topo", reinterpret_cast<PyCFunction>(topo), METH_O,
     "topo(root_nodes): weft.autograd.engine._topo with nothing blocked."},
    {"autograd_propagate", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(propagate)),
     METH_FASTCALL,
     "propagate(buffers, leaf_acc, order, retain_graph): weft.autograd.engine._propagate for a "
     "plain backward() pass; False (nothing done) where a node needs the Python loop."},
    {nullptr, nullptr, 0, nullptr}};

// Reads the slot offsets; false (and the Python apply stays in use) where a class is not
// laid out as expected.
bool init(py::object tensor, py::object node, py::object prim, py::object ndarray,
          py::dict globals, py::object mode, py::object slow, py::object asarray) {
  if (!PyType_Check(tensor.ptr()) || !PyType_Check(node.ptr()) || !PyType_Check(prim.ptr()) ||
      !PyType_Check(ndarray.ptr()))
    return false;
  auto* tt = reinterpret_cast<PyTypeObject*>(tensor.ptr());
  auto* nt = reinterpret_cast<PyTypeObject*>(node.ptr());
  auto* pt = reinterpret_cast<PyTypeObject*>(prim.ptr());
  Offsets t{};
  NodeOffsets n{};
  PrimOffsets p{};
  const bool ok =
      member_offset(tt, "_data", &t.data) && member_offset(tt, "stop_gradient", &t.stop_gradient) &&
      member_offset(tt, "_grad", &t.grad) && member_offset(tt, "_node", &t.node) &&
      member_offset(tt, "_oidx", &t.oidx) && member_offset(tt, "_version", &t.version) &&
      member_offset(tt, "_hooks", &t.hooks) && member_offset(tt, "name", &t.name) &&
      member_offset(tt, "persistable", &t.persistable) && member_offset(nt, "prim", &n.prim) &&
      member_offset(nt, "inputs", &n.inputs) && member_offset(nt, "edges", &n.edges) &&
      member_offset(nt, "params", &n.params) && member_offset(nt, "outs", &n.outs) &&
      member_offset(nt, "out_meta", &n.out_meta) && member_offset(nt, "versions", &n.versions) &&
      member_offset(nt, "out_versions", &n.out_versions) && member_offset(nt, "hooks", &n.hooks) &&
      member_offset(nt, "retained", &n.retained) && member_offset(nt, "packed", &n.packed) &&
      member_offset(pt, "fwd", &p.fwd) && member_offset(pt, "save", &p.save) &&
      member_offset(pt, "save_out", &p.save_out) && member_offset(pt, "n_out", &p.n_out) &&
      member_offset(pt, "view", &p.view) && member_offset(pt, "vjps", &p.vjps);
  // Tensor subclasses (Parameter) are accepted by the type check; the Tensor base itself
  // must not carry a __dict__, or its fields could be shadowed
  if (!ok || tt->tp_dictoffset != 0 || nt->tp_dictoffset != 0 || pt->tp_dictoffset != 0)
    return false;
  S.t = t;
  S.n = n;
  S.p = p;
  auto keep = [](PyObject*& slot_, PyObject* v) {
    Py_XINCREF(v);
    Py_XSETREF(slot_, v);
  };
  PyObject* o = nullptr;
  o = reinterpret_cast<PyObject*>(S.tensor);
  keep(o, tensor.ptr());
  S.tensor = tt;
  o = reinterpret_cast<PyObject*>(S.node);
  keep(o, node.ptr());
  S.node = nt;
  o = reinterpret_cast<PyObject*>(S.ndarray);
  keep(o, ndarray.ptr());
  S.ndarray = reinterpret_cast<PyTypeObject*>(ndarray.ptr());
  o = reinterpret_cast<PyObject*>(S.prim);
  keep(o, prim.ptr());
  S.prim = pt;
  keep(S.globals, globals.ptr());
  keep(S.mode, mode.ptr());
  keep(S.slow, slow.ptr());
  keep(S.asarray, asarray.ptr());
  if (S.s_fwd_active == nullptr) {
    S.s_fwd_active = PyUnicode_InternFromString("_fwd_active");
    S.s_hook_contexts = PyUnicode_InternFromString("_hook_contexts");
    S.s_enabled = PyUnicode_InternFromString("enabled");
    S.s_dtype = PyUnicode_InternFromString("dtype");
    S.s_kind = PyUnicode_InternFromString("kind");
    S.s_shape = PyUnicode_InternFromString("shape");
    S.s_data = PyUnicode_InternFromString("_data");
    S.s_cai = PyUnicode_InternFromString("__cuda_array_interface__");
    S.zero = PyLong_FromLong(0);
    S.empty_params = PyDict_New();
    if (!S.s_fwd_active || !S.s_hook_contexts || !S.s_enabled || !S.s_dtype || !S.s_kind || !S.s_shape || !S.s_data ||
        !S.s_cai || !S.zero || !S.empty_params)
      throw py::error_already_set();
  }
  S.ready = true;
  return true;
}

}  // namespace

void bind_autograd_apply(py::module_& m) {
  if (PyModule_AddFunctions(m.ptr(), methods) < 0) throw py::error_already_set();
  m.def("autograd_operators", &operators, py::arg("ops"), py::arg("prims"), py::arg("float_results"),
        "Tensor's + - * / (and reflected) as native method descriptors: the fast cases of the "
        "given Python ops straight into apply, the rest through those ops.");
  m.def("autograd_apply_init", &init, py::arg("tensor"), py::arg("node"), py::arg("primitive"),
        py::arg("ndarray"), py::arg("engine_globals"), py::arg("mode"), py::arg("slow_apply"),
        py::arg("asarray"),
        "Enable the native apply: reads the __slots__ layout of Tensor, Node and Primitive; "
        "returns False (nothing enabled) where it is not the expected one.");
}

}  // namespace weft
