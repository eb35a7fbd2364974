/* models.c: swe.model_dir, the path rules and the per-backend model cache (see models.h).
 *
 * Only this file touches the file system. A model is read once per backend (and per parallel worker)
 * through a descriptor opened without following a final symlink, after realpath() showed the name
 * resolves inside swe.model_dir; the loader verifies the file's checksum. Once per statement the
 * file is looked at again (realpath + stat): a file replaced under the same name with other bytes
 * is an ERROR for the rest of the backend's life, never silently other vectors from an IMMUTABLE
 * function. */
#include "postgres.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"
#include "access/xact.h"

#include "models.h"

static char *model_dir = NULL; /* the GUC's value; "" = not set */

typedef struct LoadedModel
{
	char	   *dir;			/* swe.model_dir when it was loaded */
	char	   *name;			/* the file name inside it */
	swe_model  *model;
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

void
swe_pg_define_settings(void)
{
	DefineCustomStringVariable("swe.model_dir",
							   "Directory of the .swe model files that swe's functions may load.",
							   "A function's model argument is a file name inside it; only superusers set it.",
							   &model_dir, "", PGC_SUSET, 0, check_model_dir, NULL, NULL);
	MarkGUCPrefixReserved("swe");
}

/* The model name as a C string, after the rules that keep it a plain file name. */
static char *
checked_name(const text *name)
{
	int			len = VARSIZE_ANY_EXHDR(name);
	char	   *s = text_to_cstring(name);

	if (len == 0 || len > NAME_MAX || strlen(s) != (size_t) len || strchr(s, '/') != NULL || s[0] == '.')
		ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
						errmsg("swe: model name \"%s\" is not a file name inside swe.model_dir", s),
						errhint("Give a file name such as 'model.swe': no '/', no leading '.'.")));
	return s;
}

/* realpath() of dir/name, which must lie inside dir (a symlink may point only within it). */
static char *
resolve_inside(const char *dir, const char *name)
{
	char		dir_real[PATH_MAX];
	char		file_real[PATH_MAX];
	char	   *joined;
	size_t		dir_len;

	if (dir == NULL || dir[0] == '\0')
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

/* Reads and loads the file at `path` (already resolved); *st receives what was read. */
static swe_model *
read_model(const char *path, const char *name, struct stat *st)
{
	int			fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
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

const swe_model *
swe_pg_get_model(const text *name_text)
{
	const char *dir = model_dir ? model_dir : "";
	TimestampTz now = GetCurrentStatementStartTimestamp();
	char	   *name;
	LoadedModel *m;

	/* Per row: the model the last call used, already looked at in this statement. */
	m = loaded_models;
	if (m != NULL && m->checked_at == now && m->replaced_by[0] == '\0' &&
		strlen(m->name) == VARSIZE_ANY_EXHDR(name_text) &&
		memcmp(m->name, VARDATA_ANY(name_text), VARSIZE_ANY_EXHDR(name_text)) == 0 && strcmp(m->dir, dir) == 0)
		return m->model;

	name = checked_name(name_text);
	for (m = loaded_models; m != NULL; m = m->next)
		if (strcmp(m->name, name) == 0 && strcmp(m->dir, dir) == 0)
			break;
	if (m == NULL)
	{
		char	   *path = resolve_inside(dir, name);
		struct stat st;
		swe_model  *model = read_model(path, name, &st);

		m = MemoryContextAllocZero(TopMemoryContext, sizeof(LoadedModel));
		m->dir = MemoryContextStrdup(TopMemoryContext, dir);
		m->name = MemoryContextStrdup(TopMemoryContext, name);
		m->model = model;
		remember_file(m, &st);
		model_checksum(model, m->checksum);
		m->checked_at = now;
		m->next = loaded_models;
		loaded_models = m;
	}
	else if (m->checked_at != now && m->replaced_by[0] == '\0')
	{
		look_again(m);
		m->checked_at = now;
	}
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
		ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
						errmsg("swe: model \"%s\" was replaced (checksum %s, now %s) since this session loaded it",
							   name, m->checksum, m->replaced_by),
						errhint("Vectors stored from the old file differ from the new one's: re-embed them, "
								"then reconnect.")));
	pfree(name);
	return m->model;
}
