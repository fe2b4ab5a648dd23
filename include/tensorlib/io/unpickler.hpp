#pragma once
/// \file
/// `Unpickler`: a restricted reader of Python's pickle format (protocols 2
/// to 5), the object stream of `torch.save` files (io/pt.hpp).
///
/// Note [restricted unpickling]
/// A pickle is a program for a stack machine, and Python's unpickler will
/// import and call any global it names; PyTorch's `torch.load(...,
/// weights_only=True)` restricts them to tensors' own. This reader builds
/// `PickleValue`s only: None, bools, ints (up to 64 bits), floats, strings
/// and bytes, tuples, lists, dicts, and what the caller's hooks make of
/// GLOBAL names it allows (`allow`), calls of them (REDUCE, NEWOBJ: `call`)
/// and persistent ids (BINPERSID: `persistent_load`). Any other opcode or
/// global is a `ValueError` naming it. Shared references stay shared (the
/// memo holds handles). The result is checked to be acyclic and nested at
/// most 1000 deep (consumers may recurse); every container made is kept
/// until the end and those not in the result are emptied before release,
/// so that cycles in a rejected or discarded part do not leak. Releasing a
/// deep structure does not recurse (PickleValue's destruction is iterative).

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "tensorlib/core/error.hpp"
#include "tensorlib/io/pickle_value.hpp"

namespace tensorlib::io {

/// What an `Unpickler` does with globals and persistent ids.
struct UnpicklerHooks {
  /// Whether GLOBAL `module.name` may be named.
  std::function<bool(const std::string& qualified_name)> allow;
  /// The result of calling an allowed global with `args` (REDUCE, NEWOBJ).
  std::function<PickleValue(const std::string& qualified_name, const std::vector<PickleValue>& args)> call;
  /// The object of persistent id `pid` (BINPERSID).
  std::function<PickleValue(const PickleValue& pid)> persistent_load;
};

class Unpickler {
 public:
  static constexpr int kMaxDepth = 1000;

  Unpickler(std::string_view bytes, UnpicklerHooks hooks, std::string what = "pickle")
      : in_(bytes), hooks_(std::move(hooks)), what_(std::move(what)) {}
  Unpickler(const Unpickler&) = delete;
  Unpickler& operator=(const Unpickler&) = delete;
  ~Unpickler() {
    // Containers emptied while all are still held: cycles are broken, and
    // releasing any of them destroys nothing nested.
    for (PickleValue& c : containers_) c.clear();
  }

  /// Runs the pickle to its STOP and returns the object it leaves.
  PickleValue load() {
    for (;;) {
      const auto op = static_cast<unsigned char>(take(1)[0]);
      if (op == kStop) break;
      step(op);
    }
    fail_unless(stack_.size() == 1 && marks_.empty(), "STOP with ", stack_.size(), " objects on the stack");
    PickleValue result = stack_.back();
    check_nesting(result);
    for (PickleValue& c : containers_)
      if (!reachable_.count(c.id())) c.clear();
    containers_.clear();
    return result;
  }

 private:
  template <class... Args>
  void fail_unless(bool ok, const Args&... args) const {
    tensorlib::detail::check<ValueError>(ok, what_, ": ", args..., " (damaged or unsupported pickle)");
  }

  std::string_view take(uint64_t n) {
    fail_unless(n <= in_.size() - at_, "truncated at byte ", at_);
    const std::string_view s = in_.substr(at_, n);
    at_ += n;
    return s;
  }
  template <class U>
  U read_le() {
    const std::string_view b = take(sizeof(U));
    uint64_t u = 0;
    for (std::size_t i = 0; i < sizeof(U); ++i) u |= uint64_t{static_cast<unsigned char>(b[i])} << (8 * i);
    return static_cast<U>(u);
  }
  /// A line up to '\n' (GLOBAL's operands).
  std::string read_line() {
    const auto end = in_.find('\n', at_);
    fail_unless(end != std::string_view::npos, "unterminated line at byte ", at_);
    std::string s(in_.substr(at_, end - at_));
    at_ = end + 1;
    return s;
  }

  PickleValue pop() {
    fail_unless(!stack_.empty() && (marks_.empty() || stack_.size() > marks_.back()), "stack underflow at byte ", at_);
    PickleValue v = std::move(stack_.back());
    stack_.pop_back();
    return v;
  }
  PickleValue& top() {
    fail_unless(!stack_.empty() && (marks_.empty() || stack_.size() > marks_.back()), "empty stack at byte ", at_);
    return stack_.back();
  }
  /// The objects above the last MARK, which is removed.
  std::vector<PickleValue> pop_mark() {
    fail_unless(!marks_.empty(), "no MARK at byte ", at_);
    const std::size_t from = marks_.back();
    marks_.pop_back();
    std::vector<PickleValue> items(std::make_move_iterator(stack_.begin() + static_cast<std::ptrdiff_t>(from)),
                                   std::make_move_iterator(stack_.end()));
    stack_.resize(from);
    return items;
  }
  void push(PickleValue v) {
    const auto k = v.kind();
    if (k == PickleValue::Kind::Tuple || k == PickleValue::Kind::List || k == PickleValue::Kind::Dict)
      containers_.push_back(v);
    stack_.push_back(std::move(v));
  }
  void put(uint64_t index) {
    fail_unless(index < (uint64_t{1} << 32), "memo index ", index, " too large");
    memo_[index] = top();
  }
  void get(uint64_t index) {
    const auto it = memo_.find(index);
    fail_unless(it != memo_.end(), "memo entry ", index, " read before it was written");
    stack_.push_back(it->second);
  }
  void push_global(std::string module, std::string name) {
    std::string qualified = module + "." + name;
    fail_unless(hooks_.allow && hooks_.allow(qualified), "global '", qualified,
                "' is not allowed (tensors, containers and numbers only, as torch.load's weights_only)");
    push(PickleValue::global(std::move(qualified)));
  }
  void call(const PickleValue& callable, const PickleValue& args) {
    fail_unless(callable.kind() == PickleValue::Kind::Global, "call of a ", callable.kind_name());
    fail_unless(args.kind() == PickleValue::Kind::Tuple, "call arguments are a ", args.kind_name());
    fail_unless(static_cast<bool>(hooks_.call), "a call of '", callable.global_name(), "', which nothing handles");
    push(hooks_.call(callable.global_name(), args.items()));
  }
  void set_items(PickleValue& dict, std::vector<PickleValue>& kv) {
    fail_unless(kv.size() % 2 == 0, "SETITEMS with an odd count");
    fail_unless(dict.kind() == PickleValue::Kind::Dict, "SETITEM on a ", dict.kind_name());
    for (std::size_t i = 0; i < kv.size(); i += 2) dict.set_item(std::move(kv[i]), std::move(kv[i + 1]));
  }
  PickleValue read_int_bytes(uint64_t n) {
    fail_unless(n <= 8, "an integer of ", n, " bytes (tensorlib reads 64-bit ints)");
    const std::string_view b = take(n);
    uint64_t u = 0;
    for (uint64_t i = 0; i < n; ++i) u |= uint64_t{static_cast<unsigned char>(b[i])} << (8 * i);
    if (n > 0 && n < 8 && (static_cast<unsigned char>(b[n - 1]) & 0x80U)) u |= ~uint64_t{0} << (8 * n);
    return PickleValue::integer(static_cast<int64_t>(u));
  }

  // The opcodes read, by pickletools' names.
  enum Opcode : unsigned char {
    kMark = '(',
    kStop = '.',
    kPop = '0',
    kPopMark = '1',
    kDup = '2',
    kBinFloat = 'G',
    kBinInt = 'J',
    kBinInt1 = 'K',
    kBinInt2 = 'M',
    kNone = 'N',
    kBinPersId = 'Q',
    kReduce = 'R',
    kBinString = 'T',
    kShortBinString = 'U',
    kBinUnicode = 'X',
    kAppend = 'a',
    kBuild = 'b',
    kGlobal = 'c',
    kDict = 'd',
    kAppends = 'e',
    kBinGet = 'h',
    kLongBinGet = 'j',
    kList = 'l',
    kBinPut = 'q',
    kLongBinPut = 'r',
    kSetItem = 's',
    kTuple = 't',
    kSetItems = 'u',
    kEmptyDict = '}',
    kEmptyList = ']',
    kEmptyTuple = ')',
    kBinBytes = 'B',
    kShortBinBytes = 'C',
    kProto = 0x80,
    kNewObj = 0x81,
    kTuple1 = 0x85,
    kTuple2 = 0x86,
    kTuple3 = 0x87,
    kNewTrue = 0x88,
    kNewFalse = 0x89,
    kLong1 = 0x8a,
    kLong4 = 0x8b,
    kShortBinUnicode = 0x8c,
    kBinUnicode8 = 0x8d,
    kBinBytes8 = 0x8e,
    kStackGlobal = 0x93,
    kMemoize = 0x94,
    kFrame = 0x95,
  };

  void step(unsigned char op) {
    switch (op) {
      case kProto:
        take(1);
        return;
      case kFrame:
        take(8);
        return;
      case kMark:
        marks_.push_back(stack_.size());
        return;
      case kEmptyTuple:
        push(PickleValue::tuple({}));
        return;
      case kEmptyList:
        push(PickleValue::list());
        return;
      case kEmptyDict:
        push(PickleValue::dict());
        return;
      case kTuple:
        push(PickleValue::tuple(pop_mark()));
        return;
      case kTuple1:
        push(PickleValue::tuple({pop()}));
        return;
      case kTuple2: {
        PickleValue b = pop(), a = pop();
        push(PickleValue::tuple({std::move(a), std::move(b)}));
        return;
      }
      case kTuple3: {
        PickleValue c = pop(), b = pop(), a = pop();
        push(PickleValue::tuple({std::move(a), std::move(b), std::move(c)}));
        return;
      }
      case kList:
        push(PickleValue::list(pop_mark()));
        return;
      case kDict: {
        auto kv = pop_mark();
        PickleValue dict = PickleValue::dict();
        set_items(dict, kv);
        push(std::move(dict));
        return;
      }
      case kAppend: {
        PickleValue v = pop();
        PickleValue& list = top();
        fail_unless(list.kind() == PickleValue::Kind::List, "APPEND to a ", list.kind_name());
        list.append(std::move(v));
        return;
      }
      case kAppends: {
        auto items = pop_mark();
        PickleValue& list = top();
        fail_unless(list.kind() == PickleValue::Kind::List, "APPENDS to a ", list.kind_name());
        for (auto& v : items) list.append(std::move(v));
        return;
      }
      case kSetItem: {
        PickleValue value = pop(), key = pop();
        std::vector<PickleValue> kv{std::move(key), std::move(value)};
        set_items(top(), kv);
        return;
      }
      case kSetItems: {
        auto kv = pop_mark();
        set_items(top(), kv);
        return;
      }
      case kNone:
        push(PickleValue());
        return;
      case kNewTrue:
        push(PickleValue::boolean(true));
        return;
      case kNewFalse:
        push(PickleValue::boolean(false));
        return;
      case kBinInt:
        push(PickleValue::integer(read_le<int32_t>()));
        return;
      case kBinInt1:
        push(PickleValue::integer(read_le<uint8_t>()));
        return;
      case kBinInt2:
        push(PickleValue::integer(read_le<uint16_t>()));
        return;
      case kLong1:
        push(read_int_bytes(read_le<uint8_t>()));
        return;
      case kLong4:
        push(read_int_bytes(read_le<uint32_t>()));
        return;
      case kBinFloat: {
        const std::string_view b = take(8);
        uint64_t u = 0;
        for (int i = 0; i < 8; ++i) u = (u << 8) | static_cast<unsigned char>(b[i]);
        push(PickleValue::floating(std::bit_cast<double>(u)));
        return;
      }
      case kBinUnicode:
      case kBinString:  // Python 2 str
        push(PickleValue::string(std::string(take(read_le<uint32_t>()))));
        return;
      case kShortBinUnicode:
      case kShortBinString:
        push(PickleValue::string(std::string(take(read_le<uint8_t>()))));
        return;
      case kBinUnicode8:
        push(PickleValue::string(std::string(take(read_le<uint64_t>()))));
        return;
      case kBinBytes:
        push(PickleValue::bytes(std::string(take(read_le<uint32_t>()))));
        return;
      case kShortBinBytes:
        push(PickleValue::bytes(std::string(take(read_le<uint8_t>()))));
        return;
      case kBinBytes8:
        push(PickleValue::bytes(std::string(take(read_le<uint64_t>()))));
        return;
      case kBinPut:
        put(read_le<uint8_t>());
        return;
      case kLongBinPut:
        put(read_le<uint32_t>());
        return;
      case kMemoize:
        put(memo_.size());
        return;
      case kBinGet:
        get(read_le<uint8_t>());
        return;
      case kLongBinGet:
        get(read_le<uint32_t>());
        return;
      case kPop:
        pop();
        return;
      case kPopMark:
        pop_mark();
        return;
      case kDup: {
        PickleValue copy = top();
        stack_.push_back(std::move(copy));
        return;
      }
      case kGlobal: {
        std::string module = read_line();
        std::string name = read_line();
        push_global(std::move(module), std::move(name));
        return;
      }
      case kStackGlobal: {
        PickleValue name = pop(), module = pop();
        fail_unless(name.kind() == PickleValue::Kind::String && module.kind() == PickleValue::Kind::String,
                    "STACK_GLOBAL of non-strings");
        push_global(module.to_string(), name.to_string());
        return;
      }
      case kReduce:
      case kNewObj: {
        PickleValue args = pop(), callable = pop();
        call(callable, args);
        return;
      }
      case kBinPersId: {
        PickleValue pid = pop();
        fail_unless(static_cast<bool>(hooks_.persistent_load), "a persistent id, which this file type has none of");
        push(hooks_.persistent_load(pid));
        return;
      }
      case kBuild: {  // an OrderedDict's attributes (a state dict's _metadata) are dropped
        PickleValue state = pop();
        fail_unless(top().kind() == PickleValue::Kind::Dict, "BUILD of a ", top().kind_name());
        return;
      }
      default:
        fail_unless(false, "opcode 0x", hex(op), " at byte ", at_ - 1, " is not supported");
    }
  }
  static std::string hex(unsigned char op) {
    const char* digits = "0123456789abcdef";
    return {digits[op >> 4], digits[op & 15]};
  }

  /// Checks that `root` is acyclic and at most kMaxDepth deep (its longest
  /// chain of containers, shared ones included), by an explicit-stack walk,
  /// and records the containers it reaches.
  void check_nesting(const PickleValue& root) {
    const auto children = [](const PickleValue& v) -> std::size_t {
      if (v.kind() == PickleValue::Kind::Tuple || v.kind() == PickleValue::Kind::List) return v.items().size();
      if (v.kind() == PickleValue::Kind::Dict) return 2 * v.dict_items().size();
      return 0;
    };
    const auto child_of = [](const PickleValue& v, std::size_t i) -> const PickleValue& {
      if (v.kind() != PickleValue::Kind::Dict) return v.items()[i];
      return i % 2 ? v.dict_items()[i / 2].second : v.dict_items()[i / 2].first;
    };
    struct Frame {
      const PickleValue* value;
      std::size_t next;
      int height;  // of the tallest child walked so far, plus one
    };
    std::unordered_map<const void*, int> heights;  // of the containers walked
    std::unordered_set<const void*> on_path{root.id()};
    std::vector<Frame> path{{&root, 0, 1}};
    while (!path.empty()) {
      const std::size_t f = path.size() - 1;
      const PickleValue& v = *path[f].value;
      if (path[f].next == children(v)) {
        const int h = path[f].height;
        fail_unless(h <= kMaxDepth, "objects nested more than ", kMaxDepth, " deep");
        heights.emplace(v.id(), h);
        on_path.erase(v.id());
        path.pop_back();
        if (!path.empty()) path.back().height = std::max(path.back().height, h + 1);
        continue;
      }
      const PickleValue& child = child_of(v, path[f].next++);
      if (children(child) == 0) continue;
      fail_unless(!on_path.count(child.id()), "an object that contains itself");
      if (const auto it = heights.find(child.id()); it != heights.end()) {
        path[f].height = std::max(path[f].height, it->second + 1);
        continue;
      }
      on_path.insert(child.id());
      path.push_back({&child, 0, 1});
    }
    for (const auto& [id, h] : heights) reachable_.insert(id);
  }

  std::string_view in_;
  uint64_t at_ = 0;
  UnpicklerHooks hooks_;
  std::string what_;
  std::vector<PickleValue> stack_;
  std::vector<std::size_t> marks_;
  std::unordered_map<uint64_t, PickleValue> memo_;
  std::vector<PickleValue> containers_;
  std::unordered_set<const void*> reachable_;
};

}  // namespace tensorlib::io
