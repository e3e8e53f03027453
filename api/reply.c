/*
 * api/reply.c: what a handler answers (struct api_reply), and the one
 * place it becomes a libmicrohttpd response: the handler fills the reply
 * and returns; the server queues it and counts its status.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_impl.h"

void
api_reply_header(struct api_reply *rep, const char *name, const char *value)
{
	if (rep->nhdr == API_REPLY_HEADERS)
		return;
	snprintf(rep->hdr[rep->nhdr].name, sizeof(rep->hdr[0].name), "%s",
	    name);
	snprintf(rep->hdr[rep->nhdr].value, sizeof(rep->hdr[0].value), "%s",
	    value);
	rep->nhdr++;
}

/* The headers of every JSON answer but problems. */
static void
api_reply_json_headers(struct api_reply *rep, const char *etag)
{
	api_reply_header(rep, "Content-Type", "application/json");
	api_reply_header(rep, "X-Content-Type-Options", "nosniff");
	api_reply_header(rep, "Cache-Control", "no-cache");
	if (etag != NULL)
		api_reply_header(rep, "ETag", etag);
}

int
api_ok(struct api_reply *rep, int status, json_t *j, const char *etag)
{
	rep->status = status;
	rep->json = j;
	api_reply_json_headers(rep, etag);
	return 0;
}

int
api_ok_text(struct api_reply *rep, int status, char *text, const char *etag)
{
	rep->status = status;
	rep->body = text;
	rep->len = strlen(text);
	api_reply_json_headers(rep, etag);
	return 0;
}

void
api_reply_free(struct api_reply *rep)
{
	json_decref(rep->json);
	free(rep->body);
	rep->json = NULL;
	rep->body = NULL;
}

enum MHD_Result
api_queue(struct MHD_Connection *c, struct api_reply *rep)
{
	struct MHD_Response	*r;
	enum MHD_Result		 rc;
	int			 i;

	if (rep->json != NULL && rep->body == NULL) {
		rep->body = json_dumps(rep->json, JSON_COMPACT |
		    JSON_REAL_PRECISION(6));
		rep->len = rep->body != NULL ? strlen(rep->body) : 0;
		if (rep->body == NULL) {
			api_reply_free(rep);
			rep->status = 0;
			return MHD_NO;
		}
	}
	if (rep->body != NULL) {
		r = MHD_create_response_from_buffer(rep->len, rep->body,
		    MHD_RESPMEM_MUST_FREE);
		if (r != NULL)
			rep->body = NULL;	/* the response's now */
	} else
		r = MHD_create_response_from_buffer(rep->len,
		    (void *)(uintptr_t)rep->data, MHD_RESPMEM_PERSISTENT);
	api_reply_free(rep);
	if (r == NULL) {
		rep->status = 0;
		return MHD_NO;
	}
	for (i = 0; i < rep->nhdr; i++)
		MHD_add_response_header(r, rep->hdr[i].name,
		    rep->hdr[i].value);
	rc = MHD_queue_response(c, (unsigned)rep->status, r);
	MHD_destroy_response(r);
	return rc;
}
