#pragma once
/// \file
/// `NamedFields`: members named once by a macro (`TENSORLIB_FIELDS`,
/// `TENSORLIB_PARAMETERS`, ... in core/config.hpp), as the macro's argument
/// text and a tuple of references. The names are cut from that text, so they
/// cannot drift from the members. Modules key their state dicts by them
/// (Note [module members]); optimizers' options and states key their
/// PyTorch-format state dicts by them (io/optimizer_state.hpp).

#include <string_view>
#include <tuple>

namespace tensorlib::detail {

/// The next name in a macro's member list ("weight, bias"), taken off `rest`.
inline constexpr std::string_view next_name(std::string_view& rest) {
  constexpr std::string_view separators = ", \t\n";
  const std::size_t start = rest.find_first_not_of(separators);
  rest.remove_prefix(start == std::string_view::npos ? rest.size() : start);
  const std::string_view name = rest.substr(0, rest.find_first_of(separators));
  rest.remove_prefix(name.size());
  return name;
}

/// Members named by one of the field macros: their names as written in
/// the macro call and a tuple of references to them.
template <class Refs>
struct NamedFields {
  std::string_view names;
  Refs refs;

  NamedFields(std::string_view member_names, Refs members) : names(member_names), refs(members) {}
  /// Calls f(name, member) for each member in order.
  template <class F>
  void for_each(F&& f) const {
    std::string_view rest = names;
    std::apply([&](auto&... member) { (f(next_name(rest), member), ...); }, refs);
  }
};
template <class Refs>
NamedFields(const char*, Refs) -> NamedFields<Refs>;

}  // namespace tensorlib::detail
