#include "swe/eval/report.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

namespace swe::eval {
namespace {

std::string Fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

const TaskResult* Find(const std::vector<TaskResult>& results, const std::string& task) {
  for (const TaskResult& r : results) {
    if (r.task == task) return &r;
  }
  return nullptr;
}

}  // namespace

std::string ToJsonLine(const std::string& model, const TaskResult& r) {
  nlohmann::ordered_json details = nlohmann::ordered_json::object();
  for (const auto& [name, value] : r.details) details[name] = value;
  const nlohmann::ordered_json j = {{"model", model}, {"task", r.task},   {"metric", r.metric},  {"score", r.score},
                                    {"n", r.n},         {"seconds", r.seconds}, {"details", details}};
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string MarkdownTables(const std::vector<std::string>& models, const std::vector<std::vector<TaskResult>>& results,
                           bool details) {
  // Task order: first appearance across models.
  std::vector<std::string> tasks;
  for (const auto& rs : results) {
    for (const TaskResult& r : rs) {
      if (std::find(tasks.begin(), tasks.end(), r.task) == tasks.end()) tasks.push_back(r.task);
    }
  }
  std::string out = "| task | metric | n |";
  std::string rule = "|---|---|---:|";
  for (const std::string& m : models) out += " " + m + " |", rule += "---:|";
  out += "\n" + rule + "\n";
  for (const std::string& task : tasks) {
    const TaskResult* any = nullptr;
    for (const auto& rs : results) any = any ? any : Find(rs, task);
    out += "| " + task + " | " + any->metric + " | " + std::to_string(any->n) + " |";
    for (const auto& rs : results) {
      const TaskResult* r = Find(rs, task);
      out += " " + (r ? Fixed(r->score, 1) : std::string("-")) + " |";
    }
    out += "\n";
  }
  if (!details) return out;
  std::string table;
  for (const std::string& task : tasks) {
    std::vector<std::string> names;
    for (const auto& rs : results) {
      if (const TaskResult* r = Find(rs, task)) {
        for (const auto& d : r->details) {
          if (std::find(names.begin(), names.end(), d.first) == names.end()) names.push_back(d.first);
        }
      }
    }
    for (const std::string& name : names) {
      table += "| " + task + " | " + name + " |";
      for (const auto& rs : results) {
        const TaskResult* r = Find(rs, task);
        std::string cell = "-";
        if (r) {
          for (const auto& d : r->details) {
            if (d.first == name) cell = Fixed(d.second, name == "log10_l2" ? 2 : 1);
          }
        }
        table += " " + cell + " |";
      }
      table += "\n";
    }
  }
  if (table.empty()) return out;
  out += "\n| task | detail |";
  rule = "|---|---|";
  for (const std::string& m : models) out += " " + m + " |", rule += "---:|";
  out += "\n" + rule + "\n" + table;
  return out;
}

}  // namespace swe::eval
