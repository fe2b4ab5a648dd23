// tl::io::safetensors against files written by Hugging Face's safetensors
// package (tests/fixtures/generate_io.py): a PyTorch model's weights load
// into the same nn::Module and give PyTorch's output; every element type
// reads back exactly; our writer gives the reference writer's bytes; and
// damaged files give errors naming what is wrong.

#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "tensorlib/tensorlib.hpp"

namespace st = tl::io::safetensors;
namespace nn = tl::nn;

namespace {

// The generator's Net.
struct SafetensorsNet : nn::Module<SafetensorsNet, double> {
  nn::Conv2d<double> conv{1, 3, {3}};
  nn::BatchNorm2d<double> bn{3};
  nn::Linear<double> fc{3 * 4 * 4, 5};
  TENSORLIB_MODULES(conv, bn, fc)
  tl::Tensor<double> forward(const tl::Tensor<double>& x) {
    return fc(tl::Tensor<double>(tl::relu(bn(conv(x)))).flatten(1));
  }
};

// A header with `json` and `data` after it.
std::string file_bytes(const std::string& json, const std::string& data = "") {
  std::string out(8, '\0');
  const uint64_t n = json.size();
  std::memcpy(out.data(), &n, 8);
  return out + json + data;
}

TEST_CASE("safetensors: PyTorch's weights load into the same module and give its output") {
  const auto& c = fixtures::load("io.txt")["net"];
  const nn::StateDict sd = st::load_file(fixtures::io_path("net.safetensors"));
  SafetensorsNet net;
  std::vector<std::string> keys = sd.keys(), expected = fixtures::lines(c.text("keys"));
  std::sort(keys.begin(), keys.end());
  std::sort(expected.begin(), expected.end());
  CHECK(keys == expected);
  net.load_state_dict(sd);
  net.eval();
  fixtures::check_close(net(c.get<double>("x")), c.get<double>("out"), 1e-12, 1e-12, "out");
  CHECK(st::metadata(fixtures::io_path("net.safetensors")) == std::map<std::string, std::string>{{"format", "pt"}});
  // Saved by us and read back: the same values, so the same output.
  const std::string path = "tensorlib_safetensors_test.safetensors";
  st::save_file(net.state_dict(), path, {{"format", "pt"}});
  SafetensorsNet again;
  again.load_state_dict(st::load_file(path));
  again.eval();
  CHECK(tl::equal(again(c.get<double>("x")), net(c.get<double>("x"))));
  std::remove(path.c_str());
}

TEST_CASE("safetensors: every element type, 0-d and empty tensors read back exactly") {
  const auto& c = fixtures::load("io.txt")["dtypes"];
  const auto contents = st::load_with_metadata(fixtures::load_bytes(fixtures::io_path("dtypes.safetensors")));
  CHECK(contents.metadata.at("note") ==
        "\xc3\xbc"
        "n\xc3\xaf"
        "code \"quoted\"");
  const auto& t = contents.tensors;
  CHECK(t.size() == 10);
  fixtures::check_close(t.get<bool>("a_bool"), c.get<bool>("a_bool"));
  fixtures::check_close(t.get<uint8_t>("b_uint8"), c.get<uint8_t>("b_uint8"));
  fixtures::check_close(t.get<int32_t>("c_int32"), c.get<int32_t>("c_int32"));
  fixtures::check_close(t.get<int64_t>("d_int64"), c.get<int64_t>("d_int64"));
  fixtures::check_close(t.get<tl::Half>("e_float16").to<float>(), c.get<float>("e_float16"));
  fixtures::check_close(t.get<tl::BFloat16>("f_bfloat16").to<float>(), c.get<float>("f_bfloat16"));
  fixtures::check_close(t.get<float>("g_float32"), c.get<float>("g_float32"));
  fixtures::check_close(t.get<double>("h_float64"), c.get<double>("h_float64"));
  fixtures::check_close(t.get<float>("i_scalar"), c.get<float>("i_scalar"));
  CHECK(t.at("i_scalar").dim() == 0);
  CHECK(t.at("j_empty").sizes() == tl::Shape{0, 3});
  // Our writer gives the reference writer's file for the same tensors.
  CHECK(st::save(t, contents.metadata) == fixtures::load_bytes(fixtures::io_path("dtypes.safetensors")));
  const auto back = st::load_with_metadata(st::save(t, contents.metadata));
  CHECK(back.metadata == contents.metadata);
  for (const auto& item : t) {
    const std::string& name = item.first;
    const tl::AnyTensor& value = item.second;
    CAPTURE(name);
    CHECK(back.tensors.at(name).dtype() == value.dtype());
    CHECK(back.tensors.at(name).sizes() == value.sizes());
    if (value.numel() > 0) {
      CHECK(std::memcmp(back.tensors.at(name).impl()->data(), value.impl()->data(),
                        static_cast<std::size_t>(value.numel() * tl::element_size(value.dtype()))) == 0);
    }
  }
}

TEST_CASE("safetensors: our writer gives the reference writer's bytes") {
  const nn::StateDict small{{"bias", tl::tensor<float>({1, 2})},
                            {"step", tl::full<int64_t>({}, 3)},
                            {"w", tl::tensor<double>({{0.5, 0.25}})}};
  CHECK(st::save(small, {{"format", "pt"}}) == fixtures::load_bytes(fixtures::io_path("small.safetensors")));
  // Views and transposes are written as their elements.
  const auto m = tl::arange<float>(6).reshape({2, 3});
  const auto back = st::load(st::save({{"t", m.t()}}));
  CHECK(tl::equal(back.get<float>("t"), m.t().contiguous()));
}

TEST_CASE("safetensors: damaged files give errors naming the problem") {
  const auto err = [](const std::string& bytes) { return fixtures::error_message([&] { (void)st::load(bytes); }); };
  CHECK(err("abc") == "safetensors: truncated: 3 bytes, fewer than the 8 of the header length");
  CHECK(err(std::string("\xff\0\0\0\0\0\0\0{}", 10)) ==
        "safetensors: the header length 255 runs past the end of the 10-byte file");
  CHECK(err(file_bytes("[]")) == "safetensors: the header is not a JSON object");
  CHECK(err(file_bytes("{\"a\":{\"dtype\":\"F32\"")) == "safetensors: invalid JSON header at byte 19: expected '}'");
  CHECK(err(file_bytes("{\"a\":{\"dtype\":\"F32\",\"shape\":[1]}}")) ==
        "safetensors: tensor 'a' needs a string dtype, a shape and two data_offsets");
  CHECK(err(file_bytes("{\"a\":{\"dtype\":\"F8_E4M3\",\"shape\":[1],\"data_offsets\":[0,1]}}", "x")) ==
        "safetensors: tensor 'a' has dtype F8_E4M3, which tensorlib has no element type for");
  CHECK(err(file_bytes("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,4]}}", "abcd")) ==
        "safetensors: tensor 'a' has data_offsets [0, 4], but its shape [2] and dtype F32 need 8 bytes");
  CHECK(err(file_bytes("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", "ab")) ==
        "safetensors: tensor 'a' ends at byte 4 of a data block of 2 bytes (truncated file?)");
  CHECK(err(file_bytes("{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[1,2]}}", "ab")) ==
        "safetensors: the data offsets of tensor 'a' leave a gap or overlap (it starts at 1, the data before ends "
        "at 0)");
  CHECK(err(file_bytes("{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]},"
                       "\"b\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}",
                       "a")) ==
        "safetensors: the data offsets of tensor 'b' leave a gap or overlap (it starts at 0, the data before ends at "
        "1)");
  CHECK(err(file_bytes("{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}", "ab")) ==
        "safetensors: the tensors cover 1 bytes of a data block of 2");
  CHECK(err(file_bytes("{\"a\":{\"dtype\":\"U8\",\"shape\":[-1],\"data_offsets\":[0,1]}}", "a")) ==
        "safetensors: tensor 'a' has a shape entry that is not a non-negative integer");
  CHECK(err(file_bytes("{\"__metadata__\":{\"k\":1}}")) == "safetensors: __metadata__ value of 'k' is not a string");
  CHECK(err(file_bytes(std::string(100, '[') + std::string(100, ']'))) ==
        "safetensors: the header is not a JSON object");
  CHECK(err(file_bytes("{\"a\":" + std::string(100, '[') + std::string(100, ']') + "}")) ==
        "safetensors: invalid JSON header at byte 69: nested too deeply");
  CHECK(err(file_bytes("{\"a\":{\"dtype\":\"U8\",\"shape\":[4611686018427387904,2,0],\"data_offsets\":[0,0]}}")) ==
        "safetensors: tensor 'a' has a shape whose size overflows");
  // A header of very many values is refused before it takes gigabytes.
  std::string many = "{\"a\":[0";
  for (int i = 0; i < 2'000'000; ++i) many += ",0";
  CHECK(err(file_bytes(many + "]}")) == "safetensors: invalid JSON header at byte 4000002: more than 2000000 values");
  // Bool bytes other than 0 and 1 read as true, stored as 1.
  const auto flags = st::load(file_bytes("{\"a\":{\"dtype\":\"BOOL\",\"shape\":[3],\"data_offsets\":[0,3]}}",
                                         std::string("\x00\x02\xff", 3)))
                         .get<bool>("a");
  CHECK(flags.to_vector() == std::vector<bool>{false, true, true});
  CHECK(reinterpret_cast<const unsigned char*>(flags.data_ptr())[1] == 1);
  // Every truncation of a real file is an error, never a crash.
  const std::string real = fixtures::load_bytes(fixtures::io_path("dtypes.safetensors"));
  for (std::size_t n = 0; n < real.size(); ++n) CHECK_THROWS_AS((void)st::load(real.substr(0, n)), tl::Error);
  CHECK(fixtures::error_message([] { (void)st::load_file("/nonexistent/x.safetensors"); }) ==
        "safetensors: cannot open /nonexistent/x.safetensors");
}

TEST_CASE("JSON: escapes, numbers and unicode of the header parser") {
  using tl::io::detail::JsonParser;
  const auto v =
      JsonParser(R"({"s":"a\"b\\c\/\n\u00e9\ud83d\ude00","n":[-12,3.5e2,0],"t":true,"z":null})", "t").parse_document();
  CHECK(v.find("s")->string == "a\"b\\c/\n\xc3\xa9\xf0\x9f\x98\x80");
  CHECK(v.find("n")->array[0].integer == -12);
  CHECK(v.find("n")->array[1].number == 350.0);
  CHECK_FALSE(v.find("n")->array[1].is_integer);
  CHECK(v.find("t")->boolean);
  CHECK(v.find("z")->kind == tl::io::detail::Json::Kind::Null);
  CHECK(tl::io::detail::json_quote("a\"\n\x01") == "\"a\\\"\\n\\u0001\"");
  CHECK_THROWS_AS(JsonParser(R"({"s":"\ud83d"})", "t").parse_document(), tl::ValueError);
  CHECK_THROWS_AS(JsonParser(R"({"s":1} x)", "t").parse_document(), tl::ValueError);
}

}  // namespace
