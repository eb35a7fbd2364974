// Refinement's checkpoint (refine_internal.h, TrainState): a header line with the key, then the
// payload's size and FNV-1a hash, then the payload: a torch archive of the state, tensors on the CPU.
// A file made under another key, or whose payload is not the one its header describes (cut short,
// damaged), is not used.
#include <torch/torch.h>

#include <algorithm>
#include <cstring>
#include <sstream>

#include "data/corpus.h"
#include "refine/refine_internal.h"
#include "swe/util/file.h"

namespace swe::trainer {
namespace {

constexpr char kMagic[] = "swe-trainer refine checkpoint 1\n";

torch::Tensor Int64s(const std::vector<int64_t>& v) {
  return torch::tensor(v, torch::TensorOptions().dtype(torch::kInt64));
}
torch::Tensor Doubles(const std::vector<double>& v) {
  return torch::tensor(v, torch::TensorOptions().dtype(torch::kFloat64));
}
torch::Tensor Indices(const std::vector<size_t>& v) { return Int64s(std::vector<int64_t>(v.begin(), v.end())); }
torch::Tensor Bytes(const std::string& s) {
  return torch::from_blob(const_cast<char*>(s.data()), {static_cast<int64_t>(s.size())}, torch::kUInt8).clone();
}

template <typename T>
std::vector<T> Values(const torch::Tensor& t) {
  const torch::Tensor c = t.contiguous();
  return std::vector<T>(c.data_ptr<T>(), c.data_ptr<T>() + c.numel());
}

torch::Tensor Read(torch::serialize::InputArchive& archive, const std::string& key, torch::ScalarType type) {
  torch::Tensor t;
  archive.read(key, t);
  if (t.scalar_type() != type || t.dim() > 2) throw std::runtime_error(key + ": another type");
  return t;
}

// A tensor of the shape and type of `like` (on the CPU), or an error naming `key`.
torch::Tensor ReadLike(torch::serialize::InputArchive& archive, const std::string& key, const torch::Tensor& like) {
  torch::Tensor t;
  archive.read(key, t);
  if (t.sizes() != like.sizes() || t.scalar_type() != like.scalar_type()) throw std::runtime_error(key + ": another shape");
  return t;
}

}  // namespace

Status WriteTrainState(const std::string& path, const std::string& key, const TrainState& s) {
  torch::serialize::OutputArchive a;
  const RefineReport& r = s.report;
  a.write("counters", Int64s({s.epoch, static_cast<int64_t>(s.batch), static_cast<int64_t>(s.step), s.since_best,
                              s.done, r.best_epoch, static_cast<int64_t>(r.train_sentences),
                              static_cast<int64_t>(r.heldout_sentences)}));
  a.write("losses", Doubles({s.epoch_loss, r.initial_heldout, r.best_heldout}));
  a.write("train_loss", Doubles(r.train_loss));
  a.write("heldout_loss", Doubles(r.heldout_loss));
  a.write("initial_parts", Doubles(r.initial_parts));
  a.write("best_parts", Doubles(r.best_parts));
  std::ostringstream rng;
  rng << s.rng;
  a.write("rng", Bytes(rng.str()));
  std::vector<int64_t> positions;
  for (size_t t = 0; t < s.splits.size(); ++t) {
    a.write("order_" + std::to_string(t), Indices(s.splits[t].train));
    positions.push_back(static_cast<int64_t>(s.splits[t].pos));
  }
  a.write("positions", Int64s(positions));
  a.write("table", s.table.detach().to(torch::kCPU));
  a.write("best", s.best.to(torch::kCPU));
  if (s.lazy_m.defined()) {
    a.write("lazy_m", s.lazy_m.to(torch::kCPU));
    a.write("lazy_v", s.lazy_v.to(torch::kCPU));
  }
  for (size_t i = 0; i < s.extra.size(); ++i) {
    a.write("extra_" + std::to_string(i), s.extra[i].detach().to(torch::kCPU));
    a.write("best_extra_" + std::to_string(i), s.best_extra[i].to(torch::kCPU));
  }
  a.write("adam", Bytes(s.adam));
  std::string payload;
  a.save_to([&payload](const void* data, size_t n) {
    payload.append(static_cast<const char*>(data), n);
    return n;
  });
  const std::string head = std::string(kMagic) + key + "\n" + std::to_string(payload.size()) + " " +
                           HexU64(Fnv1a64(payload)) + "\n";
  std::string error;
  if (!util::WriteFileAtomically(path, {{head.data(), head.size()}, {payload.data(), payload.size()}}, &error)) {
    return IoError(error);
  }
  return Status::Ok();
}

namespace {

// The payload of a checkpoint file's `bytes` when its header names `key` and its size and hash match;
// else false with why.
bool FindPayload(const std::string& bytes, const std::string& key, std::string_view* payload, std::string* why) {
  const std::string head = std::string(kMagic) + key + "\n";
  if (bytes.compare(0, head.size(), head) != 0) {
    *why = bytes.compare(0, sizeof kMagic - 1, kMagic) == 0 ? "made for other inputs or settings" : "not a checkpoint";
    return false;
  }
  const size_t line_end = bytes.find('\n', head.size());
  std::istringstream sizes(bytes.substr(head.size(), line_end == std::string::npos ? 0 : line_end - head.size()));
  uint64_t size = 0;
  std::string hash;
  const char* data = bytes.data() + line_end + 1;
  if (!(sizes >> size >> hash) || size != bytes.size() - line_end - 1 ||
      hash != HexU64(Fnv1a64(std::string_view(data, size)))) {
    *why = "damaged (cut short or changed)";
    return false;
  }
  *payload = std::string_view(data, size);
  return true;
}

// The state in `payload` (a torch archive, tensors on the CPU), checked against the run's fresh state
// `run`: its splits hold the same examples, its tensors have the same shapes. Throws what does not fit.
TrainState ReadArchive(std::string_view payload, const TrainState& run) {
  TrainState s;
  torch::serialize::InputArchive a;
  a.load_from(payload.data(), payload.size(), torch::Device(torch::kCPU));
  const std::vector<int64_t> c = Values<int64_t>(Read(a, "counters", torch::kInt64));
  const std::vector<double> l = Values<double>(Read(a, "losses", torch::kFloat64));
  if (c.size() != 8 || l.size() != 3 || c[0] < 1 || c[1] < 0 || c[2] < 0 || c[3] < 0 || c[5] < 0) {
    throw std::runtime_error("counters");
  }
  s.epoch = static_cast<uint32_t>(c[0]);
  s.batch = static_cast<uint64_t>(c[1]);
  s.step = static_cast<uint64_t>(c[2]);
  s.since_best = static_cast<uint32_t>(c[3]);
  s.done = c[4] != 0;
  RefineReport& r = s.report;
  r.best_epoch = static_cast<uint32_t>(c[5]);
  r.train_sentences = static_cast<uint64_t>(c[6]);
  r.heldout_sentences = static_cast<uint64_t>(c[7]);
  s.epoch_loss = l[0];
  r.initial_heldout = l[1];
  r.best_heldout = l[2];
  r.train_loss = Values<double>(Read(a, "train_loss", torch::kFloat64));
  r.heldout_loss = Values<double>(Read(a, "heldout_loss", torch::kFloat64));
  r.initial_parts = Values<double>(Read(a, "initial_parts", torch::kFloat64));
  r.best_parts = Values<double>(Read(a, "best_parts", torch::kFloat64));
  const std::vector<uint8_t> rng = Values<uint8_t>(Read(a, "rng", torch::kUInt8));
  std::istringstream rng_text(std::string(rng.begin(), rng.end()));
  if (!(rng_text >> s.rng)) throw std::runtime_error("rng");
  const std::vector<int64_t> positions = Values<int64_t>(Read(a, "positions", torch::kInt64));
  if (positions.size() != run.splits.size()) throw std::runtime_error("positions");
  s.splits = run.splits;
  for (size_t t = 0; t < s.splits.size(); ++t) {
    const std::vector<int64_t> order = Values<int64_t>(Read(a, "order_" + std::to_string(t), torch::kInt64));
    std::vector<size_t>& train = s.splits[t].train;
    std::vector<size_t> sorted(order.begin(), order.end()), fresh = train;
    std::sort(sorted.begin(), sorted.end());
    std::sort(fresh.begin(), fresh.end());
    // The same examples (a permutation of the fresh split), and a position within them.
    if (sorted != fresh || positions[t] < 0 || static_cast<size_t>(positions[t]) > train.size()) {
      throw std::runtime_error("splits");
    }
    train.assign(order.begin(), order.end());
    s.splits[t].pos = static_cast<size_t>(positions[t]);
  }
  s.table = ReadLike(a, "table", run.table.detach().to(torch::kCPU));
  s.best = ReadLike(a, "best", run.table.detach().to(torch::kCPU));
  if (run.lazy_m.defined()) {
    s.lazy_m = ReadLike(a, "lazy_m", run.lazy_m.to(torch::kCPU));
    s.lazy_v = ReadLike(a, "lazy_v", run.lazy_v.to(torch::kCPU));
  }
  for (size_t i = 0; i < run.extra.size(); ++i) {
    const torch::Tensor like = run.extra[i].detach().to(torch::kCPU);
    s.extra.push_back(ReadLike(a, "extra_" + std::to_string(i), like));
    s.best_extra.push_back(ReadLike(a, "best_extra_" + std::to_string(i), like).to(run.extra[i].device()));
  }
  const std::vector<uint8_t> adam = Values<uint8_t>(Read(a, "adam", torch::kUInt8));
  s.adam.assign(adam.begin(), adam.end());
  return s;
}

// `s` (read whole and checked) taken as the run's state: its tensors copied into the state's own
// (optimisers and losses hold them), the rest replaced.
void Adopt(TrainState s, TrainState* state) {
  {
    torch::NoGradGuard guard;
    state->table.copy_(s.table);
    if (state->lazy_m.defined()) {
      state->lazy_m.copy_(s.lazy_m);
      state->lazy_v.copy_(s.lazy_v);
    }
    for (size_t i = 0; i < s.extra.size(); ++i) state->extra[i].copy_(s.extra[i]);
  }
  s.table = state->table;
  s.lazy_m = state->lazy_m;
  s.lazy_v = state->lazy_v;
  s.extra = state->extra;
  s.best = s.best.to(state->table.device());
  *state = std::move(s);
}

}  // namespace

bool ReadTrainState(const std::string& path, const std::string& key, TrainState* state, std::string* why) {
  why->clear();
  std::string bytes, error;
  if (!util::ReadFile(path, &bytes, &error)) return false;  // none yet
  std::string_view payload;
  if (!FindPayload(bytes, key, &payload, why)) return false;
  TrainState s;  // read whole, checked against `state`, then taken
  try {
    s = ReadArchive(payload, *state);
  } catch (const std::exception& e) {
    *why = std::string("damaged (") + e.what() + ")";
    return false;
  }
  Adopt(std::move(s), state);
  return true;
}

}  // namespace swe::trainer
