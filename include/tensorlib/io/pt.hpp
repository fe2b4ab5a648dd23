#pragma once
/// \file
/// PyTorch's `torch.save` files (.pt, .pth): `tl::io::pt::save(obj, path)`
/// writes them and `tl::io::pt::load(path)` reads
/// any object of tensors, containers and numbers (a state dict, a training
/// checkpoint {"model": ..., "optimizer": ..., "epoch": 3}) as a
/// `PickleValue`, and `load_state_dict(path)` a saved `model.state_dict()`:
///
///     model.load_state_dict(tl::io::pt::load_state_dict("resnet.pth"));
///     auto ckpt = tl::io::pt::load("ckpt.pt");
///     model.load_state_dict(ckpt["model"].to_state_dict());
///     int64_t epoch = ckpt["epoch"].to_int();
///
/// Note [torch.save layout]
/// Since PyTorch 1.6 a file is a ZIP archive (Note [zip layout]) of stored
/// entries under one folder, `<name>/`: `data.pkl`, the object pickled with
/// protocol 2; `data/<key>`, the bytes of each storage; `version`; and,
/// since 2.1, `byteorder` ("little" or "big"). A tensor is pickled as a call
/// of `torch._utils._rebuild_tensor_v2(storage, storage_offset, size,
/// stride, requires_grad, backward_hooks[, metadata])`, whose storage is a
/// persistent id ('storage', torch.FloatStorage, key, location, numel); an
/// `nn.Parameter` as `_rebuild_parameter(tensor, requires_grad, hooks)`; a
/// state dict as an `OrderedDict` whose `_metadata` attribute (module
/// versions) is dropped; a `collections.Counter` (a MultiStepLR's
/// milestones) as the dict it counts. The reader allows those globals, the dtypes and
/// `torch.device` (read as its string) only (Note [restricted unpickling]),
/// a subset of what `torch.load(f, weights_only=True)` accepts, without its
/// `map_location`: tensors are loaded on the CPU, and tensors of one storage
/// are views of one buffer, as in PyTorch. Writing gives the same layout
/// with "archive/" as the folder, each distinct tensor a storage of its own.
/// The legacy format (before 1.6, a bare pickle stream), the element types
/// tensorlib lacks (int8, int16, complex), and quantized, sparse, nested or
/// subclassed tensors give a `NotImplementedError`; any other global, and a
/// damaged file, a `ValueError`.

#include <bit>
#include <climits>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "tensorlib/core/any_tensor.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/io/pickle_value.hpp"
#include "tensorlib/io/pickler.hpp"
#include "tensorlib/io/safetensors.hpp"
#include "tensorlib/io/unpickler.hpp"
#include "tensorlib/io/zip_reader.hpp"
#include "tensorlib/io/zip_writer.hpp"
#include "tensorlib/nn/state_dict.hpp"
#include "tensorlib/ops/views.hpp"

namespace tensorlib::io {

namespace detail {

/// PyTorch's storage classes: the global, its dtype's name, and tensorlib's
/// element type (none for the types tensorlib lacks). Read both ways: by
/// the reader from the global, by the writer from the element type.
struct TorchStorageRow {
  std::string_view storage, dtype;
  std::optional<ScalarType> type;
};
inline constexpr TorchStorageRow torch_storage_rows[] = {
    {"torch.FloatStorage", "torch.float32", ScalarType::Float32},
    {"torch.DoubleStorage", "torch.float64", ScalarType::Float64},
    {"torch.HalfStorage", "torch.float16", ScalarType::Float16},
    {"torch.BFloat16Storage", "torch.bfloat16", ScalarType::BFloat16},
    {"torch.LongStorage", "torch.int64", ScalarType::Int64},
    {"torch.IntStorage", "torch.int32", ScalarType::Int32},
    {"torch.ByteStorage", "torch.uint8", ScalarType::UInt8},
    {"torch.BoolStorage", "torch.bool", ScalarType::Bool},
    {"torch.ShortStorage", "torch.int16", std::nullopt},
    {"torch.CharStorage", "torch.int8", std::nullopt},
    {"torch.ComplexFloatStorage", "torch.complex64", std::nullopt},
    {"torch.ComplexDoubleStorage", "torch.complex128", std::nullopt},
    {"torch.QInt8Storage", "torch.qint8", std::nullopt},
    {"torch.QUInt8Storage", "torch.quint8", std::nullopt},
    {"torch.QInt32Storage", "torch.qint32", std::nullopt},
};

/// The row of storage global `global` ("torch.FloatStorage"), or null.
inline const TorchStorageRow* torch_storage_row(std::string_view global) {
  for (const TorchStorageRow& r : torch_storage_rows)
    if (r.storage == global) return &r;
  return nullptr;
}

/// The storage class name ("FloatStorage") of element type `t`.
inline std::string_view torch_storage_name(ScalarType t) {
  for (const TorchStorageRow& r : torch_storage_rows)
    if (r.type == t) return r.storage.substr(std::string_view("torch.").size());
  throw TypeError("torch.save: unknown dtype");
}

/// The globals a torch.save file may name (Note [torch.save layout]).
inline bool torch_global_allowed(const std::string& name) {
  static constexpr std::string_view calls[] = {
      "collections.OrderedDict", "collections.Counter", "torch._utils._rebuild_tensor_v2",
      "torch._utils._rebuild_parameter", "torch._utils._rebuild_parameter_with_state", "torch.Size", "torch.device",
      // Read only to say what is not supported (call() refuses them):
      "torch._utils._rebuild_qtensor", "torch._utils._rebuild_sparse_tensor", "torch._utils._rebuild_nested_tensor",
      "torch._utils._rebuild_tensor_v3", "torch._utils._rebuild_wrapper_subclass",
      "torch._tensor._rebuild_from_type_v2", "torch.per_tensor_affine", "torch.per_channel_affine",
      "torch.per_channel_affine_float_qparams"};
  static constexpr std::string_view dtypes[] = {"torch.float32", "torch.float64", "torch.float16",   "torch.bfloat16",
                                                "torch.int64",   "torch.int32",   "torch.int16",     "torch.int8",
                                                "torch.uint8",   "torch.bool",    "torch.complex64", "torch.complex128",
                                                "torch.qint8",   "torch.quint8",  "torch.qint32"};
  for (std::string_view c : calls)
    if (c == name) return true;
  for (std::string_view d : dtypes)
    if (d == name) return true;
  return torch_storage_row(name) != nullptr;
}

/// Reads a torch.save archive (Note [torch.save layout]).
class TorchFileReader {
 public:
  TorchFileReader(std::string_view bytes, std::string what) : what_(std::move(what)), zip_(open(bytes, what_)) {}

  PickleValue load() {
    const ZipEntry* pickle = nullptr;
    for (const ZipEntry& e : zip_.entries()) {
      const auto slash = e.name.find('/');
      if (slash != std::string::npos && e.name.compare(slash, std::string::npos, "/data.pkl") == 0) {
        check(pickle == nullptr, "two data.pkl entries");
        pickle = &e;
        prefix_ = e.name.substr(0, slash + 1);
      }
    }
    check(pickle != nullptr, "no <name>/data.pkl entry: not a torch.save archive");
    if (const ZipEntry* order = zip_.find(prefix_ + "byteorder")) {
      const std::string_view o = zip_.read(*order);
      tensorlib::detail::check<NotImplementedError>(o == "little", what_, ": saved with byte order '", o,
                                                    "'; only little-endian files are read");
    }
    UnpicklerHooks hooks;
    hooks.allow = torch_global_allowed;
    hooks.call = [this](const std::string& name, const std::vector<PickleValue>& args) { return call(name, args); };
    hooks.persistent_load = [this](const PickleValue& pid) { return storage(pid); };
    return Unpickler(zip_.read(*pickle), std::move(hooks), what_ + ": data.pkl").load();
  }

 private:
  template <class... Args>
  void check(bool ok, const Args&... args) const {
    tensorlib::detail::check<ValueError>(ok, what_, ": ", args...);
  }

  static ZipReader open(std::string_view bytes, const std::string& what) {
    // The legacy format starts with a pickled magic number (LONG1 of
    // 0x1950a86a20f9469cfc6c), after PROTO and, from protocol 4, a FRAME.
    constexpr std::string_view legacy("\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19", 12);
    tensorlib::detail::check<NotImplementedError>(bytes.substr(0, 32).find(legacy) == std::string_view::npos, what,
                                                  ": the legacy torch.save format (PyTorch before 1.6) is not read; "
                                                  "load and save it again with a newer PyTorch");
    tensorlib::detail::check<ValueError>(bytes.substr(0, 4) == std::string_view("PK\x03\x04", 4), what,
                                         ": not a torch.save file (no ZIP signature)");
    return ZipReader(bytes, what);
  }

  /// A persistent id ('storage', torch.<T>Storage, key, location, numel):
  /// the storage's elements as a 1-D tensor, read once per key.
  PickleValue storage(const PickleValue& pid) {
    check(pid.kind() == PickleValue::Kind::Tuple && pid.items().size() == 5 &&
              pid.items()[0].kind() == PickleValue::Kind::String && pid.items()[0].to_string() == "storage" &&
              pid.items()[1].kind() == PickleValue::Kind::Global &&
              pid.items()[2].kind() == PickleValue::Kind::String && pid.items()[4].kind() == PickleValue::Kind::Int,
          "a persistent id that is not ('storage', type, key, location, numel)");
    const auto& items = pid.items();
    const TorchStorageRow* found = torch_storage_row(items[1].global_name());
    check(found != nullptr, "a persistent id whose type ", items[1].global_name(), " is not a storage class");
    const TorchStorageRow& row = *found;
    tensorlib::detail::check<NotImplementedError>(row.type.has_value(), what_, ": a storage of ", row.dtype,
                                                  ", which tensorlib has no element type for");
    const ScalarType type = *row.type;
    const std::string_view torch_name = row.dtype;
    const std::string& key = items[2].to_string();
    const int64_t numel = items[4].to_int();
    check(numel >= 0 && numel <= INT64_MAX / 8, "storage '", key, "' has ", numel, " elements");
    if (const auto it = storages_.find(key); it != storages_.end()) {
      if (numel == 0 && it->second.numel() == 0) {  // PyTorch lets empty storages differ in type
        AnyTensor empty = empty_of(type, Shape{0});
        storage_impls_.insert(empty.impl().get());
        return PickleValue::tensor(std::move(empty));
      }
      check(it->second.dtype() == type && it->second.numel() == numel, "storage '", key,
            "' is read with two types or sizes");
      return PickleValue::tensor(it->second);
    }
    const ZipEntry* entry = zip_.find(prefix_ + "data/" + key);
    check(entry != nullptr, "storage '", key, "' has no data/", key, " entry");
    const uint64_t bytes = static_cast<uint64_t>(numel) * static_cast<uint64_t>(element_size(type));
    check(entry->size == bytes, "storage '", key, "' holds ", entry->size, " bytes, but ", numel, " elements of ",
          torch_name, " need ", bytes);
    AnyTensor t = empty_of(type, Shape{numel});
    if (bytes) copy_elements(t, zip_.read(*entry).data(), bytes);
    storages_.emplace(key, t);
    storage_impls_.insert(t.impl().get());
    return PickleValue::tensor(std::move(t));
  }

  /// The shape or strides tuple `v` of `_rebuild_tensor_v2`.
  Shape dims(const PickleValue& v, const char* what) const {
    check(v.kind() == PickleValue::Kind::Tuple, "a tensor's ", what, " is a ", v.kind_name());
    check(v.items().size() <= static_cast<std::size_t>(Shape::kMaxDims), "a tensor has ", v.items().size(),
          " dimensions, more than ", Shape::kMaxDims);
    Shape out;
    for (const PickleValue& d : v.items()) {
      check(d.kind() == PickleValue::Kind::Int && d.to_int() >= 0, "a tensor's ", what,
            " holds a value that is not a non-negative int");
      out.push_back(d.to_int());
    }
    return out;
  }

  PickleValue rebuild_tensor(const std::vector<PickleValue>& args) {
    check(args.size() == 6 || args.size() == 7, "_rebuild_tensor_v2 with ", args.size(), " arguments");
    check(args[0].kind() == PickleValue::Kind::Tensor && storage_impls_.count(args[0].to_tensor().impl().get()) &&
              args[1].kind() == PickleValue::Kind::Int && args[4].kind() == PickleValue::Kind::Bool,
          "_rebuild_tensor_v2 arguments of the wrong types");
    const AnyTensor& storage = args[0].to_tensor();
    const int64_t offset = args[1].to_int();
    const Shape sizes = dims(args[2], "size"), strides = dims(args[3], "stride");
    check(sizes.size() == strides.size(), "a tensor's size and stride differ in length");
    // The elements reached must lie in the storage.
    int64_t last = offset, numel = 1;
    bool overflow = offset < 0;
    for (int64_t d = 0; d < sizes.size(); ++d) {
      if (__builtin_mul_overflow(numel, sizes[d], &numel)) overflow = true;
      int64_t reach = 0;
      if (sizes[d] > 0 &&
          (__builtin_mul_overflow(sizes[d] - 1, strides[d], &reach) || __builtin_add_overflow(last, reach, &last)))
        overflow = true;
    }
    check(!overflow && (numel == 0 || last < storage.numel()), "a tensor of size ", sizes, ", stride ", strides,
          " and offset ", offset, " reaches past its storage of ", storage.numel(), " elements");
    AnyTensor t = storage.visit([&](const auto& s) -> AnyTensor { return s.as_strided(sizes, strides, offset); });
    return PickleValue::tensor(with_requires_grad(t, args[4].to_bool()));
  }

  /// `t`, or where asked and autograd follows its type (float and double;
  /// the flag of other types is dropped) a new alias of it that requires
  /// grad (`t` may be shared).
  static AnyTensor with_requires_grad(AnyTensor t, bool requires_grad) {
    if (!requires_grad) return t;
    if (t.is<float>()) return t.as<float>().detach().requires_grad_();
    if (t.is<double>()) return t.as<double>().detach().requires_grad_();
    return t;
  }

  PickleValue call(const std::string& name, const std::vector<PickleValue>& args) {
    if (name == "collections.OrderedDict") {
      check(args.empty(), "OrderedDict called with arguments");
      return PickleValue::dict();
    }
    if (name == "collections.Counter") {  // a dict of counts (MultiStepLR's milestones)
      check(args.empty() || (args.size() == 1 && args[0].kind() == PickleValue::Kind::Dict),
            "Counter called with arguments other than one dict");
      return args.empty() ? PickleValue::dict() : args[0];
    }
    if (name == "torch._utils._rebuild_tensor_v2") return rebuild_tensor(args);
    if (name == "torch._utils._rebuild_parameter" || name == "torch._utils._rebuild_parameter_with_state") {
      check(
          args.size() >= 2 && args[0].kind() == PickleValue::Kind::Tensor && args[1].kind() == PickleValue::Kind::Bool,
          "_rebuild_parameter arguments of the wrong types");
      return PickleValue::tensor(with_requires_grad(args[0].to_tensor(), args[1].to_bool()));
    }
    if (name == "torch.Size") {
      check(args.size() == 1 && args[0].kind() == PickleValue::Kind::Tuple, "torch.Size of a non-tuple");
      return args[0];
    }
    if (name == "torch.device") {  // read as its string, "cuda:0"
      check(!args.empty() && args.size() <= 2 && args[0].kind() == PickleValue::Kind::String &&
                (args.size() == 1 || args[1].kind() == PickleValue::Kind::Int),
            "torch.device arguments of the wrong types");
      return PickleValue::string(args[0].to_string() +
                                 (args.size() == 2 ? ":" + std::to_string(args[1].to_int()) : std::string()));
    }
    const bool known = name.starts_with("torch._utils._rebuild_") || name == "torch._tensor._rebuild_from_type_v2";
    tensorlib::detail::check<NotImplementedError>(!known, what_, ": ", name,
                                                  " (quantized, sparse, nested or subclassed tensors, or a tensor "
                                                  "format newer than _rebuild_tensor_v2) is not read");
    check(false, "'", name, "' cannot be called");
    return {};
  }

  std::string what_;
  ZipReader zip_;
  std::string prefix_;
  std::map<std::string, AnyTensor> storages_;
  std::unordered_set<const TensorImpl*> storage_impls_;  // what _rebuild_tensor_v2 may view
};

/// Writes a torch.save archive: each distinct tensor (by identity) as a
/// contiguous storage of its own.
class TorchFileWriter {
 public:
  std::string write(const PickleValue& obj) {
    Pickler pickler([this](Pickler& p, const AnyTensor& t) { tensor(p, t); });
    pickler.value(obj);
    ZipWriter zip;
    zip.add("archive/data.pkl", pickler.finish());
    zip.add("archive/byteorder", "little");
    for (std::size_t i = 0; i < storages_.size(); ++i) {
      const AnyTensor& s = storages_[i];
      zip.add("archive/data/" + std::to_string(i),
              std::string_view(static_cast<const char*>(s.impl()->data()),
                               static_cast<std::size_t>(s.numel() * element_size(s.dtype()))));
    }
    zip.add("archive/version", "3\n");
    return zip.finish();
  }

 private:
  void tensor(Pickler& p, const AnyTensor& t) {
    tensorlib::detail::check<ValueError>(t.defined(), "torch.save: an undefined tensor");
    const auto [it, added] = keys_.emplace(t.impl().get(), storages_.size());
    if (added) storages_.push_back(host_contiguous(t));
    const std::size_t key = it->second;
    const AnyTensor& s = storages_[key];
    p.global("torch._utils", "_rebuild_tensor_v2");
    p.mark();
    p.mark();  // the persistent id
    p.string("storage");
    p.global("torch", torch_storage_name(s.dtype()));
    p.string(std::to_string(key));
    p.string("cpu");
    p.integer(s.numel());
    p.op('t');
    p.op('Q');
    p.integer(0);
    p.mark();
    for (int64_t d = 0; d < s.dim(); ++d) p.integer(s.sizes()[d]);
    p.op('t');
    p.mark();
    const Shape strides = contiguous_strides(s.sizes());
    for (int64_t d = 0; d < s.dim(); ++d) p.integer(strides[d]);
    p.op('t');
    p.op(t.impl()->requires_grad() ? '\x88' : '\x89');
    p.global("collections", "OrderedDict");  // backward hooks: none
    p.op(')');
    p.op('R');
    p.op('t');
    p.op('R');
  }

  std::vector<AnyTensor> storages_;                          // contiguous host copies, by key
  std::unordered_map<const TensorImpl*, std::size_t> keys_;  // each distinct tensor's key
};

}  // namespace detail

namespace pt {

/// The object of torch.save bytes (Note [torch.save layout]); `what` names
/// the source in errors.
inline PickleValue load_bytes(std::string_view bytes, const std::string& what = "torch.load") {
  detail::check_little_endian("torch.load");
  return detail::TorchFileReader(bytes, what).load();
}

/// The object of a torch.save file (`torch.load(path, map_location="cpu",
/// weights_only=True)`).
inline PickleValue load(const std::string& path) {
  return load_bytes(detail::read_whole_file(path, "torch.load"), path);
}

/// The state dict of a file written by `torch.save(model.state_dict(),
/// path)`; a `TypeError` when the file holds something else.
inline nn::StateDict load_state_dict(const std::string& path) { return load(path).to_state_dict(); }

/// `obj` as torch.save bytes, which `torch.load` reads (as `load_bytes`
/// does): tensors copied to the host, each distinct tensor a contiguous
/// storage of its own (views of one buffer are written as separate copies),
/// containers without shared references; an archive of 4 GiB or more is a
/// `NotImplementedError`.
inline std::string save_bytes(const PickleValue& obj) {
  detail::check_little_endian("torch.save");
  return detail::TorchFileWriter().write(obj);
}

/// Writes `obj` to `path` (`torch.save(obj, path)`).
inline void save(const PickleValue& obj, const std::string& path) {
  detail::write_whole_file(path, save_bytes(obj), "torch.save");
}

/// Writes a state dict to `path` (`torch.save(model.state_dict(), path)`).
inline void save(const nn::StateDict& state, const std::string& path) { save(PickleValue::state_dict(state), path); }

}  // namespace pt

}  // namespace tensorlib::io
