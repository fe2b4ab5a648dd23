#pragma once
/// \file
/// `PackedSequence` and PyTorch's `torch.nn.utils.rnn` functions:
/// `pack_padded_sequence`, `pad_packed_sequence`, `pad_sequence` and
/// `pack_sequence`. The recurrent layers (nn/modules/rnn.hpp) take a packed
/// batch and run each sequence for its own length.
///
/// Note [packed sequences]
/// A packed batch holds sequences sorted by decreasing length, time step by
/// time step: `data` is (sum of lengths, *), the rows of step t being the
/// first `batch_sizes[t]` sequences' elements at t, so the sequences active
/// at a step are always a prefix of the batch. `sorted_indices` gives the
/// original batch position of each sorted sequence and `unsorted_indices`
/// its inverse; both are undefined when the batch was packed already sorted
/// (`enforce_sorted`). Everything is recorded ops (narrow, cat, stack,
/// index_select), so gradients flow to the padded input.
///
/// Shapes: L longest length, N batch, * feature dimensions.

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <vector>

#include "tensorlib/core/error.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/join.hpp"

namespace tensorlib::nn::detail {

/// A 1-d int64 tensor of `values` (on the CPU).
inline Tensor<int64_t> index_tensor(const std::vector<int64_t>& values) {
  Tensor<int64_t> t = empty<int64_t>({static_cast<int64_t>(values.size())});
  std::copy(values.begin(), values.end(), t.data_ptr());
  return t;
}

}  // namespace tensorlib::nn::detail

namespace tensorlib::nn::utils::rnn {

/// PyTorch's `PackedSequence` (Note [packed sequences]).
template <Element T>
struct PackedSequence {
  Tensor<T> data;                    ///< (sum of lengths, *)
  std::vector<int64_t> batch_sizes;  ///< sequences active at each step, non-increasing
  Tensor<int64_t> sorted_indices;    ///< undefined when packed sorted
  Tensor<int64_t> unsorted_indices;  ///< the inverse permutation
};

/// `pack_padded_sequence(input, lengths, batch_first, enforce_sorted)`:
/// `input` is (L, N, *) (or (N, L, *) with batch_first) and sequence i's
/// first `lengths[i]` steps are data. With `enforce_sorted` the lengths must
/// not increase; otherwise the batch is sorted here and the permutation kept.
template <Element T>
PackedSequence<T> pack_padded_sequence(const Tensor<T>& input, const Tensor<int64_t>& lengths, bool batch_first = false,
                                       bool enforce_sorted = true) {
  using tensorlib::detail::check;
  check<ValueError>(input.dim() >= 2, "pack_padded_sequence: input must be at least 2-D, got ", input.dim(), "-D");
  const int batch_dim = batch_first ? 0 : 1;
  const int64_t batch = input.size(batch_dim), steps = input.size(1 - batch_dim);
  check<ValueError>(lengths.dim() == 1 && lengths.numel() == batch, "pack_padded_sequence: expected one length per ",
                    "sequence (", batch, "), got lengths of shape ", lengths.sizes());
  std::vector<int64_t> lens = lengths.cpu().contiguous().to_vector();
  PackedSequence<T> out;
  Tensor<T> x = input;
  if (enforce_sorted) {
    check<ValueError>(std::is_sorted(lens.rbegin(), lens.rend()),
                      "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can "
                      "pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this "
                      "requirement if you do not need ONNX exportability.");
  } else {
    std::vector<int64_t> order(lens.size()), inverse(lens.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      return lens[static_cast<std::size_t>(a)] > lens[static_cast<std::size_t>(b)];
    });
    for (std::size_t i = 0; i < order.size(); ++i)
      inverse[static_cast<std::size_t>(order[i])] = static_cast<int64_t>(i);
    std::vector<int64_t> sorted(lens.size());
    for (std::size_t i = 0; i < order.size(); ++i) sorted[i] = lens[static_cast<std::size_t>(order[i])];
    lens = sorted;
    out.sorted_indices = detail::index_tensor(order);
    out.unsorted_indices = detail::index_tensor(inverse);
    x = x.index_select(batch_dim, out.sorted_indices.to(input.device()));
  }
  check<ValueError>(batch > 0 && lens.back() > 0,
                    "Length of all samples has to be greater than 0, but found an element in 'lengths' that is <= 0");
  check<ValueError>(lens.front() <= steps, "pack_padded_sequence: a sequence of length ", lens.front(),
                    " in a padded batch of ", steps, " steps");
  if (batch_first) x = x.transpose(0, 1);
  std::vector<Tensor<T>> rows;
  for (int64_t t = 0; t < lens.front(); ++t) {
    const auto active = static_cast<int64_t>(std::count_if(lens.begin(), lens.end(), [&](int64_t n) { return n > t; }));
    out.batch_sizes.push_back(active);
    rows.push_back(x.select(0, t).narrow(0, 0, active));
  }
  out.data = cat(rows, 0);
  return out;
}

/// `lengths` given as a vector.
template <Element T>
PackedSequence<T> pack_padded_sequence(const Tensor<T>& input, const std::vector<int64_t>& lengths,
                                       bool batch_first = false, bool enforce_sorted = true) {
  return pack_padded_sequence(input, detail::index_tensor(lengths), batch_first, enforce_sorted);
}

/// `pad_packed_sequence(sequence, batch_first, padding_value, total_length)`:
/// the padded batch (L, N, *) (or (N, L, *)) in the original order, and each
/// sequence's length. `total_length` pads to that many steps.
template <Element T>
std::pair<Tensor<T>, Tensor<int64_t>> pad_packed_sequence(const PackedSequence<T>& sequence, bool batch_first = false,
                                                          T padding_value = T(0),
                                                          std::optional<int64_t> total_length = std::nullopt) {
  using tensorlib::detail::check;
  const std::vector<int64_t>& sizes = sequence.batch_sizes;
  check<ValueError>(!sizes.empty() && sequence.data.defined() && sequence.data.dim() >= 1,
                    "pad_packed_sequence: an empty PackedSequence");
  const auto steps = static_cast<int64_t>(sizes.size());
  const int64_t batch = sizes.front();
  const int64_t length = total_length.value_or(steps);
  check<ValueError>(length >= steps,
                    "Expected total_length to be at least the length of the longest sequence in input, but got "
                    "total_length=",
                    length, " and max sequence length being ", steps);
  Shape row = sequence.data.sizes();
  row[0] = batch;
  std::vector<Tensor<T>> padded;
  int64_t offset = 0;
  for (int64_t t = 0; t < length; ++t) {
    const int64_t active = t < steps ? sizes[static_cast<std::size_t>(t)] : 0;
    check<ValueError>(active <= batch && (t == 0 || active <= sizes[static_cast<std::size_t>(t - 1)]),
                      "pad_packed_sequence: batch_sizes must not increase");
    Shape rest = row;
    rest[0] = batch - active;
    const Tensor<T> fill = full<T>(rest, padding_value, {.device = sequence.data.device()});
    padded.push_back(active == 0 ? fill : cat({sequence.data.narrow(0, offset, active), fill}, 0));
    offset += active;
  }
  check<ValueError>(offset == sequence.data.size(0), "pad_packed_sequence: batch_sizes add up to ", offset,
                    " rows, the data has ", sequence.data.size(0));
  Tensor<T> out = stack(padded, 0);  // (length, N, *)
  std::vector<int64_t> lens(static_cast<std::size_t>(batch));
  for (int64_t i = 0; i < batch; ++i)
    lens[static_cast<std::size_t>(i)] =
        static_cast<int64_t>(std::count_if(sizes.begin(), sizes.end(), [&](int64_t n) { return n > i; }));
  Tensor<int64_t> lengths = detail::index_tensor(lens);
  if (sequence.unsorted_indices.defined()) {
    out = out.index_select(1, sequence.unsorted_indices.to(out.device()));
    lengths = lengths.index_select(0, sequence.unsorted_indices.cpu());
  }
  return {batch_first ? out.transpose(0, 1) : out, lengths};
}

/// `pad_sequence(sequences, batch_first, padding_value)`: sequences of (L_i,
/// *) padded to the longest and stacked: (L, N, *) or (N, L, *).
template <Element T>
Tensor<T> pad_sequence(const std::vector<Tensor<T>>& sequences, bool batch_first = false, T padding_value = T(0)) {
  using tensorlib::detail::check;
  check<ValueError>(!sequences.empty(), "pad_sequence: received an empty list of sequences");
  int64_t longest = 0;
  for (const auto& s : sequences) {
    check<ValueError>(s.dim() >= 1 && s.dim() == sequences.front().dim() &&
                          std::equal(s.sizes().begin() + 1, s.sizes().end(), sequences.front().sizes().begin() + 1),
                      "pad_sequence: every sequence must have the shape (L, *) with the first one's *, got ", s.sizes(),
                      " and ", sequences.front().sizes());
    longest = std::max(longest, s.size(0));
  }
  std::vector<Tensor<T>> padded;
  for (const auto& s : sequences) {
    Shape rest = s.sizes();
    rest[0] = longest - s.size(0);
    padded.push_back(rest[0] == 0 ? s : cat({s, full<T>(rest, padding_value, {.device = s.device()})}, 0));
  }
  return stack(padded, batch_first ? 0 : 1);
}

/// `pack_sequence(sequences, enforce_sorted)`: pad_sequence, then
/// pack_padded_sequence with the sequences' lengths.
template <Element T>
PackedSequence<T> pack_sequence(const std::vector<Tensor<T>>& sequences, bool enforce_sorted = true) {
  std::vector<int64_t> lengths;
  for (const auto& s : sequences) lengths.push_back(s.dim() >= 1 ? s.size(0) : 0);
  return pack_padded_sequence(pad_sequence(sequences), lengths, false, enforce_sorted);
}

}  // namespace tensorlib::nn::utils::rnn
