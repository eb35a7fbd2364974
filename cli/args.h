// A tiny command-line parser: long options (--name value, --name=value), short aliases (-o value),
// boolean flags, positionals, "--" to end options and "-" as a positional. --help/-h is always known.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace swe::cli {

struct OptionSpec {
  std::string name;      // long name without dashes, e.g. "dims"
  char short_name = 0;   // e.g. 'o', 0 for none
  bool takes_value = false;
};

struct ParsedArgs {
  std::vector<std::string> positional;
  std::map<std::string, std::string> values;  // options with a value (the last one given wins)
  std::set<std::string> flags;                // boolean options given
  bool help = false;

  bool has(const std::string& name) const { return values.count(name) > 0 || flags.count(name) > 0; }
  std::string get(const std::string& name, const std::string& fallback = std::string()) const;
};

// Parses `args` (the words after the subcommand) for `command` (e.g. "swe encode", used in messages).
// Throws UsageError on an unknown option or a missing value.
ParsedArgs ParseArgs(const std::vector<std::string>& args, const std::vector<OptionSpec>& spec,
                     const std::string& command);

// Parses a whole decimal number in [min, max] given for `what`; throws UsageError otherwise.
uint64_t ParseCount(const std::string& text, const std::string& what, uint64_t min, uint64_t max);

}  // namespace swe::cli
