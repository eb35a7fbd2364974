/* swe.h: the C API of libswe, static word embeddings for sentence semantics.
 *
 * This header is the only ABI of the project: the `swe` command-line program, the WebAssembly build and
 * bindings for other languages all use it. A sentence vector is the (optionally weighted) mean of the
 * vectors of the text's known words, L2-normalised when the model says so.
 *
 * Conventions
 *   - Every fallible function returns an `swe_status` (SWE_OK = 0). On failure `swe_last_error()` gives
 *     a message for the calling thread, and output parameters are left unspecified (handles: NULL).
 *   - Text is UTF-8 given as pointer + byte length; it need not be NUL-terminated (NULL is allowed when
 *     the length is 0). Invalid UTF-8 is tolerated (decoded as U+FFFD), never an error.
 *   - Output arrays are owned by the caller; each call says how large they must be, and a call whose
 *     buffer is too small fails with SWE_ERR_INVALID_ARGUMENT without writing past it.
 *   - Nothing throws, aborts or prints; allocation failure is SWE_ERR_OUT_OF_MEMORY.
 *   - Thread safety: a loaded `swe_model` is immutable and may be used from any number of threads at
 *     once. An `swe_index` may be used from any number of threads at once by every call but
 *     swe_index_free(), and a search never waits for a change: a call that reads the index (search,
 *     get, find, contains, save to bytes, ...) reads the version the last change published (an atomic
 *     load of a pointer), while a call that changes it (swe_index_add, _add_docs, _remove, _reserve,
 *     _set_model, _refresh_from_file) waits for the change or save before it, edits the index's next
 *     version (which shares all it does not change with the published one: a change costs what it
 *     changes, not the index) and publishes it when done. So every call sees the index before or after
 *     each change, never during one. Saves to a file (swe_index_save_to_file, _compact_to_file,
 *     _save_changes) run one at a time with the changes, beside searches. The first approximate
 *     search of an index codes its rows, as a change. The library does all of this; callers need no
 *     lock. swe_index_free() must be the last call on an index, with no other in progress. An
 *     `swe_encoder` serves one thread at a time. The swe_vectors_* functions keep no state. (Tested
 *     under ThreadSanitizer: tests/libswe/c_api_threads_test.cpp.)
 *   - Per-thread state: the swe_model_* encode calls reuse, in each thread until it exits, an encoder
 *     for the model and dims it used last (a few KB; it serves texts of up to 4 KB, longer ones get an
 *     encoder of their own for the call), because building one per call cost a short text about a
 *     tenth of its time. Callers that want to own that state (thread pools, many models, memory
 *     accounting) make an swe_encoder instead (see "encoders"). Every thread also keeps a cache of the
 *     unknown words it resolved by their subword pieces (up to 300 KB, shared by all its encoders).
 *
 * Example
 *
 *     swe_model * model = NULL;
 *     if (swe_model_load_from_file("model.swe", NULL, &model) != SWE_OK) {
 *         fprintf(stderr, "error: %s\n", swe_last_error());
 *         return 1;
 *     }
 *     const uint32_t dims = swe_model_get_dims(model);
 *     float * a = malloc(dims * sizeof(float));
 *     float * b = malloc(dims * sizeof(float));
 *     swe_model_encode_text(model, "A cat sits on the mat", 21, NULL, a, dims, NULL);
 *     swe_model_encode_text(model, "A kitten rests on a rug", 23, NULL, b, dims, NULL);
 *
 *     swe_index * index = NULL;
 *     swe_index_create(dims, SWE_DTYPE_F32, &index);
 *     const uint64_t ids[2] = { 1, 2 };
 *     float both[2 * 256];                       // dims <= 256 in this example
 *     memcpy(both, a, dims * sizeof(float));
 *     memcpy(both + dims, b, dims * sizeof(float));
 *     swe_index_add(index, ids, both, 2);
 *
 *     uint64_t hit_ids[2]; float hit_scores[2]; size_t n_hits = 0;
 *     swe_index_search(index, a, dims, 2, NULL, hit_ids, hit_scores, &n_hits);   // hit_ids[0] == 1
 *
 *     swe_index_free(index);
 *     swe_model_free(model);
 *     free(a); free(b);
 */
#ifndef SWE_H
#define SWE_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32) && !defined(__MINGW32__)
#  if defined(SWE_SHARED) && defined(SWE_BUILD)
#    define SWE_API __declspec(dllexport)
#  elif defined(SWE_SHARED)
#    define SWE_API __declspec(dllimport)
#  else
#    define SWE_API
#  endif
#elif defined(__GNUC__) || defined(__clang__)
#  define SWE_API __attribute__((visibility("default")))
#else
#  define SWE_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- status ------------------------------------------------------------------------------------ */

/* Values mirror swe::StatusCode in core/include/swe/status.h; SWE_ERR_OUT_OF_MEMORY is C-API only. */
typedef int32_t swe_status;
enum {
    SWE_OK                   = 0,
    SWE_ERR_INVALID_ARGUMENT = 1, /* an unusable argument: NULL pointer, wrong size, bad option */
    SWE_ERR_CORRUPT          = 2, /* the bytes are not a valid .swe file */
    SWE_ERR_UNSUPPORTED      = 3, /* a valid file of a newer format version or unknown feature */
    SWE_ERR_TOO_LARGE        = 4, /* a declared size exceeds the reader's limits */
    SWE_ERR_IO               = 5, /* reading or writing a file failed */
    SWE_ERR_NOT_FOUND        = 6, /* e.g. an id that is not in an index */
    SWE_ERR_INTERNAL         = 7, /* a bug: please report it */
    SWE_ERR_OUT_OF_MEMORY    = 8, /* an allocation failed */
};

/* Short stable name of a status ("ok", "corrupt", ...); "unknown" for values not listed above. */
SWE_API const char * swe_status_name(swe_status status);

/* Message describing the last failure of an swe_* call in the calling thread ("" when none has failed
 * yet). Successful calls do not clear it. The pointer is valid until the next failing call in the same
 * thread. */
SWE_API const char * swe_last_error(void);

/* Library version, "MAJOR.MINOR.PATCH" (the project's VERSION file). */
SWE_API const char * swe_version(void);

/* ---- models ------------------------------------------------------------------------------------ */

typedef struct swe_model swe_model;

/* Storage type of an embedding table or index. */
enum {
    SWE_DTYPE_F32  = 0,
    SWE_DTYPE_F16  = 1,
    SWE_DTYPE_INT8 = 2,
};

/* Short name of a storage type ("f32", "f16", "int8"); "unknown" for values not listed above. */
SWE_API const char * swe_dtype_name(int32_t dtype);

/* Limits a reader applies before it allocates (see swe::ReadLimits). Lower them for untrusted input
 * in small heaps. A file over a limit fails with SWE_ERR_TOO_LARGE (max_dims included). */
typedef struct swe_load_params {
    uint64_t max_payload_bytes; /* decompressed message size */
    uint32_t max_rows;          /* vocabulary words / index entries */
    uint32_t max_dims;
} swe_load_params;

/* Defaults that fit any realistic model. */
SWE_API swe_load_params swe_load_default_params(void);

/* Decodes and validates a .swe model from `size` bytes at `data` (copied: the buffer may be freed
 * after the call). `params` may be NULL for the defaults. On success *out owns a model; free it with
 * swe_model_free(). */
SWE_API swe_status swe_model_load_from_bytes(const uint8_t * data, size_t size, const swe_load_params * params,
                                             swe_model ** out);

/* Reads the file at `path` (UTF-8) and loads it as swe_model_load_from_bytes() does; a regular file is
 * read once into memory the model keeps, so a raw payload (docs/FORMAT.md) is used in place. A pipe or
 * device is read only while it can be a .swe file: a bad magic fails at once (SWE_ERR_CORRUPT), and
 * more bytes than `params` allow with SWE_ERR_TOO_LARGE. */
SWE_API swe_status swe_model_load_from_file(const char * path, const swe_load_params * params, swe_model ** out);

/* A buffer for a model file that swe_model_load_from_buffer() takes over: `size` bytes, 8-byte
 * aligned (a raw payload is then used where it lies), NULL when out of memory. Fill it with the
 * file's bytes (e.g. from JS, straight into the wasm heap), then load it; free it with
 * swe_model_buffer_free() only if it is never loaded. */
SWE_API uint8_t * swe_model_buffer_new(size_t size);
SWE_API void swe_model_buffer_free(uint8_t * buffer);

/* Loads a model from `size` bytes (at most what swe_model_buffer_new() was asked for) of a buffer
 * from swe_model_buffer_new(), which the call takes over whatever it returns: the model keeps it (a
 * raw payload is used in place, no copy: half the peak memory of swe_model_load_from_bytes()) or
 * it is freed. `buffer` NULL is an invalid argument. */
SWE_API swe_status swe_model_load_from_buffer(uint8_t * buffer, size_t size, const swe_load_params * params,
                                              swe_model ** out);

/* Frees a model (NULL is allowed). Strings the model returned become invalid. */
SWE_API void swe_model_free(swe_model * model);

/* Dimensions of the model's vectors (0 for NULL). */
SWE_API uint32_t swe_model_get_dims(const swe_model * model);

/* Number of vocabulary words (rows of the table; 0 for NULL). */
SWE_API uint32_t swe_model_get_vocab_size(const swe_model * model);

/* A JSON object describing the model, owned by the model (valid until swe_model_free()); NULL for a
 * NULL model. Keys: name, description, placeholder, dims, vocab_size, dtype ("f32"|"f16"|"int8"),
 * file_size, normalize, weighted, checksum (8 hex digits), teacher, corpus, corpus_hash, recipe,
 * created_by, scores ([{task, metric, value}]), extra ({key: value}), tokenizer ({fold_case,
 * strip_accents, cjk ("none"|"characters"|"subwords"|"bigrams"|"longest"), max_tokens, subword,
 * subword_pieces}). */
SWE_API const char * swe_model_get_info_json(const swe_model * model);

/* The vocabulary word at `row` (< vocab size): *out_data points into the model (not NUL-terminated,
 * valid until swe_model_free()), *out_size is its length in bytes. */
SWE_API swe_status swe_model_get_word(const swe_model * model, uint32_t row, const char ** out_data,
                                      size_t * out_size);

/* Rows first_row .. first_row + n_rows - 1 of the model's table, the word vectors a sentence vector is
 * the (weighted) mean of, as floats: row-major into `out` (`out_capacity` floats, at least n_rows *
 * dims); f16 rows widened, int8 rows multiplied by their scales. `out_weights` (may be NULL; else n_rows
 * floats) receives each row's weight in that mean (1 when the model has none). Encoding sums int8 rows
 * in integers with fixed-point weights (docs/FORMAT.md, "Determinism"), so the mean of these rows is
 * close to a sentence vector (measured: 5e-5 on values near 1), not equal bit for bit. */
SWE_API swe_status swe_model_get_rows(const swe_model * model, uint32_t first_row, uint32_t n_rows, float * out,
                                      size_t out_capacity, float * out_weights);

/* ---- encoding ---------------------------------------------------------------------------------- */

/* How sentence vectors are scaled (swe_encode_params.normalize). */
enum {
    SWE_NORMALIZE_MODEL = 0, /* as the model says (its info's "normalize"; every shipped model: unit) */
    SWE_NORMALIZE_UNIT  = 1, /* to unit length (L2); the zero vector stays zero */
    SWE_NORMALIZE_NONE  = 2, /* not at all: the (weighted) mean of the text's word vectors */
};

/* How texts are encoded. A zeroed struct is the defaults. */
typedef struct swe_encode_params {
    uint32_t dims;        /* keep only the first `dims` dimensions, scaled after truncation (0 = all) */
    int32_t normalize;    /* SWE_NORMALIZE_* (0: SWE_NORMALIZE_MODEL) */
    uint32_t max_tokens;  /* only the first max_tokens words of a text count (for a model of subword
                           * pieces: its first max_tokens known pieces); 0 = the model's own limit
                           * (info tokenizer.max_tokens; 0 there: every word), UINT32_MAX = none */
} swe_encode_params;

/* Defaults: all dimensions, scaled as the model says, the model's word limit. */
SWE_API swe_encode_params swe_encode_default_params(void);

/* Dimensions a vector has under `params` (NULL = defaults); 0 when params->dims exceeds the model's
 * dims or the model is NULL. */
SWE_API uint32_t swe_model_get_encode_dims(const swe_model * model, const swe_encode_params * params);

/* Encodes one text into `out` (`out_capacity` floats, at least swe_model_get_encode_dims()). Text with
 * no known word gives the zero vector. `out_n_words` (may be NULL) receives how many words contributed. */
SWE_API swe_status swe_model_encode_text(const swe_model * model, const char * text, size_t text_size,
                                         const swe_encode_params * params, float * out, size_t out_capacity,
                                         uint32_t * out_n_words);

/* A text as pointer + byte length. */
typedef struct swe_text {
    const char * data;
    size_t size;
} swe_text;

/* Encodes `n` texts into `out`, row-major: `out_capacity` floats, at least n * encode dims. Faster than
 * n calls of swe_model_encode_text() (one encoder for the whole batch), with the same vectors bit for
 * bit. `out_n_words` (may be NULL; else n elements) receives how many words of each text contributed,
 * as swe_model_encode_text() counts them: 0 for a text that encodes to the zero vector. */
SWE_API swe_status swe_model_encode_batch(const swe_model * model, const swe_text * texts, size_t n,
                                          const swe_encode_params * params, float * out, size_t out_capacity,
                                          uint32_t * out_n_words);

/* How many words of a text are known to the model (*out_n_words; the n_words that
 * swe_model_encode_text() reports). 0 means the text encodes to the zero vector: it matches nothing. */
SWE_API swe_status swe_model_count_known_words(const swe_model * model, const char * text, size_t text_size,
                                               uint32_t * out_n_words);

/* Cosine similarity of the vectors of two texts, in [-1, 1] (0 when either has no known word). */
SWE_API swe_status swe_model_compute_similarity(const swe_model * model, const char * a, size_t a_size,
                                                const char * b, size_t b_size, const swe_encode_params * params,
                                                float * out_score);

/* ---- encoders: the per-thread encoder state, owned by the caller ------------------------------- */

/* An encoder of one model: the tokenizer and buffers that the swe_model_encode_* calls otherwise keep
 * per thread. The model must outlive it. One thread at a time may use it (it may move between
 * threads); it keeps its buffers, sized by the longest text or batch it encoded, until freed. Its
 * vectors are bit for bit those of swe_model_encode_text() and swe_model_encode_batch(). */
typedef struct swe_encoder swe_encoder;

/* A new encoder of `model`; free it with swe_encoder_free(). */
SWE_API swe_status swe_encoder_new(const swe_model * model, swe_encoder ** out);

/* Frees an encoder (NULL is allowed). */
SWE_API void swe_encoder_free(swe_encoder * encoder);

/* swe_model_encode_text() with the caller's encoder. */
SWE_API swe_status swe_encoder_encode_text(swe_encoder * encoder, const char * text, size_t text_size,
                                           const swe_encode_params * params, float * out, size_t out_capacity,
                                           uint32_t * out_n_words);

/* swe_model_encode_batch() with the caller's encoder. */
SWE_API swe_status swe_encoder_encode_batch(swe_encoder * encoder, const swe_text * texts, size_t n,
                                            const swe_encode_params * params, float * out, size_t out_capacity,
                                            uint32_t * out_n_words);

/* ---- tokenization ------------------------------------------------------------------------------ */

/* How a word of a text matched the vocabulary (see swe::Match). */
enum {
    SWE_MATCH_EXACT    = 0, /* the word as written */
    SWE_MATCH_FOLDED   = 1, /* its case-folded form */
    SWE_MATCH_STRIPPED = 2, /* folded and accent-stripped */
    SWE_MATCH_PREFIX   = 3, /* a subword prefix of it */
    SWE_MATCH_UNKNOWN  = 4, /* skipped: contributes nothing */
};

/* Short name of a match kind ("exact", "folded", "stripped", "prefix", "unknown"). */
SWE_API const char * swe_match_name(int32_t match);

/* One word of a text: 16 bytes, four 32-bit fields, no padding. */
typedef struct swe_token {
    uint32_t begin; /* byte range [begin, end) of the word in the text */
    uint32_t end;
    int32_t  row;   /* vocabulary row, -1 when unknown */
    int32_t  match; /* SWE_MATCH_* */
} swe_token;

/* Splits a text into words and reports how each matched, in text order, known and skipped alike.
 * *out_n_tokens always receives the number of words. Pass tokens = NULL to ask for that number only;
 * otherwise `capacity` must be at least that number. Texts of 4 GiB or more are rejected. */
SWE_API swe_status swe_model_analyze_text(const swe_model * model, const char * text, size_t text_size,
                                          swe_token * tokens, size_t capacity, size_t * out_n_tokens);

/* ---- index ------------------------------------------------------------------------------------- */

/* A flat, exact cosine index of (uint64 id, vector) entries. Vectors are L2-normalised when added;
 * equal scores are ordered by ascending id. Large indexes can also be searched approximately, much
 * faster (swe_search_params). */
typedef struct swe_index swe_index;

/* A new empty index of `dims`-dimensional vectors stored as SWE_DTYPE_F32 or SWE_DTYPE_INT8. */
SWE_API swe_status swe_index_create(uint32_t dims, int32_t dtype, swe_index ** out);

/* Reads an index from bytes written by swe_index_save_to_bytes(), or an index file with the change
 * records later saves appended (docs/FORMAT.md, "Index change log": validated like a model file; a
 * torn last record, left by an interrupted save, is ignored). `params` may be NULL for the defaults. */
SWE_API swe_status swe_index_load_from_bytes(const uint8_t * data, size_t size, const swe_load_params * params,
                                             swe_index ** out);

/* Reads the index file at `path` (a pipe or device as swe_model_load_from_file() reads one). */
SWE_API swe_status swe_index_load_from_file(const char * path, const swe_load_params * params, swe_index ** out);

/* Frees an index (NULL is allowed). */
SWE_API void swe_index_free(swe_index * index);

/* Number of entries (0 for NULL). */
SWE_API size_t swe_index_get_size(const swe_index * index);

/* Dimensions of the stored vectors (0 for NULL). */
SWE_API uint32_t swe_index_get_dims(const swe_index * index);

/* SWE_DTYPE_F32 or SWE_DTYPE_INT8 (-1 for NULL). */
SWE_API int32_t swe_index_get_dtype(const swe_index * index);

/* Adds `n` entries: ids[i] with the vector vectors[i * dims .. (i + 1) * dims). An id already present
 * is replaced (within one call, a later equal id replaces an earlier one). Integer ids and documents
 * share the entry ids: an id whose entry holds a document (swe_index_add_docs()) is refused, since
 * its id, text and metadata would stay on the new vector (replace it with swe_index_add_docs(), or
 * remove it first). Rejects non-finite values. All or nothing: on failure no entry was added or
 * replaced (short of running out of memory midway). */
SWE_API swe_status swe_index_add(swe_index * index, const uint64_t * ids, const float * vectors, size_t n);

/* Makes room for `more` entries beyond the index's size. SWE_ERR_TOO_LARGE, with nothing changed, when
 * one index file could not hold them (its vectors are one table of at most 512 MiB: 524,287 f32
 * entries of 256 dims, four times as many int8): a caller that knows how many entries come fails
 * before encoding them. Adding refuses an entry past that limit anyway. */
SWE_API swe_status swe_index_reserve(swe_index * index, size_t more);

/* Removes the entry `id` (SWE_ERR_NOT_FOUND when absent). */
SWE_API swe_status swe_index_remove(swe_index * index, uint64_t id);

/* 1 when `id` is in the index, else 0. */
SWE_API int32_t swe_index_contains(const swe_index * index, uint64_t id);

/* How swe_index_search() and swe_index_search_batch() search (params NULL = the defaults).
 *
 * candidates = 0 (the default): exact search.
 * candidates = N (at least k): approximate "binary" search. Every entry also gets a 1-bit-per-dimension
 *   code (above or below the mean of the index's vectors); the N entries whose codes are nearest the
 *   query's (Hamming distance) are rescored exactly and the k best of those returned, with the same
 *   scores exact search gives them. It is much faster on large indexes but may miss hits: measured on a
 *   million int8 sentence vectors (docs/BENCHMARKS.md, bench/search_bench.cpp), k = 10 and N = 300
 *   ran 7-25x faster than exact search (by CPU) at recall@10 0.96; N = 2000 at 0.99. N at or above the
 *   index's size is exact search. Small indexes (under ~10,000 entries) gain little.
 *   The codes cost dims / 8 bytes per entry (+12.5% of an int8 index) and exist only once an
 *   approximate search has run: the first one builds them (O(size * dims), about 0.5 s per million
 *   entries, once; safe while other threads search), adding and removing keep them up to date
 *   afterwards. They are not saved. */
typedef struct swe_search_params {
    size_t candidates;
} swe_search_params;

/* Defaults: exact search (candidates = 0). */
SWE_API swe_search_params swe_search_default_params(void);

/* The k best entries for `query` (`query_dims` floats, equal to the index's dims), best first, into
 * `out_ids` and `out_scores` (k elements each), searched as `params` says (NULL = exact search).
 * *out_n receives the number of hits, min(k, size); 0 for the zero vector (a text with no known word),
 * which is similar to nothing. Fails with SWE_ERR_INVALID_ARGUMENT when params->candidates is neither
 * 0 nor at least k. */
SWE_API swe_status swe_index_search(const swe_index * index, const float * query, uint32_t query_dims, size_t k,
                                    const swe_search_params * params, uint64_t * out_ids, float * out_scores,
                                    size_t * out_n);

/* Searches `n_queries` queries at once (row-major, n_queries * query_dims floats), keeping only hits
 * scoring at least `min_score` (-INFINITY keeps all; NaN is refused), searched as `params` says (NULL =
 * exact search). Query q's hits go to out_ids/out_scores[q * k ..], and their number to out_counts[q]
 * (n_queries elements). */
SWE_API swe_status swe_index_search_batch(const swe_index * index, const float * queries, size_t n_queries,
                                          uint32_t query_dims, size_t k, float min_score,
                                          const swe_search_params * params, uint64_t * out_ids, float * out_scores,
                                          size_t * out_counts);

/* The ids of all entries, in storage order (which adding and removing change): pass out_ids = NULL to
 * ask for their number (*out_n) only; otherwise `capacity` must be at least that number. (Another
 * thread may change the number between two calls: a call whose capacity has become too small fails
 * with SWE_ERR_INVALID_ARGUMENT, *out_n holding the number now needed.) */
SWE_API swe_status swe_index_get_ids(const swe_index * index, uint64_t * out_ids, size_t capacity, size_t * out_n);

/* ---- documents: string ids, texts and metadata saved with the index ------------------------------ */

/* A document: its string id (non-empty, unique in the index), its text and its metadata (a JSON text),
 * each UTF-8; text and metadata may be empty (size 0) when not stored. */
typedef struct swe_doc {
    swe_text id;
    swe_text text;
    swe_text metadata;
} swe_doc;

/* Adds `n` documents with their vectors (vectors[i * dims ..]). A document whose id is in the index
 * replaces that entry (vector, text and metadata); a new one gets a new entry id (one more than the
 * largest), which swe_index_search() returns. Rejects empty or duplicate ids, invalid UTF-8, metadata
 * that is not JSON or nests arrays and objects more than 128 levels deep, and non-finite values. All
 * or nothing: every document is checked before any is added, so on failure none was (short of
 * running out of memory midway). */
SWE_API swe_status swe_index_add_docs(swe_index * index, const swe_doc * docs, const float * vectors, size_t n);

/* The entry id of the document with string id `id` (SWE_ERR_NOT_FOUND when none has it). Removing
 * that entry (swe_index_remove()) removes the document. */
SWE_API swe_status swe_index_find_doc(const swe_index * index, const char * id, size_t id_size, uint64_t * out_entry);

/* The document of entry `entry` into *out; SWE_ERR_NOT_FOUND when the entry has no document (added with
 * swe_index_add()) or is absent. *out points into a copy kept for the calling thread: valid until the
 * thread's next swe_index_get_doc() call (on any index) or its end, whatever other threads do to the
 * index meanwhile. */
SWE_API swe_status swe_index_get_doc(const swe_index * index, uint64_t entry, swe_doc * out);

/* Number of entries that have a document (0 for NULL). */
SWE_API size_t swe_index_get_doc_count(const swe_index * index);

/* Records which model the vectors came from (its name and checksum are stored in the file). */
SWE_API swe_status swe_index_set_model(swe_index * index, const swe_model * model);

/* SWE_OK when the index was built with `model` (same checksum and dims, or no model recorded);
 * SWE_ERR_INVALID_ARGUMENT with a message naming both otherwise. */
SWE_API swe_status swe_index_check_model(const swe_index * index, const swe_model * model);

/* Serialises the whole index into a new buffer: *out_data (free it with swe_free_bytes()) of *out_size
 * bytes, a file with no change records. */
SWE_API swe_status swe_index_save_to_bytes(const swe_index * index, uint8_t ** out_data, size_t * out_size);

/* Saves the index to the file at `path`, durably. When `path` is the file the index was loaded from
 * or last saved to, and still holds what the index read or wrote there, the changes made since are
 * appended as one change record (docs/FORMAT.md, "Index change log": the cost of the changes, not of
 * the index; a torn record an interrupted save left is cut first) and the file fsynced. Otherwise, and
 * when the records would pass half of the rest of the file, the whole index is written as
 * swe_index_compact_to_file() writes it. A read-modify-write (load, add, save) by several processes must
 * hold an advisory lock (flock) on the file across it, as `swe index add` does; a save from a copy that
 * is no longer the file's (another writer appended or replaced it since) writes the whole index over
 * their changes. */
SWE_API swe_status swe_index_save_to_file(swe_index * index, const char * path);

/* Writes the whole index to the file at `path` with no change records (`swe index compact`), replacing
 * it atomically and durably: a unique temporary file in the same directory (created exclusively, never
 * through a link), fsynced and renamed over `path`, then the directory fsynced; an existing file's mode
 * is kept, and its owner where the process may set it, and when `path` is a symbolic link the file it
 * points to is replaced. */
SWE_API swe_status swe_index_compact_to_file(swe_index * index, const char * path);

/* Brings the index up to date with the file at `path` that it was loaded from or last saved to: applies
 * the change records other writers appended since (the cost of those records), or reads the file whole
 * when another writer replaced it. *out_changed (may be NULL) is set to 1 when the index changed, else 0.
 * SWE_ERR_INVALID_ARGUMENT when the index has changes it has not saved. A writer beside others calls it
 * under the file's lock, before its change (as `swe serve` does). */
SWE_API swe_status swe_index_refresh_from_file(swe_index * index, const char * path, const swe_load_params * params,
                                               int32_t * out_changed);

/* For callers that write the file themselves (the npm package): the bytes that bring the file the index
 * was loaded from (with swe_index_load_from_bytes()) or last saved to up to date: *out_data (free it with
 * swe_free_bytes()) of *out_size bytes to write at byte *out_offset of that file, which then ends there.
 * Usually one change record at the file's end (nothing when nothing changed); *out_offset 0 and the whole
 * index when the index was created rather than loaded, or its records would pass half the file. The
 * index then counts these bytes as written. A record belongs to its file (docs/FORMAT.md): written
 * after another, readers ignore it. */
SWE_API swe_status swe_index_save_changes(swe_index * index, uint8_t ** out_data, size_t * out_size,
                                          uint64_t * out_offset);

/* ---- vectors: ranking, near-duplicate groups and k-means -------------------------------------- */

/* What every binding offers over sentence vectors, computed here once: `n` rows of `dims` floats,
 * row-major (a model's vectors or any others), finite (SWE_ERR_INVALID_ARGUMENT otherwise; dims >= 1).
 * A zero row, as a text with no known word encodes to, has no direction: it scores 0 against any
 * query, is a near-duplicate group of its own and is in no cluster. These functions keep no state:
 * any number of threads may call them at once. */

/* Orders of swe_vectors_rank()'s hits. */
enum {
    SWE_RANK_BEST_FIRST = 0, /* best first, equal scores by ascending row */
    SWE_RANK_ROW_ORDER  = 1, /* the same hits in ascending row order (a filter keeping the input's order) */
};

/* How swe_vectors_rank() selects and lists rows (params NULL = the defaults). */
typedef struct swe_rank_params {
    float   min_score; /* only rows scoring at least this (-INFINITY, the default, keeps all; NaN is refused) */
    int32_t order;     /* SWE_RANK_BEST_FIRST (default) or SWE_RANK_ROW_ORDER */
} swe_rank_params;

/* Defaults: every row (min_score -INFINITY), best first. */
SWE_API swe_rank_params swe_rank_default_params(void);

/* The k rows of `vectors` most similar to `query` (`dims` floats) that score at least
 * params->min_score: their row numbers into `out_rows` and their scores into `out_scores` (k elements
 * each; out_scores may be NULL), ordered as params->order says, their number into *out_n (at most
 * min(k, n)). The score of a row is its cosine similarity with the query exactly as an SWE_DTYPE_F32
 * index holding the rows under ids 0 .. n-1 scores it (query and row L2-normalised, then their dot
 * product: bit for bit swe_index_search()'s scores), and the best-first order is that index's (equal
 * scores by ascending id). A zero query (a text with no known word) is similar to nothing: no hits.
 * Costs O(n * dims) for the scores and O(n log k) to keep the k best (k >= n ranks every row). */
SWE_API swe_status swe_vectors_rank(const float * query, const float * vectors, size_t n, uint32_t dims, size_t k,
                                    const swe_rank_params * params, size_t * out_rows, float * out_scores,
                                    size_t * out_n);

/* Near-duplicate groups of the rows, greedily in row order: each row joins the first earlier group whose
 * first row (its representative) has cosine >= threshold with it, else it starts a group; so every
 * member is within the threshold of its representative, and no two representatives are. Cosines here
 * are dot / sqrt(|a|^2 |b|^2) in double precision: two identical rows score exactly 1, which threshold
 * 1 merges. A zero row is a group of its own. `threshold` in [-1, 1]. Groups are numbered from 0 in
 * order of their representatives: out_groups[i] (n elements) is row i's group, *out_n_groups their
 * number. out_scores (may be NULL; n elements) receives each row's cosine with its representative
 * (1 for a representative, 0 for a zero row). Costs O(n * groups * dims). */
SWE_API swe_status swe_vectors_near_duplicates(const float * vectors, size_t n, uint32_t dims, double threshold,
                                               size_t * out_groups, float * out_scores, size_t * out_n_groups);

/* How swe_vectors_kmeans() runs (params NULL = the defaults). */
typedef struct swe_kmeans_params {
    uint32_t seed;           /* of the random stream the k-means++ starts draw from (default 0) */
    uint32_t restarts;       /* k-means++ starts, 1 to 1000 (default 4): the one of lowest inertia is kept */
    uint32_t max_iterations; /* Lloyd rounds of a start at most, at least 1 (default 100) */
} swe_kmeans_params;

/* Defaults: seed 0, 4 restarts, at most 100 iterations. */
SWE_API swe_kmeans_params swe_kmeans_default_params(void);

/* k clusters of the nonzero rows by k-means (Euclidean distance, which on unit vectors orders like
 * cosine): `restarts` k-means++ starts drawn one after another from one mulberry32 stream seeded with
 * params->seed, each followed by Lloyd rounds (each row to its nearest centroid, the lower cluster on
 * ties; centroids the means of their rows, an emptied cluster keeping its own) until no row changes
 * cluster or max_iterations; the start of lowest inertia is kept (the earliest on ties). Sums are in
 * double precision, centroids stored as floats: the same seed gives the same clusters on every machine.
 * One start can stop in a local optimum even on two clear topics, hence several by default.
 * k must be in 1 .. the number of nonzero rows. out_labels (n elements) receives each row's cluster,
 * 0 .. k-1, or -1 for a zero row (left out); out_centroids (may be NULL; k * dims floats) the centroids,
 * *out_inertia (may be NULL) the sum of the clustered rows' squared distances to their centroids, and
 * *out_iterations (may be NULL) the Lloyd rounds of the kept start. Costs O(restarts * rounds * n * k * dims). */
SWE_API swe_status swe_vectors_kmeans(const float * vectors, size_t n, uint32_t dims, uint32_t k,
                                      const swe_kmeans_params * params, int32_t * out_labels, float * out_centroids,
                                      double * out_inertia, uint32_t * out_iterations);

/* Frees a buffer returned by this library (NULL is allowed). */
SWE_API void swe_free_bytes(void * data);

#ifdef __cplusplus
}
#endif

#endif /* SWE_H */
