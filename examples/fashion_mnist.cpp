// Fashion-MNIST on the CPU, on the real data of the Debian package
// `dataset-fashion-mnist` (gzip-compressed IDX files), batch 64. Two models:
//   mlp (default): 784-256-10 with SGD (lr 0.1, momentum 0.9), an
//        nn::Sequential of nn::Linear and nn::ReLU. bench/mlp_bench.cpp times
//        the same training step beside LibTorch's.
//   cnn: conv 5x5 (1 -> 16) - relu - max pool 2 - conv 5x5 (16 -> 32) - relu -
//        max pool 2 - linear (1568 -> 10), with Adam (lr 1e-3): a module of
//        its own (nn::Module) of nn::Conv2d, nn::MaxPool2d and nn::Linear.
// Both train on F::cross_entropy; the layers have PyTorch's initialization;
// batches come from a tl::data::DataLoader. Everything is tensorlib's
// tensors, autograd, nn, optim and data.
//
// fashion_mnist [--data DIR] [--model mlp|cnn] [--epochs N] [--train-images N]
//               [--threads N] [--min-accuracy A] [--save FILE] [--load FILE]
//               [--checkpoint FILE] [--resume FILE]
// --train-images trains on the first N images only (default: all). Exits 1
// when the final test accuracy is below A (default 0: never). --save writes
// the trained weights as a torch.save file (tl::io::pt), which PyTorch loads
// into the same layers (torch.nn.Sequential(nn.Linear(784, 256), nn.ReLU(),
// nn.Linear(256, 10)) for mlp); --load evaluates such a file, from PyTorch
// or from --save, instead of training. --checkpoint writes, after each
// epoch, a training checkpoint as PyTorch scripts write one:
// {'epoch': e, 'model': model.state_dict(), 'optimizer': opt.state_dict()};
// --resume continues from one (from --checkpoint or from PyTorch) up to
// --epochs. Epoch e shuffles with seed e - 1, so a resumed run matches an
// uninterrupted one.
//
// Shapes: N batch, D = 784 pixels, H = 256 hidden units, C = 10 classes.

#include <zlib.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <iostream>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <tensorlib/tensorlib.hpp>

namespace {

struct Split {
  tl::Tensor<float> images;    // (N, D), pixels scaled to [0, 1]
  tl::Tensor<int64_t> labels;  // (N)
};

// A whole gzip file in memory; a missing, corrupt or truncated file is an error.
std::vector<unsigned char> read_gzip(const std::string& path) {
  const std::unique_ptr<gzFile_s, decltype(&gzclose)> file(gzopen(path.c_str(), "rb"), &gzclose);
  if (!file)
    throw tl::ValueError(
        "fashion_mnist: cannot open " + path +
        " (the Debian package dataset-fashion-mnist installs the data; --data DIR reads it elsewhere)");
  std::vector<unsigned char> bytes;
  std::array<unsigned char, 1 << 16> chunk{};
  int got = 0;
  while ((got = gzread(file.get(), chunk.data(), static_cast<unsigned>(chunk.size()))) > 0)
    bytes.insert(bytes.end(), chunk.begin(), chunk.begin() + got);
  // A truncated stream ends with 0 bytes read and Z_BUF_ERROR set, not with
  // -1. zlib's message starts with the path.
  int code = Z_OK;
  const char* message = gzerror(file.get(), &code);
  if (got < 0 || code != Z_OK) throw tl::ValueError(std::string("fashion_mnist: ") + message);
  return bytes;
}

uint32_t big_endian(const std::vector<unsigned char>& b, size_t at) {
  return uint32_t{b[at]} << 24 | uint32_t{b[at + 1]} << 16 | uint32_t{b[at + 2]} << 8 | uint32_t{b[at + 3]};
}

// An IDX file (magic 0x0000080N: unsigned bytes, N dimensions) checked against
// the dimensions expected; returns its payload's offset.
size_t idx_payload(const std::vector<unsigned char>& b, const std::string& path, const std::vector<uint32_t>& dims) {
  const size_t header = 4 + 4 * dims.size();
  if (b.size() < header || big_endian(b, 0) != (0x800u | static_cast<uint32_t>(dims.size())))
    throw tl::ValueError("fashion_mnist: " + path + " is not an IDX file of unsigned bytes with " +
                         std::to_string(dims.size()) + " dimensions");
  size_t payload = 1;
  for (size_t d = 0; d < dims.size(); ++d) {
    const uint32_t got = big_endian(b, 4 + 4 * d);
    if (dims[d] != 0 && got != dims[d])
      throw tl::ValueError("fashion_mnist: " + path + ": dimension " + std::to_string(d) + " is " +
                           std::to_string(got) + ", expected " + std::to_string(dims[d]));
    if (got != 0 && payload > std::numeric_limits<size_t>::max() / got)
      throw tl::ValueError("fashion_mnist: " + path + ": its dimensions overflow");
    payload *= got;
  }
  if (b.size() != header + payload)
    throw tl::ValueError("fashion_mnist: " + path + " holds " + std::to_string(b.size() - header) +
                         " bytes of data, its header says " + std::to_string(payload));
  return header;
}

Split load_split(const std::string& dir, const std::string& prefix) {
  const std::string image_path = dir + "/" + prefix + "-images-idx3-ubyte.gz";
  const std::string label_path = dir + "/" + prefix + "-labels-idx1-ubyte.gz";
  const auto image_bytes = read_gzip(image_path);
  const auto label_bytes = read_gzip(label_path);
  const size_t images_at = idx_payload(image_bytes, image_path, {0, 28, 28});
  const size_t labels_at = idx_payload(label_bytes, label_path, {0});
  const int64_t n = big_endian(image_bytes, 4);
  if (n == 0) throw tl::ValueError("fashion_mnist: " + image_path + " holds no images");
  if (big_endian(label_bytes, 4) != n)
    throw tl::ValueError("fashion_mnist: " + std::to_string(n) + " images but " +
                         std::to_string(big_endian(label_bytes, 4)) + " labels");

  std::vector<float> pixels(image_bytes.begin() + static_cast<std::ptrdiff_t>(images_at), image_bytes.end());
  std::vector<int64_t> labels(label_bytes.begin() + static_cast<std::ptrdiff_t>(labels_at), label_bytes.end());
  for (const int64_t label : labels)
    if (label > 9) throw tl::ValueError("fashion_mnist: " + label_path + " holds label " + std::to_string(label));
  const tl::Tensor<float> raw = tl::from_blob(std::span<float>(pixels), {n, 28 * 28});
  return {raw / 255.0f, tl::from_blob(std::span<int64_t>(labels), {n}).clone()};
}

namespace nn = tl::nn;
namespace F = tl::nn::functional;

// 784-256-10, as PyTorch's nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10)).
using Mlp = nn::Sequential<nn::Linear<>, nn::ReLU, nn::Linear<>>;
Mlp make_mlp() { return Mlp(nn::Linear(28 * 28, 256), nn::ReLU(), nn::Linear(256, 10)); }

// A module of one's own: its submodules named once, its forward.
struct Cnn : nn::Module<Cnn> {
  nn::Conv2d<> conv1{1, 16, {5}, {.padding = {2}}};
  nn::Conv2d<> conv2{16, 32, {5}, {.padding = {2}}};
  nn::MaxPool2d pool{{2}};
  nn::Linear<> fc{32 * 7 * 7, 10};
  TENSORLIB_MODULES(conv1, conv2, pool, fc)

  tl::Tensor<float> forward(const tl::Tensor<float>& x) {
    const auto h1 = pool(tl::Tensor<float>(tl::relu(conv1(x.reshape({-1, 1, 28, 28})))));  // (N, 16, 14, 14)
    const auto h2 = pool(tl::Tensor<float>(tl::relu(conv2(h1))));                          // (N, 32, 7, 7)
    return fc(h2.flatten(1));                                                              // (N, C)
  }
};
Cnn make_cnn() { return Cnn(); }

template <class Model>
double accuracy(Model& model, const Split& split) {
  const tl::NoGradGuard no_grad;
  model.eval();
  int64_t correct = 0;
  for (int64_t at = 0; at < split.labels.numel(); at += 1000) {
    const int64_t end = std::min(at + 1000, split.labels.numel());
    const tl::Tensor<int64_t> predicted = tl::argmax(model(split.images.slice(0, at, end)), 1);
    correct += tl::Tensor<bool>(predicted == split.labels.slice(0, at, end)).sum().item();
  }
  model.train();
  return static_cast<double>(correct) / static_cast<double>(split.labels.numel());
}

struct Args {
  std::string data = "/usr/share/datasets/fashion-mnist";
  std::string model = "mlp";
  int epochs = 1;
  int64_t train_images = 0;  // 0: all
  int threads = 0;           // 0: the library's default
  double min_accuracy = 0;
  std::string save, load;  // torch.save files; empty: none
  std::string checkpoint, resume;
};

// The whole of `text` as a number, or an error naming the flag.
template <class N>
N number(const std::string& flag, std::string_view text) {
  N value{};
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size())
    throw tl::ValueError("fashion_mnist: " + flag + " expects a number, got '" + std::string(text) + "'");
  return value;
}

Args parse(int argc, char** argv) {
  const std::string usage =
      "usage: fashion_mnist [--data DIR] [--model mlp|cnn] [--epochs N] [--train-images N] [--threads N] "
      "[--min-accuracy A] [--save FILE] [--load FILE] [--checkpoint FILE] [--resume FILE]";
  Args args;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag != "--data" && flag != "--model" && flag != "--epochs" && flag != "--train-images" &&
        flag != "--threads" && flag != "--min-accuracy" && flag != "--save" && flag != "--load" &&
        flag != "--checkpoint" && flag != "--resume")
      throw tl::ValueError("fashion_mnist: unknown argument '" + flag + "'; " + usage);
    if (i + 1 >= argc) throw tl::ValueError("fashion_mnist: " + flag + " needs a value; " + usage);
    const std::string_view value = argv[++i];
    if (flag == "--data") args.data = value;
    if (flag == "--model") args.model = value;
    if (flag == "--train-images") args.train_images = number<int64_t>(flag, value);
    if (flag == "--epochs") args.epochs = number<int>(flag, value);
    if (flag == "--threads") args.threads = number<int>(flag, value);
    if (flag == "--min-accuracy") args.min_accuracy = number<double>(flag, value);
    if (flag == "--save") args.save = value;
    if (flag == "--load") args.load = value;
    if (flag == "--checkpoint") args.checkpoint = value;
    if (flag == "--resume") args.resume = value;
  }
  if (args.epochs < 1 || args.threads < 0 || args.train_images < 0)
    throw tl::ValueError("fashion_mnist: --epochs must be at least 1, --threads and --train-images at least 0");
  if (args.model != "mlp" && args.model != "cnn")
    throw tl::ValueError("fashion_mnist: --model is mlp or cnn, got '" + args.model + "'");
  return args;
}

// Trains a fresh Model with optimizer Opt for args.epochs and returns the
// final test accuracy.
template <class Opt, class Model, class Options>
double train_and_test(const Args& args, const Split& train, const Split& test, tl::Generator& gen, Model model,
                      const Options& options) {
  std::cout << model << std::endl;
  Opt opt(model.parameters(), options);
  const int64_t images =
      args.train_images > 0 ? std::min(args.train_images, train.labels.numel()) : train.labels.numel();
  // Shuffled batches of 64; a TensorDataset's batch is one index_select per tensor.
  tl::data::DataLoader loader(
      tl::data::TensorDataset{train.images.slice(0, 0, images), train.labels.slice(0, 0, images)},
      {.batch_size = 64, .shuffle = true, .generator = &gen});
  int first_epoch = 1;
  if (!args.resume.empty()) {
    const tl::io::PickleValue ckpt = tl::io::pt::load(args.resume);
    model.load_state_dict(ckpt["model"].to_state_dict());
    tl::io::pt::load_optimizer_state(opt, ckpt["optimizer"]);
    const int64_t done = ckpt["epoch"].to_int();
    if (done < 0 || done > 1000000)
      throw tl::ValueError("fashion_mnist: the checkpoint's epoch is " + std::to_string(done));
    first_epoch = static_cast<int>(done) + 1;
    std::printf("resumed from %s after epoch %d\n", args.resume.c_str(), first_epoch - 1);
  }
  double test_accuracy = first_epoch > args.epochs ? accuracy(model, test) : 0;  // nothing left to train
  for (int epoch = first_epoch; epoch <= args.epochs; ++epoch) {
    const auto start = std::chrono::steady_clock::now();
    gen.manual_seed(static_cast<uint64_t>(epoch - 1));  // this epoch's order, whatever ran before
    double loss_sum = 0;
    int64_t steps = 0;
    for (const auto& [x, y] : loader) {
      opt.zero_grad();
      tl::Tensor<float> loss = F::cross_entropy(model(x), y);
      loss.backward();
      opt.step();
      loss_sum += loss.item();
      ++steps;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    test_accuracy = accuracy(model, test);
    std::printf("epoch %d (%s): %.2f s, mean training loss %.4f, test accuracy %.4f\n", epoch, args.model.c_str(),
                seconds, loss_sum / static_cast<double>(steps), test_accuracy);
    if (!args.checkpoint.empty()) {
      tl::io::PickleValue ckpt = tl::io::PickleValue::dict();
      ckpt.set("epoch", tl::io::PickleValue::integer(epoch));
      ckpt.set("model", tl::io::PickleValue::state_dict(model.state_dict()));
      ckpt.set("optimizer", tl::io::pt::optimizer_state(opt));
      // Written aside and renamed over the last one, so that a crash mid-write
      // leaves the previous epoch's checkpoint whole.
      const std::string partial = args.checkpoint + ".partial";
      tl::io::pt::save(ckpt, partial);
      if (std::rename(partial.c_str(), args.checkpoint.c_str()) != 0)
        throw tl::Error("fashion_mnist: cannot rename " + partial + " to " + args.checkpoint);
    }
  }
  if (!args.save.empty()) {
    tl::io::pt::save(model.state_dict(), args.save);
    std::printf("saved the weights to %s (torch.load reads them)\n", args.save.c_str());
  }
  return test_accuracy;
}

// The test accuracy of `model` with the weights of torch.save file `path`.
template <class Model>
double evaluate_saved(const std::string& path, const Split& test, Model model) {
  model.load_state_dict(tl::io::pt::load_state_dict(path));
  const double test_accuracy = accuracy(model, test);
  std::printf("weights of %s: test accuracy %.4f\n", path.c_str(), test_accuracy);
  return test_accuracy;
}

}  // namespace

int main(int argc, char** argv) try {
  const Args args = parse(argc, argv);
  if (args.threads > 0) tl::set_num_threads(args.threads);
  const Split train = load_split(args.data, "train");
  const Split test = load_split(args.data, "t10k");
  std::printf("Fashion-MNIST: %lld training and %lld test images, %d thread(s)\n",
              static_cast<long long>(train.labels.numel()), static_cast<long long>(test.labels.numel()),
              tl::get_num_threads());

  if (!args.load.empty()) {
    const double test_accuracy =
        args.model == "mlp" ? evaluate_saved(args.load, test, make_mlp()) : evaluate_saved(args.load, test, make_cnn());
    return test_accuracy >= args.min_accuracy ? 0 : 1;
  }
  tl::manual_seed(0);    // the layers' initialization
  tl::Generator gen(0);  // the batches' order
  const double test_accuracy =
      args.model == "mlp" ? train_and_test<tl::optim::SGD<float>>(args, train, test, gen, make_mlp(),
                                                                  tl::optim::SGDOptions{.lr = 0.1, .momentum = 0.9})
                          : train_and_test<tl::optim::Adam<float>>(args, train, test, gen, make_cnn(),
                                                                   tl::optim::AdamOptions{.lr = 1e-3});
  return test_accuracy >= args.min_accuracy ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 2;
}
