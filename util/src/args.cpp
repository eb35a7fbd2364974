#include "swe/util/args.h"

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>

namespace swe::util {
namespace {

const OptionSpec* FindLong(const std::vector<OptionSpec>& spec, const std::string& name) {
  for (const OptionSpec& o : spec) {
    if (o.name == name) return &o;
  }
  return nullptr;
}

const OptionSpec* FindShort(const std::vector<OptionSpec>& spec, char name) {
  for (const OptionSpec& o : spec) {
    if (o.short_name != 0 && o.short_name == name) return &o;
  }
  return nullptr;
}

}  // namespace

std::string ParsedArgs::get(const std::string& name, const std::string& fallback) const {
  auto it = values.find(name);
  return it == values.end() || it->second.empty() ? fallback : it->second[0];
}

ParsedArgs ParseArgs(const std::vector<std::string>& args, const std::vector<OptionSpec>& spec,
                     const std::string& command) {
  ParsedArgs parsed;
  bool options_done = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (options_done || arg.size() < 2 || arg[0] != '-') {
      parsed.positional.push_back(arg);
      continue;
    }
    if (arg == "--") {
      options_done = true;
      continue;
    }
    if (arg == "--help" || arg == "-h") {
      parsed.help = true;
      continue;
    }
    const OptionSpec* option = nullptr;
    std::string inline_value;
    bool has_inline = false;
    if (arg[1] == '-') {
      std::string name = arg.substr(2);
      size_t eq = name.find('=');
      if (eq != std::string::npos) {
        inline_value = name.substr(eq + 1);
        name.resize(eq);
        has_inline = true;
      }
      option = FindLong(spec, name);
    } else if (arg.size() == 2) {
      option = FindShort(spec, arg[1]);
    }
    if (!option) throw UsageError("unknown option '" + arg + "'", command);
    if (option->values == 0) {
      if (has_inline) throw UsageError("option '--" + option->name + "' takes no value", command);
      parsed.flags.insert(option->name);
      continue;
    }
    if (has_inline && option->values > 1) {
      throw UsageError("option '--" + option->name + "' takes " + std::to_string(option->values) + " words", command);
    }
    std::vector<std::string> words;
    if (has_inline) words.push_back(inline_value);
    while (words.size() < static_cast<size_t>(option->values)) {
      if (i + 1 >= args.size()) {
        throw UsageError("option '" + arg + "' needs " + (option->values == 1 ? "a value" : "2 values"), command);
      }
      words.push_back(args[++i]);
    }
    parsed.values[option->name] = std::move(words);
  }
  return parsed;
}

uint64_t ParseCount(const std::string& text, const std::string& what, uint64_t min, uint64_t max) {
  uint64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || value < min || value > max) {
    throw UsageError(what + " must be a whole number in [" + std::to_string(min) + ", " + std::to_string(max) +
                     "], not '" + text + "'");
  }
  return value;
}

double ParseNumber(const std::string& text, const std::string& what, double min, double max) {
  // strtod, not std::from_chars: Emscripten's libc++ has no floating-point from_chars (wasm build).
  // Leading blanks, which strtod would skip, are refused as from_chars refuses them.
  char* end = nullptr;
  errno = 0;
  const double value = text.empty() || std::isspace(static_cast<unsigned char>(text[0])) ? 0 : std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE || !(value >= min && value <= max)) {
    char range[64];
    std::snprintf(range, sizeof range, "[%g, %g]", min, max);
    throw UsageError(what + " must be a number in " + range + ", not '" + text + "'");
  }
  return value;
}

}  // namespace swe::util
