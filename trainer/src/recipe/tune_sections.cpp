// The recipe section of teacher fine-tuning: tune (teacher_tune.h), run by `swe-trainer tune` and
// first by `swe-trainer train`; its objectives are written as refine's contrastive ones.
#include "recipe/section_reader.h"
#include "recipe/section_parsers.h"

namespace swe::trainer {
namespace {
using nlohmann::json;

const RecipeKeys<TuneOptions> kTuneKeys = {
    {"output", "the tuned weights written (default: work_dir/teacher.safetensors)", &TuneOptions::output},
    {"tau", "temperature: the objectives' default", &TuneOptions::tau},
    {"batch_size", "examples of each objective per step", &TuneOptions::batch_size},
    {"lr", "AdamW's peak learning rate", &TuneOptions::lr},
    {"weight_decay", "AdamW's decoupled weight decay", &TuneOptions::weight_decay},
    {"warmup", "fraction of the steps over which the rate rises to lr (then falls linearly to 0)",
     &TuneOptions::warmup},
    {"max_epochs", "epochs (passes over the largest objective's examples)", &TuneOptions::max_epochs},
    {"max_steps", "steps at most (0: max_epochs decides); the schedule's length", &TuneOptions::max_steps},
    {"eval_steps", "the held-out loss every this many steps (0: each epoch's end)", &TuneOptions::eval_steps},
    {"patience", "evaluations without a better held-out loss before stopping", &TuneOptions::patience},
    {"heldout", "fraction of each objective's examples held out", &TuneOptions::heldout},
    {"heldout_max", "held-out examples per objective at most (0: no cap)", &TuneOptions::heldout_max},
    {"clip_norm", "gradient-norm clipping (0: none)", &TuneOptions::clip_norm},
    {"snapshots", "also write each evaluation's weights (OUTPUT.step-N.safetensors)", &TuneOptions::snapshots},
    {"seed", "the split's and the batches' seed (default: the recipe's seed)", &TuneOptions::seed},
};

}  // namespace

Status ParseTuneSection(const json& j, Recipe* r) {
  TuneOptions& o = r->tune;
  RecipeSection s(j, "tune");
  ReadKeys(kTuneKeys, &s, &o);
  const json& list = s.Sub("objectives");
  SWE_RETURN_IF_ERROR(s.Done());
  r->has_tune = true;
  if (o.output.empty()) o.output = r->work_dir + "/teacher.safetensors";
  if (r->teacher.kind != "use-lite") return InvalidArgument("recipe: tune fine-tunes a use-lite teacher (teacher.kind)");
  if (!(o.tau > 0)) return InvalidArgument("recipe: tune.tau must be positive");
  if (o.batch_size < 2) return InvalidArgument("recipe: tune.batch_size must be at least 2");
  if (!(o.lr > 0)) return InvalidArgument("recipe: tune.lr must be positive");
  if (!(o.weight_decay >= 0)) return InvalidArgument("recipe: tune.weight_decay must be >= 0");
  if (!(o.warmup >= 0 && o.warmup < 1)) return InvalidArgument("recipe: tune.warmup must be in [0, 1)");
  if (o.max_epochs == 0) return InvalidArgument("recipe: tune.max_epochs must be positive");
  if (o.patience == 0) return InvalidArgument("recipe: tune.patience must be positive");
  if (!(o.heldout > 0 && o.heldout < 1)) return InvalidArgument("recipe: tune.heldout must be in (0, 1)");
  if (!(o.clip_norm >= 0)) return InvalidArgument("recipe: tune.clip_norm must be >= 0");
  if (!list.is_array() || list.empty()) {
    return InvalidArgument("recipe: 'tune.objectives' must be a non-empty list of contrastive objectives");
  }
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string where = "tune.objectives[" + std::to_string(i) + "]";
    ObjectiveSpec spec;
    SWE_RETURN_IF_ERROR(ParseObjective(list[i], where, o.tau, &spec));
    if (spec.kind != ObjectiveKind::kContrastive) {
      return InvalidArgument("recipe: " + where + ".kind must be contrastive (the teacher is tuned on pairs or triples)");
    }
    o.objectives.push_back(spec);
  }
  return Status::Ok();
}

void DescribeTuneKeys(std::vector<std::string>* out) {
  DescribeKeys("tune", kTuneKeys, out);
}

}  // namespace swe::trainer
