"""Model.tokenizer: the model's vocabulary and word splitting, with the calls Model2Vec users make on
its Hugging Face tokenizer (get_vocab, get_vocab_size, token_to_id, id_to_token, encode, encode_batch).
A token here is a word of the text as the model splits it; encode() keeps the ones the model knows
(those that count in the text's vector), as Model2Vec drops unknown tokens before its mean."""
from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple


class Encoding(NamedTuple):
    ids: List[int]                     # vocabulary rows
    tokens: List[str]                  # the words as written in the text
    offsets: List[Tuple[int, int]]     # [start, end) indices into the str


class Tokenizer:
    def __init__(self, model):
        self._model = model

    def get_vocab(self) -> Dict[str, int]:
        """word -> row (a new dict: changing it changes nothing)."""
        return dict(self._model.vocabulary)

    def get_vocab_size(self) -> int:
        return self._model.vocab_size

    def token_to_id(self, token: str) -> Optional[int]:
        """The row of a vocabulary word as stored (folded as the model folds), or None."""
        return self._model.vocabulary.get(token)

    def id_to_token(self, row: int) -> Optional[str]:
        words = self._model._words()
        return words[row] if 0 <= row < len(words) else None

    def encode(self, text: str) -> Encoding:
        known = [t for t in self._model.tokenize(text) if t["row"] >= 0]
        return Encoding([t["row"] for t in known], [t["word"] for t in known], [(t["start"], t["end"]) for t in known])

    def encode_batch(self, texts: Sequence[str]) -> List[Encoding]:
        return [self.encode(text) for text in texts]

    def __repr__(self) -> str:
        return f"swe.Tokenizer(vocab_size={self.get_vocab_size()})"
