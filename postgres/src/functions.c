/* functions.c: the SQL functions of the swe extension (sql/swe.sql.in declares them).
 *
 * Every call into libswe goes through the C API of swe.h, which never throws, aborts or longjmps;
 * a failed call becomes an ereport(ERROR) here, in C frames only. Results are palloc'd. */
#include "postgres.h"

#include <math.h>

#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/lsyscache.h"
#include "utils/varbit.h"

#include "models.h"
#include "parallel.h"

PG_MODULE_MAGIC;

/* The build hides every symbol not marked PGDLLEXPORT (-fvisibility=hidden): only PostgreSQL's entry
 * points are exported. PostgreSQL 15's PG_FUNCTION_INFO_V1 marks the info function only, so the SQL
 * function is declared exported here too. */
#define SWE_SQL_FUNCTION(name) \
	PG_FUNCTION_INFO_V1(name); \
	PGDLLEXPORT Datum name(PG_FUNCTION_ARGS)

#define MAX_TEXT_BYTES (10 * 1024 * 1024) /* one text; longer ones are not sentences */
#define MAX_BATCH_TEXTS 10000			/* one array of texts */
#define MAX_VECTOR_DIMS 16000			/* pgvector's limit for vector */
#define ENCODE_CHUNK 256				/* texts per swe_model_encode_batch(), between interrupt checks */

PGDLLEXPORT void _PG_init(void);

void
_PG_init(void)
{
	swe_pg_init_models();
	swe_pg_install_hooks();
}

/* A text's bytes as UTF-8: checked in a SQL_ASCII database (which stores bytes unchecked), converted
 * from other server encodings. */
static const char *
utf8_of(const text *t, size_t *size)
{
	const char *data = VARDATA_ANY(t);
	int			len = VARSIZE_ANY_EXHDR(t);
	int			encoding = GetDatabaseEncoding();

	if (len > MAX_TEXT_BYTES)
		ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						errmsg("swe: text of %d bytes exceeds the limit of %d bytes", len, MAX_TEXT_BYTES)));
	if (encoding == PG_SQL_ASCII)
	{
		if (!pg_verify_mbstr(PG_UTF8, data, len, true))
			ereport(ERROR, (errcode(ERRCODE_CHARACTER_NOT_IN_REPERTOIRE),
							errmsg("swe: text is not valid UTF-8"),
							errhint("A SQL_ASCII database stores bytes unchecked; swe needs UTF-8 text.")));
	}
	else if (encoding != PG_UTF8)
	{
		const char *converted = pg_server_to_any(data, len, PG_UTF8);

		/* A converted copy ends with a NUL; a text with nothing to convert (an empty one) comes back
		 * as it was: not terminated, its length unchanged. */
		if (converted != data)
			len = strlen(converted);
		data = converted;
	}
	*size = (size_t) len;
	return data;
}

/* A new one-dimensional real[] of `dims` elements, to be filled in place. */
static ArrayType *
new_float4_array(uint32_t dims)
{
	Size		nbytes = ARR_OVERHEAD_NONULLS(1) + sizeof(float4) * (Size) dims;
	ArrayType  *array = palloc(nbytes);	/* the header is set below, the data by the caller */

	SET_VARSIZE(array, nbytes);
	array->ndim = 1;
	array->dataoffset = 0;
	array->elemtype = FLOAT4OID;
	ARR_DIMS(array)[0] = (int) dims;
	ARR_LBOUND(array)[0] = 1;
	return array;
}

/* The elements of a one-dimensional real[] without NULLs (*n of them). */
static const float4 *
float4_elements(ArrayType *array, const char *what, int *n)
{
	if (ARR_NDIM(array) > 1)
		ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
						errmsg("swe: %s must be a one-dimensional array", what)));
	*n = ARR_NDIM(array) == 0 ? 0 : ARR_DIMS(array)[0];
	if (array_contains_nulls(array))
		ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("swe: %s contains a NULL element", what)));
	if (*n == 0)
		ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION), errmsg("swe: %s is empty", what)));
	if (*n > MAX_VECTOR_DIMS)
		ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						errmsg("swe: %s has %d elements, more than %d", what, *n, MAX_VECTOR_DIMS)));
	return (const float4 *) ARR_DATA_PTR(array);
}

static ArrayType *
embed_one(const swe_model *model, const text *input)
{
	size_t		size;
	const char *data = utf8_of(input, &size);
	uint32_t	dims = swe_model_get_encode_dims(model, NULL);
	ArrayType  *result = new_float4_array(dims);

	swe_pg_check(swe_model_encode_text(model, data, size, NULL, (float *) ARR_DATA_PTR(result), dims, NULL), "embed");
	return result;
}

SWE_SQL_FUNCTION(swe_embed);
Datum
swe_embed(PG_FUNCTION_ARGS)
{
	const swe_model *model = swe_pg_get_model(PG_GETARG_TEXT_PP(0));

	PG_RETURN_ARRAYTYPE_P(embed_one(model, PG_GETARG_TEXT_PP(1)));
}

/* One swe.embed(model, text[]) call: its texts, checked and converted at the first call, and the
 * vectors of the current chunk of ENCODE_CHUNK texts, encoded when the first of them is returned
 * (value-per-call: no tuplestore, which would spill 10,000 vectors to a temporary file; no buffer
 * for all vectors, whose fresh pages would cost more than the copies). */
typedef struct Batch
{
	const swe_model *model;
	uint32_t	dims;
	int			n;
	swe_text   *texts;
	float	   *chunk;			/* ENCODE_CHUNK * dims */
} Batch;

static Batch *
start_batch(const swe_model *model, ArrayType *inputs)
{
	Batch	   *batch = palloc(sizeof(Batch));
	Datum	   *elements;
	bool	   *nulls;
	int			n;

	if (ARR_NDIM(inputs) > 1)
		ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
						errmsg("swe: the texts must be a one-dimensional array")));
	n = ARR_NDIM(inputs) == 0 ? 0 : ARR_DIMS(inputs)[0];
	if (n > MAX_BATCH_TEXTS)
		ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						errmsg("swe: an array of %d texts exceeds the limit of %d", n, MAX_BATCH_TEXTS),
						errhint("Embed a column row by row with swe.embed(model, column), or split the array.")));
	deconstruct_array(inputs, TEXTOID, -1, false, TYPALIGN_INT, &elements, &nulls, &n);
	batch->texts = palloc(sizeof(swe_text) * (Size) Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		if (nulls[i])
			ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
							errmsg("swe: element %d of the texts is NULL", i + 1)));
		batch->texts[i].data = utf8_of(DatumGetTextPP(elements[i]), &batch->texts[i].size);
	}
	batch->model = model;
	batch->n = n;
	batch->dims = swe_model_get_encode_dims(model, NULL);
	batch->chunk = palloc(sizeof(float) * (Size) batch->dims * ENCODE_CHUNK);
	return batch;
}

/* swe.embed(model, text[]): one vector per element, in order, through the library's batch path. */
SWE_SQL_FUNCTION(swe_embed_batch);
Datum
swe_embed_batch(PG_FUNCTION_ARGS)
{
	FuncCallContext *funcctx;
	Batch	   *batch;
	int			i;

	if (SRF_IS_FIRSTCALL())
	{
		MemoryContext old;

		funcctx = SRF_FIRSTCALL_INIT();
		old = MemoryContextSwitchTo(funcctx->multi_call_memory_ctx);
		batch = start_batch(swe_pg_get_model(PG_GETARG_TEXT_PP(0)), PG_GETARG_ARRAYTYPE_P(1));
		funcctx->user_fctx = batch;
		funcctx->max_calls = (uint64) batch->n;
		MemoryContextSwitchTo(old);
	}
	funcctx = SRF_PERCALL_SETUP();
	batch = funcctx->user_fctx;
	if (funcctx->call_cntr < funcctx->max_calls)
	{
		ArrayType  *row = new_float4_array(batch->dims);

		i = (int) funcctx->call_cntr;
		if (i % ENCODE_CHUNK == 0)
		{
			int			count = Min(ENCODE_CHUNK, batch->n - i);

			CHECK_FOR_INTERRUPTS();
			swe_pg_check(swe_model_encode_batch(batch->model, batch->texts + i, (size_t) count, NULL,
												batch->chunk, (size_t) count * batch->dims, NULL), "embed");
		}
		memcpy(ARR_DATA_PTR(row), batch->chunk + (Size) (i % ENCODE_CHUNK) * batch->dims,
			   sizeof(float) * batch->dims);
		SRF_RETURN_NEXT(funcctx, PointerGetDatum(row));
	}
	SRF_RETURN_DONE(funcctx);
}

/* Cosine similarity of two real[] of equal length (0 when either is the zero vector). */
SWE_SQL_FUNCTION(swe_similarity_vectors);
Datum
swe_similarity_vectors(PG_FUNCTION_ARGS)
{
	int			na,
				nb;
	const float4 *a = float4_elements(PG_GETARG_ARRAYTYPE_P(0), "the first vector", &na);
	const float4 *b = float4_elements(PG_GETARG_ARRAYTYPE_P(1), "the second vector", &nb);
	double		dot = 0,
				aa = 0,
				bb = 0;

	if (na != nb)
		ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION),
						errmsg("swe: vectors of different dimensions (%d and %d)", na, nb)));
	for (int i = 0; i < na; i++)
	{
		dot += (double) a[i] * b[i];
		aa += (double) a[i] * a[i];
		bb += (double) b[i] * b[i];
	}
	if (!isfinite(dot) || !isfinite(aa) || !isfinite(bb))
		ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION), errmsg("swe: a vector has a non-finite element")));
	if (aa == 0 || bb == 0)
		PG_RETURN_FLOAT8(0.0);
	PG_RETURN_FLOAT8(Max(-1.0, Min(1.0, dot / sqrt(aa * bb))));
}

SWE_SQL_FUNCTION(swe_similarity_texts);
Datum
swe_similarity_texts(PG_FUNCTION_ARGS)
{
	const swe_model *model = swe_pg_get_model(PG_GETARG_TEXT_PP(0));
	size_t		a_size,
				b_size;
	const char *a = utf8_of(PG_GETARG_TEXT_PP(1), &a_size);
	const char *b = utf8_of(PG_GETARG_TEXT_PP(2), &b_size);
	float		score = 0;

	swe_pg_check(swe_model_compute_similarity(model, a, a_size, b, b_size, NULL, &score), "similarity");
	PG_RETURN_FLOAT8((double) score);
}

/* The sign code of the vector: bit i is 1 when element i > 0, first element in the most significant
 * bit of the first byte (PostgreSQL's bit type, pgvector's binary_quantize()). */
SWE_SQL_FUNCTION(swe_embed_bits);
Datum
swe_embed_bits(PG_FUNCTION_ARGS)
{
	const swe_model *model = swe_pg_get_model(PG_GETARG_TEXT_PP(0));
	ArrayType  *vector = embed_one(model, PG_GETARG_TEXT_PP(1));
	const float4 *v = (const float4 *) ARR_DATA_PTR(vector);
	int			dims = ARR_DIMS(vector)[0];
	int			len = VARBITTOTALLEN(dims);
	VarBit	   *result = palloc0(len);

	SET_VARSIZE(result, len);
	VARBITLEN(result) = dims;
	for (int i = 0; i < dims; i++)
		if (v[i] > 0)
			VARBITS(result)[i / BITS_PER_BYTE] |= (bits8) (0x80 >> (i % BITS_PER_BYTE));
	PG_RETURN_VARBIT_P(result);
}

SWE_SQL_FUNCTION(swe_known_words);
Datum
swe_known_words(PG_FUNCTION_ARGS)
{
	const swe_model *model = swe_pg_get_model(PG_GETARG_TEXT_PP(0));
	size_t		size;
	const char *data = utf8_of(PG_GETARG_TEXT_PP(1), &size);
	uint32_t	n = 0;

	swe_pg_check(swe_model_count_known_words(model, data, size, &n), "known_words");
	PG_RETURN_INT32((int32) Min(n, (uint32_t) PG_INT32_MAX));
}

SWE_SQL_FUNCTION(swe_model_info);
Datum
swe_model_info(PG_FUNCTION_ARGS)
{
	const swe_model *model = swe_pg_get_model(PG_GETARG_TEXT_PP(0));

	return DirectFunctionCall1(jsonb_in, CStringGetDatum(swe_model_get_info_json(model)));
}

bool
swe_pg_takes_model(Oid funcid)
{
	FmgrInfo	function;

	if (get_func_namespace(funcid) != get_namespace_oid("swe", true))
		return false;
	fmgr_info(funcid, &function);
	return function.fn_addr == swe_embed || function.fn_addr == swe_embed_batch ||
		function.fn_addr == swe_similarity_texts || function.fn_addr == swe_embed_bits ||
		function.fn_addr == swe_known_words || function.fn_addr == swe_model_info;
}
