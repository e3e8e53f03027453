/*
 * db/schema.c: the tables, written once: the migrations, forward only,
 * in each engine's dialect. migrations[i] takes the schema from version i
 * to i + 1; the engine keeps the version (SQLite: user_version,
 * PostgreSQL: the table pwtune_schema).
 */
#include "store.h"

/*
 * The dialect: a primary key given by the database, a 64-bit integer, a
 * double, a JSON document, a timestamp, a flag that is off by default.
 */
#define MIGRATIONS(ID, I64, REAL, JSON, TIME, FLAG) {			\
	/* 0 -> 1: the tables. */					\
	"CREATE TABLE hosts ("						\
	"  id TEXT PRIMARY KEY,"					\
	"  fingerprint TEXT NOT NULL,"					\
	"  cpu_model TEXT NOT NULL,"					\
	"  online_cpus INTEGER NOT NULL,"				\
	"  mem_total " I64 " NOT NULL,"					\
	"  cgroup_mem_limit " I64 " NOT NULL,"				\
	"  kernel TEXT NOT NULL,"					\
	"  facts " JSON " NOT NULL,"	/* the host JSON, as reported */\
	"  first_seen " TIME " NOT NULL,"				\
	"  last_seen " TIME " NOT NULL);"				\
	"CREATE TABLE runs ("						\
	"  id " ID ","							\
	"  host_id TEXT NOT NULL REFERENCES hosts(id) ON DELETE CASCADE,"\
	"  fingerprint TEXT NOT NULL,"					\
	"  host_facts " JSON " NOT NULL,"	/* the host at the time */\
	"  profile TEXT NOT NULL,"					\
	"  trigger TEXT NOT NULL CHECK (trigger IN"			\
	"    ('startup', 'api', 'schedule', 'cli', 'import')),"		\
	"  status TEXT NOT NULL CHECK (status IN ('queued', 'running',"	\
	" 'done',"							\
	"    'failed', 'cancelled', 'interrupted')),"			\
	"  points_done INTEGER NOT NULL DEFAULT 0,"			\
	"  points_total INTEGER NOT NULL DEFAULT 0,"			\
	"  noisy_points INTEGER NOT NULL DEFAULT 0,"			\
	"  effective_cpus INTEGER NOT NULL DEFAULT 0,"			\
	"  mem_budget " I64 " NOT NULL DEFAULT 0,"			\
	"  budget_source TEXT NOT NULL DEFAULT 'memavailable',"		\
	"  owner TEXT,"							\
	"  error TEXT,"							\
	"  created " TIME " NOT NULL,"					\
	"  started " TIME ","						\
	"  finished " TIME ");"						\
	"CREATE TABLE points ("						\
	"  id " ID ","							\
	"  run_id " I64 " NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"\
	"  seq INTEGER NOT NULL,"					\
	"  backend TEXT NOT NULL,"					\
	"  variant TEXT NOT NULL,"					\
	"  m_kib " I64 " NOT NULL,"					\
	"  t " I64 " NOT NULL,"						\
	"  p INTEGER NOT NULL,"						\
	"  k INTEGER NOT NULL,"						\
	"  status TEXT NOT NULL,"					\
	"  median_ms " REAL ","						\
	"  noisy " FLAG ","						\
	"  data " JSON " NOT NULL,"	/* the point JSON, samples too */\
	"  UNIQUE (run_id, seq));"					\
	"CREATE TABLE models ("						\
	"  id " ID ","							\
	"  run_id " I64 " NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"\
	"  backend TEXT NOT NULL,"					\
	"  variant TEXT NOT NULL,"					\
	"  p INTEGER NOT NULL,"						\
	"  coefficients " JSON " NOT NULL,"				\
	"  loo_median " REAL ","					\
	"  loo_worst " REAL ","						\
	"  created " TIME " NOT NULL,"					\
	"  UNIQUE (run_id, backend, variant, p));"			\
	"CREATE TABLE verifications ("					\
	"  id " ID ","							\
	"  run_id " I64 " NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"\
	"  target_ms " REAL " NOT NULL,"				\
	"  params TEXT NOT NULL,"					\
	"  predicted_ms " REAL " NOT NULL,"				\
	"  measured_ms " REAL " NOT NULL,"				\
	"  created " TIME " NOT NULL);",				\
	/* 1 -> 2: indices for what the API asks. */			\
	"CREATE INDEX runs_host ON runs(host_id, id);"			\
	"CREATE INDEX runs_status ON runs(status);"			\
	"CREATE INDEX runs_fingerprint ON runs(fingerprint, status);"	\
	"CREATE INDEX models_run ON models(run_id);"			\
	"CREATE INDEX verifications_run ON verifications(run_id);",	\
	/* 2 -> 3: host groups, and what services observed (fleets). */	\
	"ALTER TABLE hosts ADD COLUMN host_group TEXT NOT NULL DEFAULT '';"\
	"CREATE INDEX hosts_group ON hosts(host_group);"		\
	"CREATE TABLE observations ("					\
	"  id " ID ","							\
	"  host_id TEXT NOT NULL REFERENCES hosts(id) ON DELETE CASCADE,"\
	"  stack TEXT NOT NULL,"					\
	"  variant TEXT NOT NULL,"					\
	"  m_kib " I64 " NOT NULL,"					\
	"  t " I64 " NOT NULL,"						\
	"  p INTEGER NOT NULL,"						\
	"  k INTEGER NOT NULL,"						\
	"  nsamples INTEGER NOT NULL,"					\
	"  median_ms " REAL " NOT NULL,"				\
	"  p95_ms " REAL " NOT NULL,"					\
	"  predicted_ms " REAL ","					\
	"  model_run " I64 ","						\
	"  samples " JSON " NOT NULL,"	/* JSON array of ms */		\
	"  created " TIME " NOT NULL);"					\
	"CREATE INDEX observations_stack ON observations(host_id, stack,"\
	" id);",							\
	/* 3 -> 4: stack probes: their points are observations of the */\
	/* run (source 'probe'), and what each probe came to. */	\
	"ALTER TABLE observations ADD COLUMN source TEXT NOT NULL"	\
	" DEFAULT 'service';"						\
	"CREATE INDEX observations_run ON observations(model_run);"	\
	"CREATE TABLE probes ("						\
	"  id " ID ","							\
	"  run_id " I64 " NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"\
	"  stack TEXT NOT NULL,"					\
	"  status TEXT NOT NULL,"					\
	"  why TEXT NOT NULL,"	/* '' when it was probed */		\
	"  runtime TEXT NOT NULL,"					\
	"  library TEXT NOT NULL,"					\
	"  points INTEGER NOT NULL,"					\
	"  seconds " REAL " NOT NULL,"					\
	"  created " TIME " NOT NULL,"					\
	"  UNIQUE (run_id, stack));",					\
	/* 4 -> 5: the library file a probe's runtime shared with the */\
	/* curve ('' when it did not: stack_correction). */		\
	"ALTER TABLE probes ADD COLUMN shares TEXT NOT NULL DEFAULT '';",\
}

/* SQLite: an INTEGER PRIMARY KEY is the rowid; values keep their type. */
const char *const db_sqlite_migrations[DB_SCHEMA_VERSION] = MIGRATIONS(
    "INTEGER PRIMARY KEY", "INTEGER", "REAL", "TEXT", "TEXT",
    "INTEGER NOT NULL DEFAULT 0");

const char *const db_postgresql_migrations[DB_SCHEMA_VERSION] = MIGRATIONS(
    "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY", "BIGINT",
    "DOUBLE PRECISION", "JSONB", "TIMESTAMPTZ",
    "BOOLEAN NOT NULL DEFAULT false");
