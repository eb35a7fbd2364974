/* models.c: the swe.* settings, the path rules and the per-backend model cache (see models.h).
 *
 * Only this file touches the file system. A model is read once per backend through a descriptor
 * opened without following a final symlink and without blocking (a FIFO must not hang the backend),
 * after realpath() showed the name resolves inside swe.model_dir; the loader verifies the file's
 * checksum. Once per statement the file is looked at again (realpath + stat): a file replaced under
 * the same name with other bytes is an ERROR for the rest of the backend's life, never silently
 * other vectors from an IMMUTABLE function.
 *
 * Parallel workers are new processes, forked from the postmaster for each query. The leader passes
 * them the checksum of every model it uses (swe.leader_models, a hidden setting PostgreSQL copies
 * into each worker); a worker that finds another file under the name errors out. Models listed in
 * swe.preload_models are loaded once in the postmaster (shared_preload_libraries = 'swe'): every
 * backend and worker then starts with them in memory (shared copy-on-write pages, no load per
 * worker); a backend uses such a model after checking that the file is still the one read, a worker
 * when its checksum is the leader's. */
#include "postgres.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "access/parallel.h"
#include "access/xact.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/guc_tables.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"
#include "utils/varlena.h"

#include "models.h"

static char *model_dir = NULL;		/* swe.model_dir; "" = not set */
static char *preload_models = NULL; /* swe.preload_models: names, comma-separated */
static char *leader_models = NULL;	/* swe.leader_models: "HEXDIR:HEXNAME=CHECKSUM;" per model */
static char *refused_model_dir = NULL;	/* a swe.model_dir given before the library loaded, refused */

typedef struct LoadedModel
{
	char	   *dir;			/* swe.model_dir when it was loaded */
	char	   *name;			/* the file name inside it */
	swe_model  *model;
	bool		inherited;		/* loaded by the postmaster, not yet checked in this process */
	dev_t		dev;			/* identity of the file that was read */
	ino_t		ino;
	off_t		size;
	struct timespec mtime;
	char		checksum[9];
	TimestampTz checked_at;		/* statement start of the last look at the file */
	char		replaced_by[9]; /* checksum of the file now under the name; "" while unchanged */
	struct LoadedModel *next;
} LoadedModel;

static LoadedModel *loaded_models = NULL;

static void apply_pending_placeholder(void);

void
swe_pg_check(swe_status status, const char *what)
{
	int			code;

	if (status == SWE_OK)
		return;
	switch (status)
	{
		case SWE_ERR_INVALID_ARGUMENT:
			code = ERRCODE_INVALID_PARAMETER_VALUE;
			break;
		case SWE_ERR_CORRUPT:
			code = ERRCODE_DATA_CORRUPTED;
			break;
		case SWE_ERR_UNSUPPORTED:
			code = ERRCODE_FEATURE_NOT_SUPPORTED;
			break;
		case SWE_ERR_TOO_LARGE:
			code = ERRCODE_PROGRAM_LIMIT_EXCEEDED;
			break;
		case SWE_ERR_IO:
			code = ERRCODE_IO_ERROR;
			break;
		case SWE_ERR_NOT_FOUND:
			code = ERRCODE_UNDEFINED_OBJECT;
			break;
		case SWE_ERR_OUT_OF_MEMORY:
			code = ERRCODE_OUT_OF_MEMORY;
			break;
		default:
			code = ERRCODE_INTERNAL_ERROR;
			break;
	}
	ereport(ERROR, (errcode(code), errmsg("swe: %s: %s", what, swe_last_error())));
}

static bool
check_model_dir(char **newval, void **extra, GucSource source)
{
	if (*newval == NULL || (*newval)[0] == '\0' || is_absolute_path(*newval))
		return true;
	GUC_check_errdetail("swe.model_dir must be an absolute path.");
	return false;
}

/* The model name as a C string, after the rules that keep it a plain file name. */
static char *
checked_name(const char *s, int len)
{
	if (len == 0 || len > NAME_MAX || strlen(s) != (size_t) len || strchr(s, '/') != NULL || s[0] == '.')
		ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
						errmsg("swe: model name \"%s\" is not a file name inside swe.model_dir", s),
						errhint("Give a file name such as 'model.swe': no '/', no leading '.'.")));
	return pstrdup(s);
}

/* realpath() of dir/name, which must lie inside dir (a symlink may point only within it). */
static char *
resolve_inside(const char *dir, const char *name)
{
	char		dir_real[PATH_MAX];
	char		file_real[PATH_MAX];
	char	   *joined;
	size_t		dir_len;

	if (dir[0] == '\0' && refused_model_dir != NULL)
		ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
						errmsg("swe: swe.model_dir is not set: the value \"%s\" given before swe was loaded in this session was refused",
							   refused_model_dir),
						errhint("Only a superuser sets swe.model_dir, to an absolute path (the warning when swe was "
								"loaded gave the reason). A value from the connection's options (PGOPTIONS) stays "
								"refused for the whole session: reconnect without it.")));
	if (dir[0] == '\0')
		ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
						errmsg("swe: swe.model_dir is not set"),
						errhint("A superuser sets it, e.g. ALTER SYSTEM SET swe.model_dir = '/var/lib/swe/models'.")));
	if (realpath(dir, dir_real) == NULL)
		ereport(ERROR, (errcode_for_file_access(),
						errmsg("swe: swe.model_dir \"%s\" is not usable: %m", dir)));
	joined = psprintf("%s/%s", dir_real, name);
	if (realpath(joined, file_real) == NULL)
		ereport(ERROR, (errcode_for_file_access(),
						errmsg("swe: model \"%s\" not found in swe.model_dir: %m", name)));
	dir_len = strlen(dir_real);
	if (strncmp(file_real, dir_real, dir_len) != 0 || file_real[dir_len] != '/' ||
		strchr(file_real + dir_len + 1, '/') != NULL)
		ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
						errmsg("swe: model \"%s\" resolves outside swe.model_dir", name)));
	return pstrdup(file_real);
}

/* The 8 hex digits of "checksum" in the model's info JSON. */
static void
model_checksum(const swe_model *model, char out[9])
{
	const char *json = swe_model_get_info_json(model);
	const char *p = json ? strstr(json, "\"checksum\"") : NULL;
	int			i = 0;

	if (p != NULL)
	{
		p += strlen("\"checksum\"");
		while (*p == ' ' || *p == ':')
			p++;
		if (*p == '"')
			for (p++; i < 8 && p[i] != '\0' && p[i] != '"'; i++)
				out[i] = p[i];
	}
	out[i] = '\0';
}

/* Reads and loads the file at `path` (already resolved); *st receives what was read. The open does
 * not block (O_NONBLOCK: a FIFO would wait for a writer forever, beyond cancel and terminate) and the
 * type is checked on the descriptor before anything is read. */
static swe_model *
read_model(const char *path, const char *name, struct stat *st)
{
	int			fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	uint8_t    *buffer;
	size_t		done = 0;
	swe_model  *model = NULL;

	if (fd < 0)
		ereport(ERROR, (errcode_for_file_access(), errmsg("swe: could not open model \"%s\": %m", name)));
	if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode))
	{
		close(fd);
		ereport(ERROR, (errcode(ERRCODE_UNDEFINED_FILE), errmsg("swe: model \"%s\" is not a regular file", name)));
	}
	buffer = swe_model_buffer_new(st->st_size > 0 ? (size_t) st->st_size : 1);
	if (buffer == NULL)
	{
		close(fd);
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("swe: out of memory reading model \"%s\"", name)));
	}
	while (done < (size_t) st->st_size)
	{
		ssize_t		n = read(fd, buffer + done, (size_t) st->st_size - done);

		if (n <= 0)
		{
			int			saved = errno;

			close(fd);
			swe_model_buffer_free(buffer);
			errno = n == 0 ? EIO : saved;
			ereport(ERROR, (errcode_for_file_access(), errmsg("swe: could not read model \"%s\": %m", name)));
		}
		done += (size_t) n;
	}
	close(fd);
	/* The call takes the buffer over whatever it returns. */
	swe_pg_check(swe_model_load_from_buffer(buffer, done, NULL, &model), psprintf("model \"%s\"", name));
	return model;
}

static bool
same_file(const LoadedModel *m, const struct stat *st)
{
	return m->dev == st->st_dev && m->ino == st->st_ino && m->size == st->st_size &&
		m->mtime.tv_sec == st->st_mtim.tv_sec && m->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

static void
remember_file(LoadedModel *m, const struct stat *st)
{
	m->dev = st->st_dev;
	m->ino = st->st_ino;
	m->size = st->st_size;
	m->mtime = st->st_mtim;
}

/* Has the file under m's name changed since it was loaded? Sets m->replaced_by when its bytes did. */
static void
look_again(LoadedModel *m)
{
	char	   *path = resolve_inside(m->dir, m->name);
	struct stat st;

	if (stat(path, &st) == 0 && same_file(m, &st))
		return;
	{
		swe_model  *now = read_model(path, m->name, &st);
		char		checksum[9];

		model_checksum(now, checksum);
		swe_model_free(now);
		if (strcmp(checksum, m->checksum) == 0)
			remember_file(m, &st);	/* the same bytes (copied or touched) */
		else
			strlcpy(m->replaced_by, checksum, sizeof(m->replaced_by));
	}
}

static char *
hex_of(const char *s)
{
	size_t		len = strlen(s);
	char	   *out = palloc(2 * len + 1);

	hex_encode(s, len, out);
	out[2 * len] = '\0';
	return out;
}

/* The entry of swe.leader_models for dir/name, up to the '=' before its checksum. */
static char *
leader_key(const char *dir, const char *name)
{
	return psprintf("%s:%s=", hex_of(dir), hex_of(name));
}

/* In a parallel worker: the checksum of dir/name in the leader's swe.leader_models (into out), or
 * false when the leader had not loaded that model when the worker started. */
static bool
leader_checksum(const char *dir, const char *name, char out[9])
{
	char	   *key = leader_key(dir, name);
	const char *list = leader_models ? leader_models : "";
	const char *p;

	for (p = list; (p = strstr(p, key)) != NULL; p++)
		if (p == list || p[-1] == ';')
		{
			strlcpy(out, p + strlen(key), 9);
			return true;
		}
	return false;
}

void
swe_pg_publish_models(void)
{
	StringInfoData list;
	LoadedModel *m;

	if (IsParallelWorker() || IsInParallelMode())
		return;
	initStringInfo(&list);
	for (m = loaded_models; m != NULL; m = m->next)
		if (!m->inherited)
			appendStringInfo(&list, "%s%s;", leader_key(m->dir, m->name), m->checksum);
	if (strcmp(list.data, leader_models ? leader_models : "") != 0)
		SetConfigOption("swe.leader_models", list.data, PGC_SUSET, PGC_S_SESSION);
	pfree(list.data);
}

static void
replaced_error(const char *name, const char *was, const char *now)
{
	ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					errmsg("swe: model \"%s\" was replaced (checksum %s, now %s) since this session loaded it",
						   name, was, now),
					errhint("Vectors stored from the old file differ from the new one's: re-embed them and "
							"REINDEX the indexes on swe's functions, then reconnect.")));
}

static LoadedModel *
new_entry(const char *dir, const char *name, swe_model *model, const struct stat *st)
{
	LoadedModel *m = MemoryContextAllocZero(TopMemoryContext, sizeof(LoadedModel));

	m->dir = MemoryContextStrdup(TopMemoryContext, dir);
	m->name = MemoryContextStrdup(TopMemoryContext, name);
	m->model = model;
	remember_file(m, st);
	model_checksum(model, m->checksum);
	m->next = loaded_models;
	loaded_models = m;
	return m;
}

static void
forget(LoadedModel *m)
{
	LoadedModel **p;

	for (p = &loaded_models; *p != m; p = &(*p)->next)
		;
	*p = m->next;
	swe_model_free(m->model);
	pfree(m->dir);
	pfree(m->name);
	pfree(m);
}

/* A model the postmaster loaded, on its first use in this process: kept when a worker's leader uses
 * the same checksum, or when the file is still the one that was read; else forgotten (NULL). */
static LoadedModel *
adopt_inherited(LoadedModel *m)
{
	char		leader[9];
	struct stat st;
	bool		keep;

	if (IsParallelWorker() && leader_checksum(m->dir, m->name, leader))
		keep = strcmp(leader, m->checksum) == 0;
	else
		keep = stat(resolve_inside(m->dir, m->name), &st) == 0 && same_file(m, &st);
	if (keep)
	{
		m->inherited = false;
		return m;
	}
	forget(m);
	return NULL;
}

/* Reads dir/name into a new entry; in a parallel worker the file must be the one the leader loaded. */
static LoadedModel *
load_new(const char *dir, const char *name)
{
	struct stat st;
	swe_model  *model = read_model(resolve_inside(dir, name), name, &st);
	LoadedModel *m = new_entry(dir, name, model, &st);
	char		leader[9];

	if (IsParallelWorker() && leader_checksum(dir, name, leader) && strcmp(leader, m->checksum) != 0)
	{
		char		found[9];

		strlcpy(found, m->checksum, sizeof(found));
		forget(m);
		replaced_error(name, leader, found);
	}
	return m;
}

const swe_model *
swe_pg_get_model(const text *name_text)
{
	const char *dir = model_dir ? model_dir : "";
	TimestampTz now = GetCurrentStatementStartTimestamp();
	char	   *name;
	LoadedModel *m;

	/* Per row: the model the last call used, already looked at in this statement. */
	m = loaded_models;
	if (m != NULL && m->checked_at == now && !m->inherited && m->replaced_by[0] == '\0' &&
		strlen(m->name) == VARSIZE_ANY_EXHDR(name_text) &&
		memcmp(m->name, VARDATA_ANY(name_text), VARSIZE_ANY_EXHDR(name_text)) == 0 && strcmp(m->dir, dir) == 0)
		return m->model;

	apply_pending_placeholder();
	dir = model_dir ? model_dir : "";
	name = checked_name(text_to_cstring(name_text), VARSIZE_ANY_EXHDR(name_text));
	for (m = loaded_models; m != NULL; m = m->next)
		if (strcmp(m->name, name) == 0 && strcmp(m->dir, dir) == 0)
			break;
	if (m != NULL && m->inherited)
		m = adopt_inherited(m);
	if (m == NULL)
		m = load_new(dir, name);
	else if (m->checked_at != now && m->replaced_by[0] == '\0')
		look_again(m);
	m->checked_at = now;
	if (m != loaded_models)		/* to the front: the next call's fast path */
	{
		LoadedModel *p;

		for (p = loaded_models; p->next != m; p = p->next)
			;
		p->next = m->next;
		m->next = loaded_models;
		loaded_models = m;
	}
	if (m->replaced_by[0] != '\0')
		replaced_error(name, m->checksum, m->replaced_by);
	pfree(name);
	return m->model;
}

/* In the postmaster: the models of swe.preload_models, each a warning in the log when it cannot be
 * loaded (the server starts anyway; backends then load it on first use and report the error). */
static void
preload(void)
{
	char	   *names = pstrdup(preload_models ? preload_models : "");
	List	   *list = NIL;
	ListCell   *cell;

	if (!SplitGUCList(names, ',', &list))
		ereport(WARNING, (errmsg("swe: swe.preload_models is not a list of file names: \"%s\"", preload_models)));
	foreach(cell, list)
	{
		const char *name = lfirst(cell);
		MemoryContext context = CurrentMemoryContext;

		PG_TRY();
		{
			const char *dir = model_dir ? model_dir : "";
			char	   *checked = checked_name(name, strlen(name));
			struct stat st;
			swe_model  *model = read_model(resolve_inside(dir, checked), checked, &st);

			new_entry(dir, checked, model, &st)->inherited = true;
		}
		PG_CATCH();
		{
			ErrorData  *error;

			MemoryContextSwitchTo(context);
			error = CopyErrorData();
			FlushErrorState();
			ereport(WARNING, (errmsg("swe: model \"%s\" of swe.preload_models not loaded: %s", name, error->message)));
			FreeErrorData(error);
		}
		PG_END_TRY();
	}
}

/* swe.model_dir as a placeholder, before the library defined it: its current and reset values, each
 * with who set it (PostgreSQL checks each with those privileges when the setting is defined). */
typedef struct Placeholder
{
	char	   *value;			/* NULL: none */
	GucContext	context;
	GucSource	source;
	Oid			role;
} Placeholder;

static Placeholder placeholder_now,
			placeholder_reset;
static bool placeholder_pending = false;	/* applied until the transaction ends: set it for good */

static void
capture_placeholder(void)
{
	struct config_generic **settings = get_guc_variables();

	for (int i = 0; i < GetNumConfigOptions(); i++)
	{
		struct config_string *s = (struct config_string *) settings[i];

		if (strcmp(s->gen.name, "swe.model_dir") != 0 || (s->gen.flags & GUC_CUSTOM_PLACEHOLDER) == 0)
			continue;
		placeholder_now.value = *s->variable ? MemoryContextStrdup(TopMemoryContext, *s->variable) : NULL;
		placeholder_now.context = s->gen.scontext;
		placeholder_now.source = s->gen.source;
		placeholder_now.role = s->gen.srole;
		placeholder_reset.value = s->reset_val ? MemoryContextStrdup(TopMemoryContext, s->reset_val) : NULL;
		placeholder_reset.context = s->gen.reset_scontext;
		placeholder_reset.source = s->gen.reset_source;
		placeholder_reset.role = s->gen.reset_srole;
	}
}

/* As PostgreSQL applies a placeholder's values when the setting is defined: the reset value, then the
 * current one where it differs, each checked with the privileges of whoever set it. */
static void
apply_placeholder(GucAction action)
{
	if (placeholder_reset.value != NULL && placeholder_reset.source != PGC_S_DEFAULT)
		(void) set_config_option_ext("swe.model_dir", placeholder_reset.value, placeholder_reset.context,
									 placeholder_reset.source, placeholder_reset.role, action, true, WARNING, false);
	if (placeholder_now.value != NULL && placeholder_now.source != PGC_S_DEFAULT &&
		(placeholder_reset.value == NULL || placeholder_now.source != placeholder_reset.source ||
		 strcmp(placeholder_now.value, placeholder_reset.value) != 0))
		(void) set_config_option_ext("swe.model_dir", placeholder_now.value, placeholder_now.context,
									 placeholder_now.source, placeholder_now.role, action, true, WARNING, false);
}

/* After swe.so was loaded in parallel mode: the session's swe.model_dir for good, once outside it. */
static void
apply_pending_placeholder(void)
{
	if (placeholder_pending && !IsInParallelMode())
	{
		placeholder_pending = false;
		apply_placeholder(GUC_ACTION_SET);
	}
}

void
swe_pg_init_models(void)
{
	bool		parallel_mode = IsInParallelMode();
	int			saved_client_min_messages = client_min_messages;
	int			saved_log_min_messages = log_min_messages;

	capture_placeholder();
	/* In parallel mode (see below) PostgreSQL's own application of the placeholder fails with a
	 * warning that does not hold: the value is applied right after. */
	if (parallel_mode)
		client_min_messages = log_min_messages = ERROR;
	DefineCustomStringVariable("swe.model_dir",
							   "Directory of the .swe model files that swe's functions may load.",
							   "A function's model argument is a file name inside it; only superusers set it.",
							   &model_dir, "", PGC_SUSET, 0, check_model_dir, NULL, NULL);
	client_min_messages = saved_client_min_messages;
	log_min_messages = saved_log_min_messages;
	DefineCustomStringVariable("swe.leader_models",
							   "Checksums of the models this session uses, for its parallel workers (set by swe).",
							   NULL, &leader_models, "", PGC_SUSET,
							   GUC_NO_SHOW_ALL | GUC_NO_RESET_ALL | GUC_NOT_IN_SAMPLE | GUC_DISALLOW_IN_FILE,
							   NULL, NULL, NULL);
	/* Only in the postmaster (a PGC_POSTMASTER setting cannot be defined later); elsewhere a value of
	 * it is a placeholder, which the reservation of the prefix below removes with a warning. */
	if (process_shared_preload_libraries_in_progress)
		DefineCustomStringVariable("swe.preload_models",
								   "Models the postmaster loads at start (with shared_preload_libraries = 'swe').",
								   "File names inside swe.model_dir, comma-separated; every backend and parallel "
								   "worker starts with them in memory.",
								   &preload_models, "", PGC_POSTMASTER, 0, NULL, NULL, NULL);
	MarkGUCPrefixReserved("swe");

	/* Loaded in parallel mode (a session's first use of swe is a parallel index build or query, in
	 * its leader or in a worker that loads swe.so itself), where PostgreSQL lets no setting change:
	 * the definition above dropped the session's value. It is applied as a function's SET clause is
	 * (allowed in parallel mode, undone at the end of the transaction), with the same checks; the
	 * leader and its workers apply the same value. A backend then sets it for good once outside
	 * parallel mode. */
	if (parallel_mode && (model_dir == NULL || model_dir[0] == '\0'))
	{
		apply_placeholder(GUC_ACTION_SAVE);
		placeholder_pending = !IsParallelWorker();
	}
	/* A value refused here is remembered, so that the error says so, not "not set". */
	if (placeholder_now.value != NULL && placeholder_now.value[0] != '\0' &&
		(model_dir == NULL || model_dir[0] == '\0'))
		refused_model_dir = placeholder_now.value;
	if (process_shared_preload_libraries_in_progress)
		preload();
}
