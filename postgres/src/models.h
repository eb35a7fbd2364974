/* models.h: the models of one backend: the swe.model_dir setting, the path rules that keep a model
 * name inside it, loading once per backend and noticing a file replaced under the same name. */
#ifndef SWE_PG_MODELS_H
#define SWE_PG_MODELS_H

#include "postgres.h"

#include "swe.h"

/* The model named `name` (a file name inside swe.model_dir), loaded on first use and kept for the
 * life of the backend. ERRORs when the name leaves the directory, the file is missing or corrupt, or
 * it changed since this backend loaded it. */
const swe_model *swe_pg_get_model(const text *name);

/* ereport(ERROR) unless `status` (a swe_* call's) is SWE_OK: SQLSTATE from the status, message
 * "swe: <what>: " and swe_last_error(). */
void swe_pg_check(swe_status status, const char *what);

void swe_pg_define_settings(void);

#endif
