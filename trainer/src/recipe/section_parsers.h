// Each recipe section's parser, beside its key table (read with RecipeSection, section_reader.h);
// recipe.cpp calls them in stage order and checks what spans sections. text_sections.cpp: corpus,
// tokenizer, vocab, sample; teacher_sections.cpp: teacher, pca; refine_sections.cpp: refine, compress;
// init_sections.cpp: init and adapt; recipe.cpp: the top-level keys and export. A new key is one row of its section's table.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "recipe/recipe.h"

namespace swe::trainer {

Status ParseCorpusSection(const nlohmann::json& corpus, Recipe* r);
Status ParseTokenizerSection(const nlohmann::json& tokenizer, Recipe* r);
Status ParseVocabSection(const nlohmann::json& vocab, Recipe* r);
Status ParseSampleSection(const nlohmann::json& sample, Recipe* r);
Status ParseTeacherSection(const nlohmann::json& teacher, Recipe* r);
Status ParsePcaSection(const nlohmann::json& pca, Recipe* r);
Status ParseRefineSection(const nlohmann::json& refine, Recipe* r);
Status ParseCompressSection(const nlohmann::json& compress, Recipe* r);
Status ParseInitSection(const nlohmann::json& init, Recipe* r);

// adapt {model, words, min_count, pairs}: a base model gets the corpus's `words` most frequent words it
// lacks, and only their rows are trained (KD against the teacher; contrastive on `pairs` too when
// given). Rewrites *recipe's adapt section into the init and refine sections it stands for.
Status ExpandAdaptSection(nlohmann::json* recipe);

// Shared by the sections: data files at `where` (paths, or {"path", "max", "skip_malformed"}), and the
// CJK modes a recipe may train (tokenizer.cjk, init.cjk; not subwords).
Status ParseDataFiles(const nlohmann::json& data, const std::string& where, std::vector<TupleFile>* out);
const std::vector<std::pair<const char*, CjkMode>>& TrainableCjkModes();

// "section.key<TAB>type<TAB>default<TAB>doc" for every key of the sections each file parses.
void DescribeTextKeys(std::vector<std::string>* out);
void DescribeTeacherKeys(std::vector<std::string>* out);
void DescribeRefineKeys(std::vector<std::string>* out);
void DescribeInitKeys(std::vector<std::string>* out);

}  // namespace swe::trainer
