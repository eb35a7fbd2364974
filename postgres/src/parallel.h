/* parallel.h: the leader's side of parallel query (parallel.c) and what it needs from functions.c. */
#ifndef SWE_PG_PARALLEL_H
#define SWE_PG_PARALLEL_H

#include "postgres.h"

/* Executor-run and utility hooks that load and publish the models of parallel plans. */
void		swe_pg_install_hooks(void);

/* Is the function `funcid` one of swe's SQL functions whose first argument names a model? */
bool		swe_pg_takes_model(Oid funcid);

#endif
