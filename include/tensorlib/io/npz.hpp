#pragma once
/// \file
/// `tl::io::npz`: numpy's `.npz` archives (`np.savez`), a ZIP of `.npy`
/// files (io/npy.hpp) named by their arrays' keys. `load` gives the arrays
/// as an ordered name -> tensor map (`nn::StateDict`, which `load_state_dict`
/// takes), as `np.load(path)` gives an `NpzFile`; `save` writes one that
/// `np.load` reads. Entries are stored, not compressed: `np.savez_compressed`
/// archives (deflated entries) give a `NotImplementedError` that says so.

#include <string>
#include <string_view>

#include "tensorlib/core/any_tensor.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/io/npy.hpp"
#include "tensorlib/io/safetensors.hpp"
#include "tensorlib/io/zip_reader.hpp"
#include "tensorlib/io/zip_writer.hpp"
#include "tensorlib/nn/state_dict.hpp"

namespace tensorlib::io::npz {

/// The arrays of the archive `bytes` by name ("arr_0" for `np.savez`'s
/// positional arrays), in archive order; `what` names it in errors.
inline nn::StateDict from_bytes(std::string_view bytes, const std::string& what = "npz") {
  const ZipReader zip = [&] {
    try {
      return ZipReader(bytes, what);
    } catch (const NotImplementedError& e) {
      const std::string message = e.what();
      if (message.find("is compressed") == std::string::npos) throw;  // encrypted, ...
      throw NotImplementedError(message + " (np.savez_compressed archives are not read; np.savez's are)");
    }
  }();
  nn::StateDict out;
  constexpr std::string_view suffix = ".npy";
  for (const ZipEntry& entry : zip.entries()) {
    const std::string& name = entry.name;
    tensorlib::detail::check<ValueError>(name.size() > suffix.size() && name.ends_with(suffix), what, ": entry '", name,
                                         "' is not an .npy array");
    const std::string key = name.substr(0, name.size() - suffix.size());
    tensorlib::detail::check<ValueError>(!out.contains(key), what, ": array '", key, "' appears twice");
    out.insert(key, npy::from_bytes(zip.read(entry), what + ": " + name));
  }
  return out;
}

/// `np.load(path)` of an `.npz` file: its arrays by name.
inline nn::StateDict load(const std::string& path) {
  return from_bytes(io::detail::read_whole_file(path, "npz"), path);
}

/// An archive of `arrays`, each as `<name>.npy` (np.savez's layout).
inline std::string to_bytes(const nn::StateDict& arrays) {
  ZipWriter zip;
  for (const auto& [name, t] : arrays) {
    tensorlib::detail::check<ValueError>(!name.empty(), "npz: an array needs a name");
    zip.add(name + ".npy", npy::to_bytes(t));
  }
  return zip.finish();
}

/// `np.savez(path, **arrays)`.
inline void save(const std::string& path, const nn::StateDict& arrays) {
  io::detail::write_whole_file(path, to_bytes(arrays), "npz");
}

}  // namespace tensorlib::io::npz
