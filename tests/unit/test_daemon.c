/*
 * tests/unit/test_daemon.c: pwtuned's state for in-process tests (see
 * test_daemon.h).
 */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <sodium.h>

#include "test.h"
#include "test_daemon.h"

void
test_daemon_init(struct daemon *d, char *dir, size_t len, const char *prefix)
{
	struct report	 rep;
	struct db	*db;
	json_t		*j;
	json_error_t	 je;
	char		 err[1024];
	int64_t		 id;

	ASSERT(sodium_init() >= 0);
	memset(d, 0, sizeof(*d));
	snprintf(dir, len, "%s/%s-XXXXXX", getenv("TMPDIR") ?
	    getenv("TMPDIR") : "/tmp", prefix);
	ASSERT(mkdtemp(dir) != NULL);
	config_defaults(&d->cfg);
	ASSERT(config_set(&d->cfg, "state_dir", dir, err, sizeof(err)) == 0);
	ASSERT(config_set(&d->cfg, "listen", "127.0.0.1:0", err,
	    sizeof(err)) == 0);
	ASSERT(config_finish(&d->cfg, err, sizeof(err)) == 0);
	log_init(LOG_LEVEL_ERROR, 0);
	pthread_mutex_init(&d->lock, NULL);
	pthread_cond_init(&d->wake, NULL);
	ASSERT(host_probe(NULL, &d->host, err, sizeof(err)) == 0);
	j = json_load_file(PWTUNE_SOURCE_DIR "/tests/data/quick-run.json", 0,
	    &je);
	ASSERT(j != NULL);
	ASSERT(report_from_json(j, &rep, err, sizeof(err)) == 0);
	json_decref(j);
	rep.host = d->host;
	ASSERT(db_open(d->cfg.db, NULL, &db, err, sizeof(err)) == DB_OK);
	ASSERT(db_import_report(db, &rep, &id, err, sizeof(err)) == DB_OK);
	ASSERT(runner_load_model(d, db, err, sizeof(err)) == 0);
	db_close(db);
	report_release(&rep);
	ASSERT(d->model != NULL);
}

void
test_daemon_release(struct daemon *d, char *dir)
{
	struct dirent	*e;
	DIR		*dp;
	char		 path[512];

	free(d->model);
	d->model = NULL;
	if (dir[0] == '\0')
		return;
	if ((dp = opendir(dir)) != NULL) {
		while ((e = readdir(dp)) != NULL)
			if (e->d_name[0] != '.') {
				snprintf(path, sizeof(path), "%s/%s", dir,
				    e->d_name);
				unlink(path);
			}
		closedir(dp);
	}
	rmdir(dir);
	dir[0] = '\0';
}
