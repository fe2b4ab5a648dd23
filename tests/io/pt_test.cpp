// tl::io::pt against files written by torch.save (tests/fixtures/
// generate_pt.py, PyTorch 1.13): state dicts, every element type, views of
// one storage, a training checkpoint with an optimizer's state, pickle
// protocol 4; the files it must refuse (int8, the legacy format, a global
// outside the allowed ones, nesting and cycles that would exhaust the
// stack); and damaged archives and pickles, which give a tl::Error, never a
// crash (the suite also runs under ASan+UBSan). pt::save's files read back
// equal (and, checked by hand with PyTorch 1.13, torch.load reads them).

#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "fixtures.hpp"
#include "tensorlib/tensorlib.hpp"

namespace pt = tl::io::pt;
namespace nn = tl::nn;
using tl::io::PickleValue;

namespace {

// `actual` equals the fixture tensor exactly, in element type and shape too.
void check_pt_tensor(const tl::AnyTensor& actual, const fixtures::Tensor& expected, const std::string& what) {
  INFO(what);
  REQUIRE(actual.defined());
  CHECK(std::string(tl::name(actual.dtype())) == expected.dtype);
  const auto same = [&](auto tag) {
    using T = decltype(tag);
    fixtures::check_close(actual.as<T>(), expected.as<T>(), 0, 0, what);
  };
  if (expected.dtype == "bool") same(bool{});
  if (expected.dtype == "uint8") same(uint8_t{});
  if (expected.dtype == "int32") same(int32_t{});
  if (expected.dtype == "int64") same(int64_t{});
  if (expected.dtype == "float16") same(tl::Half{});
  if (expected.dtype == "bfloat16") same(tl::BFloat16{});
  if (expected.dtype == "float32") same(float{});
  if (expected.dtype == "float64") same(double{});
}

// The value of int key `key` in a dict.
const PickleValue& int_key(const PickleValue& dict, int64_t key) {
  for (const auto& [k, v] : dict.dict_items())
    if (k.kind() == PickleValue::Kind::Int && k.to_int() == key) return v;
  FAIL("no int key " << key);
  return dict;
}

// `bytes` (a torch.save archive) with its data.pkl replaced by `pickle` of
// the same length and its CRC-32 updated in the central directory.
std::string with_pickle(std::string bytes, const std::string& pickle) {
  const tl::io::ZipReader zip(bytes);
  const tl::io::ZipEntry* entry = nullptr;
  for (const auto& e : zip.entries())
    if (e.name.ends_with("/data.pkl")) entry = &e;
  REQUIRE(entry != nullptr);
  REQUIRE(pickle.size() == entry->size);
  const std::string name = entry->name;
  bytes.replace(entry->data_offset, pickle.size(), pickle);
  const uint32_t crc = tl::io::crc32(pickle);
  for (std::size_t at = bytes.find("PK\x01\x02"); at != std::string::npos; at = bytes.find("PK\x01\x02", at + 1)) {
    uint16_t length = 0;
    std::memcpy(&length, bytes.data() + at + 28, 2);
    if (bytes.compare(at + 46, length, name) == 0) std::memcpy(bytes.data() + at + 16, &crc, 4);
  }
  return bytes;
}

std::string pickle_of(const std::string& archive) {
  const tl::io::ZipReader zip(archive);
  for (const auto& e : zip.entries())
    if (e.name.ends_with("/data.pkl")) return std::string(zip.read(e));
  FAIL("no data.pkl");
  return {};
}

// What tests/fixtures/io/tensorlib_written.pt holds (generate_pt.py checks
// that torch.load reads it so).
PickleValue written_object() {
  PickleValue obj = PickleValue::dict();
  obj.set("net", PickleValue::state_dict(pt::load_state_dict(fixtures::io_path("net.pt"))));
  obj.set("epoch", PickleValue::integer(3));
  obj.set("lr", PickleValue::floating(0.5));
  obj.set("name", PickleValue::string("tl"));
  obj.set("flags", PickleValue::list({PickleValue::boolean(true), PickleValue()}));
  obj.set("shape", PickleValue::tuple({PickleValue::integer(2), PickleValue::integer(3)}));
  obj.set("blob", PickleValue::bytes(std::string("\xff\x00", 2)));
  obj.set("dtype", PickleValue::global("torch.float16"));
  obj.set("view", PickleValue::tensor(tl::arange<float>(12).reshape({3, 4}).t()));
  const PickleValue shared = PickleValue::list({PickleValue::integer(7)});
  obj.set("shared", PickleValue::list({shared, shared}));
  return obj;
}

}  // namespace

TEST_CASE("pt::load_state_dict reads torch.save(model.state_dict()) into the same module") {
  const auto& c = fixtures::load("pt.txt")["net"];
  const nn::StateDict sd = pt::load_state_dict(fixtures::io_path("net.pt"));
  CHECK(sd.keys() == fixtures::lines(c.text("keys")));
  for (const auto& [name, t] : sd) check_pt_tensor(t, c.tensor(name), name);
  nn::Sequential model(nn::Linear<float>(4, 3), nn::BatchNorm1d<float>(3));
  model.load_state_dict(sd);
  fixtures::check_close(model.state_dict().get<float>("1.running_var"), c.get<float>("1.running_var"));
  fixtures::check_close(model.state_dict().get<float>("0.weight"), c.get<float>("0.weight"));
  CHECK(model.state_dict().get<int64_t>("1.num_batches_tracked").item() == 1);
}

TEST_CASE("pt::load reads every element type, 0-d and empty tensors") {
  const auto& c = fixtures::load("pt.txt")["dtypes"];
  const PickleValue v = pt::load(fixtures::io_path("dtypes.pt"));
  REQUIRE(v.kind() == PickleValue::Kind::Dict);
  const nn::StateDict sd = v.to_state_dict();
  CHECK(sd.keys() == fixtures::lines(c.text("keys")));
  for (const auto& [name, t] : sd) check_pt_tensor(t, c.tensor(name), name);
  CHECK(sd.at("i_scalar").dim() == 0);
  CHECK(sd.at("j_empty").sizes() == tl::Shape{0, 3});
}

TEST_CASE("pt::load keeps the tensors of one storage views of one buffer") {
  const auto& c = fixtures::load("pt.txt")["views"];
  const nn::StateDict sd = pt::load(fixtures::io_path("views.pt")).to_state_dict();
  for (const auto& [name, t] : sd) check_pt_tensor(t, c.tensor(name), name);
  CHECK(sd.get<float>("t").strides() == tl::Shape{1, 4});
  CHECK(sd.get<float>("strided").strides() == tl::Shape{4, 2});
  tl::Tensor<float> base = sd.get<float>("base");
  base.fill_(-1.0F);
  for (const auto& item : sd) CHECK_MESSAGE(item.second.as<float>().eq(-1.0F).all().item(), item.first);
}

TEST_CASE("pt::load reads a training checkpoint: model, optimizer state, numbers, strings, containers") {
  const auto& c = fixtures::load("pt.txt")["checkpoint"];
  const PickleValue ckpt = pt::load(fixtures::io_path("checkpoint.pt"));
  for (const auto& [name, t] : ckpt["model"].to_state_dict()) check_pt_tensor(t, c.tensor("model." + name), name);

  const PickleValue& state = ckpt["optimizer"]["state"];
  REQUIRE(state.dict_items().size() == 4);
  for (int64_t i = 0; i < 4; ++i) {
    for (const char* k : {"step", "exp_avg", "exp_avg_sq"}) {
      const std::string key = "optimizer.state." + std::to_string(i) + "." + k;
      check_pt_tensor(int_key(state, i)[k].to_tensor(), c.tensor(key), key);
    }
  }
  const PickleValue& group = ckpt["optimizer"]["param_groups"].items().at(0);
  CHECK(group["lr"].to_double() == 0.01);
  CHECK(group["betas"].kind() == PickleValue::Kind::Tuple);
  CHECK(group["betas"].items()[0].to_double() == 0.8);
  CHECK(group["betas"].items()[1].to_double() == 0.9);
  CHECK(group["weight_decay"].to_double() == 0.0);
  CHECK(group["amsgrad"].to_bool() == false);
  CHECK(group["foreach"].is_none());
  std::vector<int64_t> params;
  for (const auto& p : group["params"].items()) params.push_back(p.to_int());
  CHECK(params == std::vector<int64_t>{0, 1, 2, 3});

  CHECK(ckpt["epoch"].to_int() == 3);
  CHECK(ckpt["lr"].to_double() == 0.1);
  CHECK(ckpt["name"].to_string() == "run-\xc3\xa9");
  const auto& flags = ckpt["flags"].items();
  REQUIRE(flags.size() == 3);
  CHECK(flags[0].to_bool());
  CHECK_FALSE(flags[1].to_bool());
  CHECK(flags[2].is_none());
  CHECK(ckpt["shape"].kind() == PickleValue::Kind::Tuple);
  CHECK(ckpt["size"].items().size() == 2);
  CHECK(ckpt["size"].items()[1].to_int() == 3);
  CHECK(ckpt["big"].to_int() == (int64_t{1} << 40));
  CHECK(ckpt["neg"].to_int() == -5);
  CHECK(ckpt["huge_neg"].to_int() == std::numeric_limits<int64_t>::min());
  const tl::Tensor<float> param = ckpt["param"].to_tensor().as<float>();
  CHECK(param.requires_grad());
  CHECK(param.eq(1.0F).all().item());
  const PickleValue& nested = ckpt["nested"];
  const auto& x = int_key(nested, 1)["x"].items();
  CHECK(x[0].to_int() == 1);
  CHECK(x[1].to_double() == 2.5);
  CHECK(nested["shared"].is(ckpt["flags"]));

  CHECK_THROWS_AS(ckpt["missing"], tl::KeyError);
  CHECK_THROWS_WITH_AS(ckpt["epoch"].to_string(), "PickleValue: expected a str, got int", tl::TypeError);
  CHECK_THROWS_WITH_AS(ckpt.to_state_dict(), "PickleValue: state dict entry 'model' is a dict, not a tensor",
                       tl::TypeError);
}

TEST_CASE("pt::load reads pickle protocol 4") {
  const PickleValue v = pt::load(fixtures::io_path("protocol4.pt"));
  fixtures::check_close(v["w"].to_tensor().as<float>(), tl::arange<float>(3));
  CHECK(v["name"].to_string() == "p4");
}

TEST_CASE("pt::load refuses what it cannot read faithfully, naming it") {
  CHECK_THROWS_WITH_AS(pt::load(fixtures::io_path("int8.pt")),
                       doctest::Contains("a storage of torch.int8, which tensorlib has no element type for"),
                       tl::NotImplementedError);
  CHECK_THROWS_WITH_AS(pt::load(fixtures::io_path("legacy.pt")), doctest::Contains("the legacy torch.save format"),
                       tl::NotImplementedError);
  CHECK_THROWS_WITH_AS(pt::load(fixtures::io_path("evil_global.pt")),
                       doctest::Contains("global 'posix.getcwd' is not allowed"), tl::ValueError);
  CHECK_THROWS_WITH_AS(pt::load(fixtures::io_path("deep.pt")), doctest::Contains("objects nested more than 1000 deep"),
                       tl::ValueError);
  CHECK_THROWS_WITH_AS(pt::load(fixtures::io_path("cycle.pt")), doctest::Contains("an object that contains itself"),
                       tl::ValueError);
  CHECK_THROWS_WITH_AS(pt::load(fixtures::io_path("missing.pt")), doctest::Contains("cannot open"), tl::ValueError);
  CHECK_THROWS_WITH_AS(pt::load_bytes("not a zip file at all"), doctest::Contains("no ZIP signature"), tl::ValueError);
}

TEST_CASE("pt::load gives a tl::Error for damaged archives: truncations and flipped bytes") {
  const std::string good = fixtures::load_bytes(fixtures::io_path("net.pt"));
  REQUIRE(pt::load_bytes(good).dict_items().size() == 7);
  int errors = 0;
  for (std::size_t n = 0; n < good.size(); n += 3) {
    try {
      pt::load_bytes(good.substr(0, n));
    } catch (const tl::Error&) {
      ++errors;
    }
  }
  CHECK(errors == static_cast<int>((good.size() + 2) / 3));  // every truncation fails
  // A flipped byte in a storage fails its CRC-32.
  const tl::io::ZipReader zip(good);
  std::string flipped = good;
  flipped[zip.find("net/data/0")->data_offset] ^= 0x40;
  CHECK_THROWS_WITH_AS(pt::load_bytes(flipped), doctest::Contains("fails its CRC-32 check"), tl::ValueError);
}

TEST_CASE("pt::load survives every single-byte change of a pickle (CRC-32 updated): a value or a tl::Error") {
  const std::string good = fixtures::load_bytes(fixtures::io_path("checkpoint.pt"));
  const std::string pickle = pickle_of(good);
  int loaded = 0, refused = 0;
  for (std::size_t i = 0; i < pickle.size(); ++i) {
    for (const unsigned char b : {0x00, 0x28}) {  // zero (lengths, opcode), MARK
      if (static_cast<unsigned char>(pickle[i]) == b) continue;
      std::string changed = pickle;
      changed[i] = static_cast<char>(b);
      try {
        pt::load_bytes(with_pickle(good, changed));
        ++loaded;
      } catch (const tl::Error&) {
        ++refused;
      }
    }
  }
  CHECK(refused > 0);
  CHECK(loaded + refused > static_cast<int>(pickle.size()));
}

TEST_CASE("Unpickler: opcodes, shared references and malformed streams") {
  const auto run = [](const std::string& bytes) { return tl::io::Unpickler(bytes, {}).load(); };
  // [1, t, {'k': -2**40}, 1.5, t] with t = (True, None) memoized and read back.
  const std::string ok(
      "\x80\x02]q\x00(K\x01\x88N\x86q\x01}X\x01\x00\x00\x00k\x8a\x06\x00\x00\x00\x00\x00\xffs"
      "G\x3f\xf8\x00\x00\x00\x00\x00\x00h\x01"
      "e.",
      42);
  const PickleValue v = run(ok);
  REQUIRE(v.items().size() == 5);
  CHECK(v.items()[0].to_int() == 1);
  CHECK(v.items()[1].items()[0].to_bool());
  CHECK(v.items()[1].items()[1].is_none());
  CHECK(v.items()[2]["k"].to_int() == -(int64_t{1} << 40));
  CHECK(v.items()[3].to_double() == 1.5);
  CHECK(v.items()[4].is(v.items()[1]));
  CHECK_THROWS_WITH_AS(run(std::string("\x80\x02]q\x00h\x00"
                                       "a.",
                                       9)),
                       doctest::Contains("contains itself"), tl::ValueError);
  CHECK_THROWS_WITH_AS(run("\x80\x02K"), doctest::Contains("truncated at byte 3"), tl::ValueError);
  CHECK_THROWS_WITH_AS(run("\x80\x02"
                           "a."),
                       doctest::Contains("stack underflow"), tl::ValueError);
  CHECK_THROWS_WITH_AS(run("\x80\x02h\x05."), doctest::Contains("memo entry 5 read before it was written"),
                       tl::ValueError);
  CHECK_THROWS_WITH_AS(run("\x80\x02K\x01K\x02."), doctest::Contains("STOP with 2 objects on the stack"),
                       tl::ValueError);
  CHECK_THROWS_WITH_AS(run("\x80\x02i."), doctest::Contains("opcode 0x69 at byte 2 is not supported"), tl::ValueError);
  CHECK_THROWS_WITH_AS(run("\x80\x02"
                           "cos\nsystem\n."),
                       doctest::Contains("global 'os.system' is not allowed"), tl::ValueError);
  CHECK_THROWS_WITH_AS(run("\x80\x02\x8a\x09\x01\x01\x01\x01\x01\x01\x01\x01\x01."),
                       doctest::Contains("an integer of 9 bytes"), tl::ValueError);
}

TEST_CASE("ZipReader: CRC-32 and damaged directories") {
  CHECK(tl::io::crc32("123456789") == 0xCBF43926U);  // the check value of CRC-32/ISO-HDLC
  CHECK(tl::io::crc32("") == 0U);
  CHECK_THROWS_WITH_AS(tl::io::ZipReader("PK\x03\x04 and no directory after it"),
                       doctest::Contains("no end of central directory"), tl::ValueError);
  const std::string good = fixtures::load_bytes(fixtures::io_path("net.pt"));
  std::string bad_dir = good;
  bad_dir[bad_dir.rfind("PK\x01\x02")] = 'X';  // the last directory entry's signature
  CHECK_THROWS_WITH_AS(tl::io::ZipReader{bad_dir}, doctest::Contains("damaged central directory"), tl::ValueError);
}

TEST_CASE("pt::save writes what pt::load reads back: a checkpoint of every kind of value") {
  PickleValue ckpt = pt::load(fixtures::io_path("checkpoint.pt"));
  ckpt.set("dtypes", pt::load(fixtures::io_path("dtypes.pt")));
  ckpt.set("dtype", PickleValue::global("torch.float16"));
  const tl::Tensor<float> view = tl::arange<float>(12).reshape({3, 4}).t();
  ckpt.set("view", PickleValue::tensor(view));
  const std::string bytes = pt::save_bytes(ckpt);
  const PickleValue back = pt::load_bytes(bytes);

  // Every value, recursively, is equal (tensors in type, shape and values).
  const auto same = [](const auto& self, const PickleValue& a, const PickleValue& b) -> void {
    REQUIRE(a.kind() == b.kind());
    using K = PickleValue::Kind;
    switch (a.kind()) {
      case K::None:
        return;
      case K::Bool:
        CHECK(a.to_bool() == b.to_bool());
        return;
      case K::Int:
        CHECK(a.to_int() == b.to_int());
        return;
      case K::Float:
        CHECK(a.to_double() == b.to_double());
        return;
      case K::String:
        CHECK(a.to_string() == b.to_string());
        return;
      case K::Bytes:
        CHECK(a.to_bytes() == b.to_bytes());
        return;
      case K::Global:
        CHECK(a.global_name() == b.global_name());
        return;
      case K::Tuple:
      case K::List:
        REQUIRE(a.items().size() == b.items().size());
        for (std::size_t i = 0; i < a.items().size(); ++i) self(self, a.items()[i], b.items()[i]);
        return;
      case K::Dict:
        REQUIRE(a.dict_items().size() == b.dict_items().size());
        for (std::size_t i = 0; i < a.dict_items().size(); ++i) {
          self(self, a.dict_items()[i].first, b.dict_items()[i].first);
          self(self, a.dict_items()[i].second, b.dict_items()[i].second);
        }
        return;
      case K::Tensor:
        CHECK(a.to_tensor().dtype() == b.to_tensor().dtype());
        CHECK(a.to_tensor().sizes() == b.to_tensor().sizes());
        CHECK(a.to_tensor().impl()->requires_grad() == b.to_tensor().impl()->requires_grad());
        a.to_tensor().visit([&](const auto& t) {
          using T = typename std::decay_t<decltype(t)>::value_type;
          fixtures::check_close(b.to_tensor().as<T>(), t);
        });
        return;
    }
  };
  same(same, ckpt, back);
  CHECK(back["view"].to_tensor().as<float>().is_contiguous());

  // The file layout torch.load expects, data 64-byte aligned.
  const tl::io::ZipReader zip(bytes);
  REQUIRE(zip.entries().size() >= 4);
  CHECK(zip.entries()[0].name == "archive/data.pkl");
  CHECK(zip.find("archive/version") != nullptr);
  for (const auto& e : zip.entries()) CHECK_MESSAGE(e.data_offset % 64 == 0, e.name);

  // A state dict round-trips through a file into a module.
  const std::string path = "tensorlib_pt_test_net.pt";  // in the test's working directory
  pt::save(pt::load_state_dict(fixtures::io_path("net.pt")), path);
  nn::Sequential model(nn::Linear<float>(4, 3), nn::BatchNorm1d<float>(3));
  model.load_state_dict(pt::load_state_dict(path));
  std::remove(path.c_str());
  fixtures::check_close(model.state_dict().get<float>("0.bias"), fixtures::load("pt.txt")["net"].get<float>("0.bias"));
}

TEST_CASE("pt::save gives the bytes of the committed file torch.load reads") {
  // generate_pt.py loads these two files with PyTorch and checks their
  // values; TENSORLIB_WRITE_PT_FIXTURES=1 writes them anew.
  if (std::getenv("TENSORLIB_WRITE_PT_FIXTURES")) {
    pt::save(written_object(), fixtures::io_path("tensorlib_written.pt"));
    pt::save(pt::load_state_dict(fixtures::io_path("net.pt")), fixtures::io_path("tensorlib_written_sd.pt"));
  }
  CHECK(pt::save_bytes(written_object()) == fixtures::load_bytes(fixtures::io_path("tensorlib_written.pt")));
  CHECK(pt::save_bytes(PickleValue::state_dict(pt::load_state_dict(fixtures::io_path("net.pt")))) ==
        fixtures::load_bytes(fixtures::io_path("tensorlib_written_sd.pt")));
  const PickleValue back = pt::load(fixtures::io_path("tensorlib_written.pt"));
  CHECK(back["blob"].to_bytes() == std::string("\xff\x00", 2));
  CHECK(back["shared"].items()[0].is(back["shared"].items()[1]));  // written once, read back shared
}

TEST_CASE("pt::load reads PyTorch 2's forms and refuses big-endian and legacy files") {
  const PickleValue forms = pt::load(fixtures::io_path("rebuild_forms.pt"));
  fixtures::check_close(forms["seven"].to_tensor().as<float>(), tl::arange<float>(4));
  CHECK(forms["device"].to_string() == "cuda:1");
  CHECK_THROWS_WITH_AS(pt::load(fixtures::io_path("big_endian.pt")), doctest::Contains("saved with byte order 'big'"),
                       tl::NotImplementedError);
  CHECK_THROWS_WITH_AS(pt::load(fixtures::io_path("legacy4.pt")), doctest::Contains("the legacy torch.save format"),
                       tl::NotImplementedError);
}

TEST_CASE("PickleValue: deep structures are released without recursion; a moved-from value is None") {
  constexpr int kDeep = 200'000;  // a recursive release would need tens of MB of stack
  {
    PickleValue v = PickleValue::list();
    for (int i = 0; i < kDeep; ++i) v = PickleValue::list({v});
  }  // ~Data is iterative: a recursive release would overflow the stack here
  PickleValue a = PickleValue::integer(1);
  PickleValue b = std::move(a);
  CHECK(a.is_none());  // NOLINT(bugprone-use-after-move): the state a move leaves is specified
  CHECK(b.to_int() == 1);
  // Dict keys as Python compares them: True == 1 == 1.0; str and bytes differ.
  PickleValue d = PickleValue::dict();
  d.set_item(PickleValue::integer(1), PickleValue::string("int"));
  d.set_item(PickleValue::boolean(true), PickleValue::string("bool"));
  d.set_item(PickleValue::floating(1.0), PickleValue::string("float"));
  d.set_item(PickleValue::bytes("k"), PickleValue::integer(1));
  d.set_item(PickleValue::string("k"), PickleValue::integer(2));
  REQUIRE(d.dict_items().size() == 3);
  CHECK(d.dict_items()[0].second.to_string() == "float");
  CHECK(d["k"].to_int() == 2);
}

TEST_CASE("Unpickler and Pickler: a 200000-deep discarded list, unhandled calls, shared DAGs, bad globals") {
  const auto run = [](const std::string& bytes, tl::io::UnpicklerHooks hooks = {}) {
    return tl::io::Unpickler(bytes, std::move(hooks)).load();
  };
  constexpr std::size_t kDeep = 200'000;
  // Built, popped, then None returned: the discarded list is released iteratively.
  CHECK(run("\x80\x02" + std::string(kDeep, ']') + std::string(kDeep - 1, 'a') + "0N.").is_none());
  CHECK_THROWS_WITH_AS(run("\x80\x02" + std::string(kDeep, ']') + std::string(kDeep - 1, 'a') + "."),
                       doctest::Contains("nested more than 1000 deep"), tl::ValueError);
  tl::io::UnpicklerHooks allow_all;
  allow_all.allow = [](const std::string&) { return true; };
  CHECK_THROWS_WITH_AS(run("\x80\x02"
                           "cfoo\nbar\n)R.",
                           allow_all),
                       doctest::Contains("a call of 'foo.bar', which nothing handles"), tl::ValueError);

  // 60 levels of a list holding the level below twice: 2^60 paths, 61 lists.
  PickleValue v = PickleValue::list();
  for (int i = 0; i < 60; ++i) v = PickleValue::list({v, v});
  const std::string bytes = pt::save_bytes(v);
  CHECK(bytes.size() < 20'000);
  const PickleValue back = pt::load_bytes(bytes);
  CHECK(back.items()[0].is(back.items()[1]));

  CHECK_THROWS_WITH_AS(pt::save_bytes(PickleValue::global("os\nsystem\n.x")),
                       doctest::Contains("is not a global's name"), tl::ValueError);
  PickleValue cycle = PickleValue::list();
  cycle.append(PickleValue::tuple({cycle}));
  PickleValue t = PickleValue::tuple({cycle});
  cycle.append(t);
  CHECK_THROWS_WITH_AS(pt::save_bytes(t), doctest::Contains("a tuple that contains itself"), tl::ValueError);
  cycle.clear();  // break the cycle so that it is released
}

TEST_CASE("ZipReader: overlapping entries and CRCs of 0") {
  const std::string good = fixtures::load_bytes(fixtures::io_path("net.pt"));
  std::vector<std::size_t> records;
  for (std::size_t at = good.find("PK\x01\x02"); at != std::string::npos; at = good.find("PK\x01\x02", at + 1))
    records.push_back(at);
  REQUIRE(records.size() >= 3);
  // The second entry's local header made the third's: a small file that
  // names one block twice.
  std::string overlap = good;
  overlap.replace(records[2] + 42, 4, good.substr(records[1] + 42, 4));
  CHECK_THROWS_WITH_AS(pt::load_bytes(overlap), doctest::Contains("overlap"), tl::ValueError);
  // A CRC of 0 means "not computed" (PyTorch 2.6+ can write such files):
  // the entry is read unchecked.
  std::string no_crc = good;
  for (const std::size_t at : records) no_crc.replace(at + 16, 4, std::string(4, '\0'));
  CHECK(pt::load_bytes(no_crc).dict_items().size() == 7);
}
