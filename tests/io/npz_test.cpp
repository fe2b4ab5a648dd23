// tl::io::npz against numpy's archives (tests/fixtures/generate_npz.py):
// np.savez's positional and keyword arrays of several types and layouts,
// the refusal of np.savez_compressed's, our archives (which np.load reads:
// checked by the generator on a committed file), and damaged archives.

#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "tensorlib/tensorlib.hpp"

namespace npz_test {

namespace npz = tl::io::npz;

// What tensorlib_written.npz holds (generate_npz.py checks it with np.load).
tl::nn::StateDict written_arrays() {
  tl::nn::StateDict arrays;
  arrays.insert("weight", tl::Tensor<float>((tl::arange<float>(6).reshape({3, 2}) - 2.0f) / 4.0f));
  arrays.insert("steps", tl::tensor<int64_t>({3, 1, 4}));
  arrays.insert("mask", tl::tensor<bool>({true, false}).reshape({1, 2}));
  return arrays;
}

TEST_CASE("npz: numpy's np.savez archives read back exactly") {
  const tl::nn::StateDict arrays = npz::load(fixtures::io_path("arrays.npz"));
  CHECK(arrays.keys() == std::vector<std::string>{"a", "b", "c", "d", "arr_0"});  // archive order, as np.load
  CHECK(tl::equal(arrays.get<double>("arr_0"), tl::Tensor<double>(tl::arange<double>(6).reshape({2, 3}) / 8.0)));
  CHECK(tl::equal(arrays.get<float>("a"), tl::Tensor<float>((tl::arange<float>(12).reshape({3, 4}) - 5.0f) / 4.0f)));
  CHECK(tl::equal(arrays.get<int64_t>("b"), tl::tensor<int64_t>({1, -2, 3, -4}).reshape({2, 2})));
  CHECK(tl::equal(arrays.get<bool>("c"), tl::tensor<bool>({true, false, true})));
  // Fortran order: the values in their logical places.
  CHECK(tl::equal(arrays.get<double>("d"), tl::Tensor<double>(tl::arange<double>(6).reshape({2, 3}) * 1.5)));
}

TEST_CASE("npz: our archives read back, and the committed one is what we write") {
  const tl::nn::StateDict arrays = written_arrays();
  const std::string path = fixtures::io_path("tensorlib_written.npz");
  if (std::getenv("TENSORLIB_WRITE_NPZ_FIXTURES")) npz::save(path, arrays);
  CHECK(npz::to_bytes(arrays) == fixtures::load_bytes(path));
  const tl::nn::StateDict back = npz::from_bytes(npz::to_bytes(arrays));
  CHECK(back.keys() == arrays.keys());
  CHECK(tl::equal(back.get<float>("weight"), arrays.get<float>("weight")));
  CHECK(tl::equal(back.get<int64_t>("steps"), arrays.get<int64_t>("steps")));
  CHECK(tl::equal(back.get<bool>("mask"), arrays.get<bool>("mask")));
  // A strided view is written in its logical order.
  tl::nn::StateDict view;
  view.insert("t", tl::Tensor<float>(arrays.get<float>("weight").t()));
  CHECK(tl::equal(npz::from_bytes(npz::to_bytes(view)).get<float>("t"), arrays.get<float>("weight").t()));
}

TEST_CASE("npz: compressed, damaged and foreign archives are errors that say so") {
  CHECK(fixtures::error_message([] { npz::load(fixtures::io_path("compressed.npz")); })
            .find("np.savez_compressed archives are "
                  "not read") != std::string::npos);
  CHECK_THROWS_AS(npz::load(fixtures::io_path("compressed.npz")), tl::NotImplementedError);
  const std::string good = fixtures::load_bytes(fixtures::io_path("arrays.npz"));
  // Every truncation is an error, never a crash (the suite runs under ASan).
  for (std::size_t n = 0; n < good.size(); n += 7)
    CHECK_THROWS_AS(npz::from_bytes(std::string_view(good).substr(0, n)), tl::Error);
  // An entry that is not an .npy array (a torch.save file is a ZIP too).
  CHECK(fixtures::error_message([] { npz::load(fixtures::io_path("net.pt")); }).find("' is not an .npy array") !=
        std::string::npos);
  tl::nn::StateDict unnamed;
  unnamed.insert("", tl::zeros<float>({1}));
  CHECK(fixtures::error_message([&] { (void)npz::to_bytes(unnamed); }) == "npz: an array needs a name");
  CHECK(fixtures::error_message([] { npz::load("/nonexistent/x.npz"); }).find("/nonexistent/x.npz") !=
        std::string::npos);
}

}  // namespace npz_test
