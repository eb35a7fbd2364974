// A small command-line parser for the swe and swe-trainer programs: long options (--name value,
// --name=value), short aliases (-o value), boolean flags, options followed by two words
// (--teacher KIND DIR), positionals, "--" to end options and "-" as a positional. --help/-h is always
// known. Every mistake is a UsageError (the programs exit with 2).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace swe::util {

// A usage error; `command` (e.g. "swe encode") adds a pointer to its --help.
class UsageError : public std::runtime_error {
 public:
  explicit UsageError(const std::string& message, const std::string& command = std::string())
      : std::runtime_error(command.empty() ? message : message + " (see '" + command + " --help')") {}
};

struct OptionSpec {
  std::string name;      // long name without dashes, e.g. "dims"
  char short_name = 0;   // e.g. 'o', 0 for none
  int values = 0;        // words that follow it: 0 (a flag), 1 or 2
};

struct ParsedArgs {
  std::vector<std::string> positional;
  std::map<std::string, std::vector<std::string>> values;  // options with values (the last one given wins)
  std::set<std::string> flags;                             // boolean options given
  bool help = false;

  bool has(const std::string& name) const { return values.count(name) > 0 || flags.count(name) > 0; }
  // The (first) value of `name`, or `fallback` when it was not given.
  std::string get(const std::string& name, const std::string& fallback = std::string()) const;
};

// Parses `args` (the words after the program or subcommand) for `command` (used in messages).
ParsedArgs ParseArgs(const std::vector<std::string>& args, const std::vector<OptionSpec>& spec,
                     const std::string& command);

// Parses a whole decimal number in [min, max] given for `what`; throws UsageError otherwise.
uint64_t ParseCount(const std::string& text, const std::string& what, uint64_t min, uint64_t max);

}  // namespace swe::util
