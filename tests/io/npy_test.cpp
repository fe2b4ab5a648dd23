// tl::io::npy against files written by numpy (tests/fixtures/generate_io.py):
// both byte orders, Fortran order, every element type numpy and tensorlib
// share, 0-d arrays; round trips through our writer; damaged files.

#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "fixtures.hpp"
#include "tensorlib/tensorlib.hpp"

namespace npy = tl::io::npy;

namespace {

std::string npy_path(const std::string& name) { return std::string(TENSORLIB_FIXTURE_DIR) + "/io/" + name + ".npy"; }

TEST_CASE("npy: numpy's files read back exactly") {
  const auto& c = fixtures::load("io.txt")["npy"];
  fixtures::check_close(npy::load<float>(npy_path("f4")), c.get<float>("f4"));
  fixtures::check_close(npy::load<double>(npy_path("f8_fortran")), c.get<double>("f8_fortran"));
  fixtures::check_close(npy::load<float>(npy_path("f4_3d_fortran")), c.get<float>("f4_3d_fortran"));
  fixtures::check_close(npy::load<int32_t>(npy_path("i4_big")), c.get<int32_t>("i4_big"));
  fixtures::check_close(npy::load<int64_t>(npy_path("i8")), c.get<int64_t>("i8"));
  fixtures::check_close(npy::load<uint8_t>(npy_path("u1")), c.get<uint8_t>("u1"));
  fixtures::check_close(npy::load<bool>(npy_path("b1")), c.get<bool>("b1"));
  fixtures::check_close(npy::load<tl::Half>(npy_path("f2")).to<float>(), c.get<float>("f2"));
  const auto scalar = npy::load<double>(npy_path("f8_scalar"));
  CHECK(scalar.dim() == 0);
  CHECK(scalar.item() == 2.5);
  CHECK_THROWS_AS((void)npy::load<float>(npy_path("f8_scalar")), tl::TypeError);
}

TEST_CASE("npy: our files read back, with numpy's header layout") {
  for (const char* name : {"f4", "f8_fortran", "i4_big", "i8", "u1", "b1", "f2", "f8_scalar"}) {
    CAPTURE(name);
    const tl::AnyTensor t = npy::load(npy_path(name));
    const std::string bytes = npy::to_bytes(t);
    CHECK(bytes.find('\n') % 64 == 63);  // the data starts at a multiple of 64
    const tl::AnyTensor back = npy::from_bytes(bytes);
    CHECK(back.dtype() == t.dtype());
    CHECK(back.sizes() == t.sizes());
    CHECK(std::string(static_cast<const char*>(back.impl()->data()),
                      static_cast<std::size_t>(back.numel() * tl::element_size(back.dtype()))) ==
          std::string(static_cast<const char*>(t.impl()->data()),
                      static_cast<std::size_t>(t.numel() * tl::element_size(t.dtype()))));
  }
  // Little-endian C-order arrays: numpy's bytes exactly, header included.
  for (const char* name : {"f4", "i8", "u1", "b1", "f2", "f8_scalar"}) {
    CAPTURE(name);
    CHECK(npy::to_bytes(npy::load(npy_path(name))) == fixtures::load_bytes(npy_path(name)));
  }
  const std::string path = "tensorlib_npy_test.npy";
  const auto x = tl::arange<double>(12).reshape({3, 4}).t();
  npy::save(path, x);
  CHECK(tl::equal(npy::load<double>(path), x.contiguous()));
  std::remove(path.c_str());
  CHECK(fixtures::error_message([] { (void)npy::to_bytes(tl::zeros<tl::BFloat16>({1})); }) ==
        "npy: numpy has no bfloat16; convert the tensor to float first");
}

TEST_CASE("npy: damaged files give errors naming the problem") {
  const auto err = [](const std::string& bytes) {
    return fixtures::error_message([&] { (void)npy::from_bytes(bytes); });
  };
  const std::string good = fixtures::load_bytes(npy_path("f4"));
  CHECK(err("PK\3\4") == "npy: not an npy file (no \\x93NUMPY magic)");
  std::string v9 = good;
  v9[6] = 9;
  CHECK(err(v9) == "npy: unsupported npy version 9");
  CHECK(err(good.substr(0, 100)) == "npy: the header length 118 runs past the end of the 100-byte file");
  CHECK(err(good.substr(0, good.size() - 1)) == "npy: the data holds 23 bytes, shape [2, 3] and descr '<f4' need 24");
  std::string bad_descr = good;
  bad_descr.replace(bad_descr.find("<f4"), 3, "<c8");
  CHECK(err(bad_descr) == "npy: dtype '<c8' has no tensorlib element type");
  std::string bad_key = good;
  bad_key.replace(bad_key.find("shape"), 5, "shope");
  CHECK(err(bad_key) == "npy: malformed npy header at byte 50: unknown key 'shope'");
  for (std::size_t n = 0; n < good.size(); ++n) CHECK_THROWS_AS((void)npy::from_bytes(good.substr(0, n)), tl::Error);
}

}  // namespace
