/* models.h: the models of one backend: the swe.* settings, the path rules that keep a model name
 * inside swe.model_dir, loading once per backend (or once in the postmaster, swe.preload_models),
 * noticing a file replaced under the same name, and the checksums a backend hands to its parallel
 * workers so that they use the same model. */
#ifndef SWE_PG_MODELS_H
#define SWE_PG_MODELS_H

#include "postgres.h"

#include "swe.h"

/* The model named `name` (a file name inside swe.model_dir), loaded on first use and kept for the
 * life of the backend. ERRORs when the name leaves the directory, the file is missing or corrupt, or
 * it changed since this session loaded it (in a parallel worker: differs from the file its leader
 * loaded). */
const swe_model *swe_pg_get_model(const text *name);

/* ereport(ERROR) unless `status` (a swe_* call's) is SWE_OK: SQLSTATE from the status, message
 * "swe: <what>: " and swe_last_error(). */
void		swe_pg_check(swe_status status, const char *what);

/* Defines the swe.* settings; in the postmaster (shared_preload_libraries) also loads the models of
 * swe.preload_models, which every backend and parallel worker then starts with. */
void		swe_pg_init_models(void);

/* In a backend (not a parallel worker, not in parallel mode): sets swe.leader_models, the checksums
 * of the models this session uses, which PostgreSQL copies into every parallel worker it starts. */
void		swe_pg_publish_models(void);

#endif
