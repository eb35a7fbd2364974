// The `bert` teacher: a BERT-family Sentence Transformer directory as Hugging Face writes it:
// config.json (model_type bert), model.safetensors (f32, f16 or bf16; keys with or without a "bert."
// prefix), tokenizer.json (WordPiece), and optionally sentence-transformers' modules.json,
// 1_Pooling/config.json (mean or CLS pooling), a Normalize module and sentence_bert_config.json
// (max_seq_length). The forward pass is BERT's: embeddings + LayerNorm, post-LN encoder layers with
// a padding mask and exact (erf) GELU.
#pragma once

#include <memory>

#include "teachers/teacher.h"

namespace swe::trainer {

Status LoadBertTeacher(const TeacherOptions& options, std::unique_ptr<Teacher>* out);

}  // namespace swe::trainer
