-- Wakes the workers when a job becomes available (issue 32): a job inserted, or set back to
-- available (a retry, a release), notifies the channel `job_available:<schema>` at commit, so an
-- idle worker claims at once instead of polling. The payload is the job's due time (epoch ms):
-- a worker wakes for a delayed job when it is due, without asking the database.
CREATE FUNCTION "job_available_notify"() RETURNS trigger AS $$
BEGIN
  PERFORM pg_notify('job_available:' || TG_TABLE_SCHEMA,
                    floor(extract(epoch FROM NEW."runAt") * 1000)::bigint::text);
  RETURN NULL;
END
$$ LANGUAGE plpgsql;

CREATE TRIGGER "Job_available_notify"
  AFTER INSERT OR UPDATE OF "state" ON "Job"
  FOR EACH ROW WHEN (NEW."state" = 'available')
  EXECUTE FUNCTION "job_available_notify"();
