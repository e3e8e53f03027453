/*
 * api/runs.c: GET /v1/runs and /v1/runs/ID from the store, with the
 * progress of the one running; POST /v1/runs asks the host for a run,
 * DELETE /v1/runs/ID cancels it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_impl.h"

static json_t *
api_run_json(struct api_server *s, const struct db_run *run)
{
	struct api_state	 hs;
	json_t			*j;

	/* Not started, not finished, no error: null. */
	j = json_pack("{s:I, s:s, s:s, s:s, s:s, s:s, s:i, s:i, s:i, s:s, "
	    "s:o, s:o, s:o}",
	    "id", (json_int_t)run->id,
	    "host_id", run->host_id,
	    "fingerprint", run->fingerprint,
	    "profile", run->profile,
	    "trigger", db_trigger_name(run->trigger),
	    "status", db_run_status_name(run->status),
	    "points_done", run->points_done,
	    "points_total", run->points_total,
	    "noisy_points", run->noisy_points,
	    "created", run->created,
	    "started", api_null_if_empty(run->started),
	    "finished", api_null_if_empty(run->finished),
	    "error", api_null_if_empty(run->error));
	api_state(s, &hs);
	/*
	 * Points counted as the run's points_done and the log count them;
	 * probes and verifications after them are steps, counted apart.
	 * done and total: the old names of points_done and points_total.
	 */
	/* Just queued: the runner has not counted its points yet. */
	if (hs.running_run == run->id && hs.points_total == 0 &&
	    run->points_total > 0) {
		hs.points_total = (size_t)run->points_total;
		hs.step_total = hs.points_total;
	}
	if (hs.running_run == run->id)
		json_object_set_new(j, "progress", json_pack("{s:I, s:I, s:I, "
		    "s:s, s:I, s:I, s:o, s:I, s:I}",
		    "points_done", (json_int_t)hs.points_done,
		    "points_total", (json_int_t)hs.points_total,
		    "points_measured", (json_int_t)hs.points_measured,
		    "step", hs.step != NULL ? hs.step : "points",
		    "step_done", (json_int_t)hs.step_done,
		    "step_total", (json_int_t)hs.step_total,
		    "eta_s", hs.eta >= 0 ? json_real(hs.eta) : json_null(),
		    "done", (json_int_t)hs.points_done,
		    "total", (json_int_t)hs.points_total));
	else if (hs.pending_run == run->id) {
		/* Ended, but the store could not record it yet. */
		json_object_set_new(j, "status", json_string(
		    db_run_status_name(hs.pending_status)));
		json_object_set_new(j, "error", api_null_if_empty(
		    hs.pending_error));
		json_object_set_new(j, "recorded", json_false());
	}
	return j;
}

int
h_runs_list(struct api_server *s, struct MHD_Connection *c,
    struct api_request *r, const char *arg, struct api_reply *rep)
{
	struct db_run	*runs;
	struct db	*db;
	size_t		 n, i;
	json_t		*list;
	char		 err[512];

	(void)c;
	(void)r;
	(void)arg;
	if ((db = api_db(s, err, sizeof(err))) == NULL ||
	    db_runs_list(db, NULL, 100, &runs, &n, err, sizeof(err)) != DB_OK)
		return api_store_fail(s, rep, DB_ERR_UNAVAILABLE, 0, NULL,
		    NULL);
	list = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(list, api_run_json(s, &runs[i]));
	free(runs);
	return api_ok(rep, 200, json_pack("{s:o}", "runs", list), NULL);
}

/* The 404 of a path whose id is no run id. */
static int
api_run_id_fail(struct api_reply *rep)
{
	return api_fail(rep, PROB_NOT_FOUND, "id", "run ids are positive "
	    "whole numbers", NULL, 0);
}

int
h_run_get(struct api_server *s, struct MHD_Connection *c,
    struct api_request *r, const char *arg, struct api_reply *rep)
{
	struct db_run	 run;
	struct db	*db;
	int64_t		 id;
	char		 err[512];
	enum db_status	 st;

	(void)c;
	(void)r;
	if (api_run_id(arg, &id) == -1)
		return api_run_id_fail(rep);
	st = DB_ERR_UNAVAILABLE;
	if ((db = api_db(s, err, sizeof(err))) != NULL)
		st = db_run_get(db, id, &run, err, sizeof(err));
	if (st != DB_OK)
		return api_store_fail(s, rep, st, 0, "id", "no such run");
	return api_ok(rep, 200, api_run_json(s, &run), NULL);
}

int
h_runs_post(struct api_server *s, struct MHD_Connection *c,
    struct api_request *r, const char *arg, struct api_reply *rep)
{
	struct db_run	 run;
	struct db	*db;
	json_t		*j = NULL, *v;
	const char	*profile = "quick", *key;
	char		 err[512], loc[64];
	int64_t		 id;
	unsigned	 retry = 0;
	int		 rc;

	(void)c;
	(void)arg;
	if (r->bodylen > 0) {
		if ((j = api_body_json(r, rep)) == NULL)
			return 0;
		json_object_foreach(j, key, v) {
			if (strcmp(key, "profile") != 0) {
				/* key lives in j: answer before letting go. */
				rc = api_fail(rep, PROB_BAD_PARAM, key,
				    "unknown member: the body takes "
				    "{\"profile\": \"quick\" | \"full\"}", NULL,
				    0);
				json_decref(j);
				return rc;
			}
		}
		if ((v = json_object_get(j, "profile")) != NULL) {
			if (!json_is_string(v) ||
			    (strcmp(json_string_value(v), "quick") &&
			    strcmp(json_string_value(v), "full"))) {
				json_decref(j);
				return api_fail(rep, PROB_BAD_PARAM, "profile",
				    "must be \"quick\" or \"full\"", NULL, 0);
			}
			profile = strcmp(json_string_value(v), "full") == 0 ?
			    "full" : "quick";
		}
		json_decref(j);
	}
	switch (s->env.run_request(s->env.ctx, profile, &id, &retry, err,
	    sizeof(err))) {
	case 1:
		return api_fail(rep, PROB_CONFLICT, NULL, "a run is queued or "
		    "running: GET /v1/runs shows it", NULL, retry);
	case 2:
		return api_fail(rep, PROB_TOO_MANY, NULL, "a run ended less "
		    "than the cool-down ago", NULL, retry);
	case -1:
		api_log(s, API_LOG_WARN, "POST /v1/runs: %s", err);
		return api_store_fail(s, rep, DB_ERR_UNAVAILABLE, 1, NULL,
		    NULL);
	}
	api_log(s, API_LOG_INFO, "run %lld requested through the API (%s)",
	    (long long)id, profile);
	if ((db = api_db(s, err, sizeof(err))) == NULL ||
	    db_run_get(db, id, &run, err, sizeof(err)) != DB_OK)
		return api_store_fail(s, rep, DB_ERR_UNAVAILABLE, 0, NULL,
		    NULL);
	snprintf(loc, sizeof(loc), "/v1/runs/%lld", (long long)id);
	api_ok(rep, 202, api_run_json(s, &run), NULL);
	api_reply_header(rep, "Location", loc);
	return 0;
}

int
h_run_delete(struct api_server *s, struct MHD_Connection *c,
    struct api_request *r, const char *arg, struct api_reply *rep)
{
	struct db_run	 run;
	struct db	*db;
	int64_t		 id;
	char		 err[512];
	enum db_status	 st;

	(void)c;
	(void)r;
	if (api_run_id(arg, &id) == -1)
		return api_run_id_fail(rep);
	if (s->env.run_cancel(s->env.ctx, id) == 0) {
		api_log(s, API_LOG_INFO, "run %lld cancelled through the API",
		    (long long)id);
		return api_ok(rep, 202, json_pack("{s:I, s:s}", "id",
		    (json_int_t)id, "status", "cancelling"), NULL);
	}
	st = DB_ERR_UNAVAILABLE;
	if ((db = api_db(s, err, sizeof(err))) != NULL)
		st = db_run_get(db, id, &run, err, sizeof(err));
	if (st != DB_OK)
		return api_store_fail(s, rep, st, 0, "id", "no such run");
	/* Queued or running in the store, and not here: another host's. */
	if (run.status == DB_RUN_QUEUED || run.status == DB_RUN_RUNNING) {
		snprintf(err, sizeof(err), "run %lld is %s on another host: "
		    "its own daemon cancels it", (long long)id,
		    db_run_status_name(run.status));
		return api_fail(rep, PROB_CONFLICT, "id", err, NULL, 0);
	}
	snprintf(err, sizeof(err), "run %lld already ended (%s): only a "
	    "queued or running run can be cancelled", (long long)id,
	    db_run_status_name(run.status));
	return api_fail(rep, PROB_RUN_FINISHED, "id", err, NULL, 0);
}
